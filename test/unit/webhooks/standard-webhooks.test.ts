import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../../server/domain/webhooks/delivery/deliver.js';
import { honourRetryAfter, MAX_RETRY_AFTER_MS } from '../../../server/domain/webhooks/delivery/retry-schedule.js';
import { generateWebhookSecret, signingSecrets, standardSignature } from '../../../server/domain/webhooks/signing.js';

describe('Standard Webhooks signatures', () => {
  const body = '{"id":"evt_1","event":"test.ping","timestamp":"2026-11-21T20:00:00.000Z","data":{"key_id":1}}';

  it('matches what the standardwebhooks library signs for the same secret, id, timestamp and body', () => {
    const secret = generateWebhookSecret();
    const at = new Date('2026-11-22T08:00:00Z');
    expect(standardSignature(secret, 'evt_1', at.getTime() / 1000, body)).toBe(
      new Webhook(secret).sign('evt_1', at, body),
    );
  });

  it('signs with the previous secret too until its overlap ends', () => {
    const webhook = { secret: 'whsec_new', previous_secret: 'whsec_old', previous_secret_expires_at: 1_000 };
    expect(signingSecrets(webhook, 999)).toEqual(['whsec_new', 'whsec_old']);
    expect(signingSecrets(webhook, 1_000)).toEqual(['whsec_new']);
    expect(signingSecrets({ secret: 'whsec_new', previous_secret: null, previous_secret_expires_at: null }, 0)).toEqual(
      ['whsec_new'],
    );
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-11-22T08:00:00Z');

  it('reads delay-seconds and HTTP dates, and ignores anything else', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Sun, 22 Nov 2026 08:05:00 GMT', now)).toBe(300_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 07:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-5', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });

  it('delays the next attempt to what the receiver asked, never sooner than scheduled and never past 24 hours', () => {
    expect(honourRetryAfter({ retry: true, delayMs: 10_000 }, 60_000)).toEqual({ retry: true, delayMs: 60_000 });
    expect(honourRetryAfter({ retry: true, delayMs: 10_000 }, 1_000)).toEqual({ retry: true, delayMs: 10_000 });
    expect(honourRetryAfter({ retry: true, delayMs: 10_000 }, 90 * MAX_RETRY_AFTER_MS)).toEqual({
      retry: true,
      delayMs: MAX_RETRY_AFTER_MS,
    });
    expect(honourRetryAfter({ retry: true, delayMs: 10_000 }, null)).toEqual({ retry: true, delayMs: 10_000 });
    // The schedule is exhausted: a Retry-After does not add an attempt.
    expect(honourRetryAfter({ retry: false }, 60_000)).toEqual({ retry: false });
  });
});
