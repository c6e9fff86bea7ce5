import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, isApiKeyShaped } from '../../server/domain/keys/api-keys.js';
import { hashPassword, verifyPassword } from '../../server/auth/passwords.js';

describe('API key material', () => {
  it('is the mode prefix plus 32 base62 characters, stored as its SHA-256 and a 12-character prefix', () => {
    const live = generateApiKey('live');
    expect(live.plaintext).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    expect(live.prefix).toBe(live.plaintext.slice(0, 12));
    expect(live.hash).toBe(hashApiKey(live.plaintext));
    expect(live.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(generateApiKey('test').plaintext).toMatch(/^sk_test_/);
  });

  it('never repeats', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateApiKey('live').plaintext));
    expect(keys.size).toBe(2000);
  });

  it('recognises only key-shaped credentials', () => {
    expect(isApiKeyShaped(generateApiKey('test').plaintext)).toBe(true);
    for (const other of [
      'sk_live_short',
      `sk_prod_${'a'.repeat(32)}`,
      `Bearer sk_live_${'a'.repeat(32)}`,
      'a'.repeat(40),
    ]) {
      expect(isApiKeyShaped(other), other).toBe(false);
    }
  });
});

describe('passwords', () => {
  it('verify against their salted scrypt hash and not otherwise', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash).not.toBe(await hashPassword('correct horse battery'));
    expect(await verifyPassword(hash, 'correct horse battery')).toBe(true);
    expect(await verifyPassword(hash, 'correct horse battery!')).toBe(false);
    expect(await verifyPassword('garbage', 'x')).toBe(false);
  });
});
