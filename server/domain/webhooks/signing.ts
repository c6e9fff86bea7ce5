import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../../ids.js';

export const SIGNATURE_PREFIX = 'sha256=';
const SECRET_PREFIX = 'whsec_';
const SECRET_BODY_LENGTH = 32;
/** After a rotation the replaced secret keeps signing for this long, so receivers can switch over. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** `whsec_` + 32 base62 characters. */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBase62(SECRET_BODY_LENGTH)}`;
}

/** `sha256=` + lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the whole secret string. */
export function signPayload(secret: string, body: string | Buffer): string {
  return SIGNATURE_PREFIX + createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`, keyed with the base64-decoded part of
 * the secret after `whsec_`, as that ecosystem's libraries do. (32 base62 characters are valid base64.)
 */
export function standardSignature(secret: string, id: string, timestampSeconds: number, body: string | Buffer): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.`).update(body).digest('base64')}`;
}

export interface WebhookSecrets {
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
}

/** The secrets a delivery made at `now` is signed with, newest first: the previous one only while its overlap lasts. */
export function signingSecrets(webhook: WebhookSecrets, now: number): [string, ...string[]] {
  const { previous_secret: previous, previous_secret_expires_at: expiresAt } = webhook;
  return previous !== null && expiresAt !== null && expiresAt > now ? [webhook.secret, previous] : [webhook.secret];
}

/** Constant-time check of an `X-Webhook-Signature` header against the raw body, as a receiver would do it. */
export function verifySignature(secret: string, body: string | Buffer, header: string | null | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(signPayload(secret, body));
  const given = Buffer.from(header.trim());
  return given.length === expected.length && timingSafeEqual(given, expected);
}
