import { beforeEach, expect, it } from 'vitest';
import { signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { startOfNextMinute, startTestServer, useTestServer } from '../helpers/server.js';
import { countActiveJobs } from '../../server/domain/jobs/jobs.js';
import { acquireImageSlot, LEASE_MS } from '../../server/limits/image-slots.js';
import {
  abandonIdempotentRequest,
  beginIdempotentRequest,
  completeIdempotentRequest,
  IDEMPOTENCY_TTL_MS,
} from '../../server/domain/idempotency/requests.js';

describeEachDatabase('Rate limits and idempotency records', (dialect) => {
  const server = useTestServer(dialect, { env: { RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_CONCURRENT: '2' } });
  // Budgets are fixed calendar-minute windows: a test that straddled a minute boundary would get a fresh budget halfway.
  beforeEach(() => server.clock.advanceTo(startOfNextMinute(server.clock)));

  it('answers 429 with Retry-After once a key spends its requests for the minute, and reports the budget', async () => {
    const { key } = await signUpWithKey(server.api);
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof server.api.get>> | undefined;
    for (let i = 0; i < 4; i++) {
      last = await server.api.get('/api/v1/credits', { token: key });
      statuses.push(last.status);
      if (i === 0) {
        expect(last.headers.get('x-ratelimit-limit')).toBe('3');
        expect(last.headers.get('x-ratelimit-remaining')).toBe('2');
        expect(Number(last.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
      }
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last!.body).toMatchObject({ error: 'rate limited', code: 'rate_limited', message: expect.any(String) });
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last!.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('opens a fresh budget when the next minute starts', async () => {
    const { key } = await signUpWithKey(server.api);
    for (let i = 0; i < 3; i++) await server.api.get('/api/v1/credits', { token: key });
    const limited = await server.api.get('/api/v1/credits', { token: key });
    expect(limited.status).toBe(429);
    server.clock.advance(Number(limited.headers.get('retry-after')) * 1000);
    const next = await server.api.get('/api/v1/credits', { token: key });
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('counts each key on its own', async () => {
    const a = await signUpWithKey(server.api);
    const b = await signUpWithKey(server.api);
    for (let i = 0; i < 3; i++) await server.api.get('/api/v1/credits', { token: a.key });
    expect((await server.api.get('/api/v1/credits', { token: a.key })).status).toBe(429);
    expect((await server.api.get('/api/v1/credits', { token: b.key })).status).toBe(200);
  });

  it('does not count requests without a valid key', async () => {
    const { key } = await signUpWithKey(server.api);
    for (let i = 0; i < 5; i++) await server.api.get('/api/v1/credits', { token: `sk_live_${'z'.repeat(32)}` });
    expect((await server.api.get('/api/v1/credits', { token: key })).status).toBe(200);
  });

  it('lets a key hold only its limit of image operations at once, and frees slots on release or lease expiry', async () => {
    const { keyId } = await signUpWithKey(server.api);
    const now = server.clock.now();
    const db = server.services.db;
    const slots = await Promise.all(
      [1, 2, 3, 4].map(() => acquireImageSlot(db, { keyId, limit: 2, now, inFlightElsewhere: countActiveJobs })),
    );
    expect(slots.filter(Boolean)).toHaveLength(2);
    await slots.find(Boolean)!();
    expect(await acquireImageSlot(db, { keyId, limit: 2, now, inFlightElsewhere: countActiveJobs })).not.toBeNull();
    expect(await acquireImageSlot(db, { keyId, limit: 2, now, inFlightElsewhere: countActiveJobs })).toBeNull();
    // A process that died holding slots gives them back when the leases expire.
    expect(
      await acquireImageSlot(db, { keyId, limit: 2, now: now + LEASE_MS, inFlightElsewhere: countActiveJobs }),
    ).not.toBeNull();
  });

  it('lets one request claim an Idempotency-Key and replays its stored response', async () => {
    const { keyId } = await signUpWithKey(server.api);
    const db = server.services.db;
    const scope = { keyId, idempotencyKey: 'order-42' };
    const now = server.clock.now();
    const attempts = await Promise.allSettled(
      [1, 2, 3].map(() => beginIdempotentRequest(db, { ...scope, fingerprint: 'f'.repeat(64), now })),
    );
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    for (const rejected of attempts.filter((a) => a.status === 'rejected')) {
      expect((rejected as PromiseRejectedResult).reason).toMatchObject({
        code: 'conflict',
        message: expect.stringMatching(/still being processed/),
      });
    }
    await completeIdempotentRequest(db, scope, { claim_code: 'RS-ABCDEFGH' });
    expect(await beginIdempotentRequest(db, { ...scope, fingerprint: 'f'.repeat(64), now })).toEqual({
      kind: 'replay',
      body: { claim_code: 'RS-ABCDEFGH' },
    });
    await expect(beginIdempotentRequest(db, { ...scope, fingerprint: 'e'.repeat(64), now })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/different request/),
    });
    // Kept 24 hours, then the key is free again.
    expect(
      await beginIdempotentRequest(db, { ...scope, fingerprint: 'e'.repeat(64), now: now + IDEMPOTENCY_TTL_MS }),
    ).toEqual({ kind: 'first' });
  });

  it('frees an Idempotency-Key whose request failed, so the client can retry', async () => {
    const { keyId } = await signUpWithKey(server.api);
    const db = server.services.db;
    const scope = { keyId, idempotencyKey: 'retry-me' };
    const now = server.clock.now();
    expect(await beginIdempotentRequest(db, { ...scope, fingerprint: 'a'.repeat(64), now })).toEqual({ kind: 'first' });
    await abandonIdempotentRequest(db, scope);
    expect(await beginIdempotentRequest(db, { ...scope, fingerprint: 'a'.repeat(64), now })).toEqual({ kind: 'first' });
  });
});

describeEachDatabase('Rate limits across server processes', (dialect) => {
  it('shares one budget per key between server processes on one database', async () => {
    const first = await startTestServer(dialect, { env: { RATE_LIMIT_PER_MINUTE: '4' } });
    const second = await startTestServer(dialect, {
      env: { RATE_LIMIT_PER_MINUTE: '4' },
      database: { url: first.databaseUrl, drop: async () => {} },
    });
    try {
      const { key } = await signUpWithKey(first.api);
      // Both processes just after a minute starts, so the five requests share one window.
      const windowStart = startOfNextMinute(first.clock);
      for (const server of [first, second]) server.clock.advanceTo(windowStart);
      const statuses = [];
      for (const server of [first, second, first, second, first])
        statuses.push((await server.api.get('/api/v1/credits', { token: key })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
    } finally {
      await second.close();
      await first.close();
      await first.dropDatabase();
    }
  });
});
