import { describe, expect, it } from 'vitest';
import {
  CLAIM_CODE_PATTERN,
  CROCKFORD_ALPHABET,
  generateClaimCode,
  normalizeClaimCode,
} from '../../../server/domain/claims/codes.js';

describe('claim codes', () => {
  it('are RS- plus 8 Crockford base32 characters, without I, L, O or U', () => {
    const codes = Array.from({ length: 2000 }, generateClaimCode);
    for (const code of codes) expect(code).toMatch(CLAIM_CODE_PATTERN);
    expect(codes.join('')).not.toMatch(/[ILOU]/);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('use every character of the alphabet', () => {
    const seen = new Set(Array.from({ length: 500 }, generateClaimCode).flatMap((code) => [...code.slice(3)]));
    expect([...seen].sort().join('')).toBe([...CROCKFORD_ALPHABET].sort().join(''));
  });

  it('normalise what people type: case, a missing hyphen, spaces and look-alikes', () => {
    expect(normalizeClaimCode('rs-7k3m9qxd')).toBe('RS-7K3M9QXD');
    expect(normalizeClaimCode('RS7K3M9QXD')).toBe('RS-7K3M9QXD');
    expect(normalizeClaimCode(' rs 7k3m 9qxd ')).toBe('RS-7K3M9QXD');
    expect(normalizeClaimCode('7K3M9QXD')).toBe('RS-7K3M9QXD');
    expect(normalizeClaimCode('RS-O0IL1234')).toBe('RS-00111234');
  });

  it('refuse what cannot be a code', () => {
    for (const typed of ['', 'RS-', 'RS-1234567', 'RS-123456789', 'RS-1234567U', 'XX-12345678', 'hello world']) {
      expect(normalizeClaimCode(typed)).toBeNull();
    }
  });
});
