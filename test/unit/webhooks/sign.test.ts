import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, signPayload, verifySignature } from '../../../server/domain/webhooks/signing.js';

describe('webhook signatures', () => {
  const secret = 'whsec_0123456789abcdefghijABCDEFGHIJ01';
  const body = '{"id":"evt_1","event":"test.ping","timestamp":"2026-11-21T20:00:00.000Z","data":{"key_id":1}}';

  it('is sha256= and the lowercase hex HMAC-SHA256 of the exact body bytes', () => {
    expect(signPayload(secret, body)).toBe(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
    expect(signPayload(secret, body)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('verifies the right signature and rejects a changed body, another secret or a malformed header', () => {
    const signature = signPayload(secret, body);
    expect(verifySignature(secret, body, signature)).toBe(true);
    expect(verifySignature(secret, Buffer.from(body), signature)).toBe(true);
    expect(verifySignature(secret, body.replace('1', '2'), signature)).toBe(false);
    expect(verifySignature(generateWebhookSecret(), body, signature)).toBe(false);
    expect(verifySignature(secret, body, signature.toUpperCase())).toBe(false);
    expect(verifySignature(secret, body, 'sha256=')).toBe(false);
    expect(verifySignature(secret, body, undefined)).toBe(false);
  });

  it('creates secrets as whsec_ plus 32 base62 characters, never the same twice', () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(generateWebhookSecret()).not.toBe(a);
  });
});
