import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../ids.js';

export const SIGNATURE_PREFIX = 'sha256=';
const SECRET_BODY_LENGTH = 32;

/** `whsec_` + 32 base62 characters (CONTRACT §7). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBase62(SECRET_BODY_LENGTH)}`;
}

/** `sha256=` + lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the whole secret string. */
export function signPayload(secret: string, body: string | Buffer): string {
  return SIGNATURE_PREFIX + createHmac('sha256', secret).update(body).digest('hex');
}

/** Constant-time check of an `X-Webhook-Signature` header against the raw body, as a receiver would do it. */
export function verifySignature(secret: string, body: string | Buffer, header: string | null | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(signPayload(secret, body));
  const given = Buffer.from(header.trim());
  return given.length === expected.length && timingSafeEqual(given, expected);
}
