import { randomBytes } from 'node:crypto';

/** Crockford base32: no I, L, O or U, so a code read aloud or retyped from paper survives. */
export const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_LENGTH = 8;
export const CLAIM_CODE_PATTERN = /^RS-[0-9A-HJKMNP-TV-Z]{8}$/;

/** `RS-` + 8 random Crockford characters (40 bits). 256 is a multiple of 32, so `byte % 32` is uniform. */
export function generateClaimCode(): string {
  let body = '';
  for (const byte of randomBytes(CODE_LENGTH)) body += CROCKFORD_ALPHABET[byte % 32];
  return `RS-${body}`;
}

/**
 * The canonical form of what someone typed: case-insensitive, spaces and hyphens ignored, the `RS` prefix optional
 * after the first character pair, and Crockford's look-alikes read as digits (O→0, I/L→1). Null when it cannot be
 * a claim code at all.
 */
export function normalizeClaimCode(input: string): string | null {
  let text = input.toUpperCase().replace(/[\s\-_]/g, '');
  if (text.startsWith('RS') && text.length === CODE_LENGTH + 2) text = text.slice(2);
  if (text.length !== CODE_LENGTH) return null;
  const body = text.replace(/O/g, '0').replace(/[IL]/g, '1');
  const code = `RS-${body}`;
  return CLAIM_CODE_PATTERN.test(code) ? code : null;
}
