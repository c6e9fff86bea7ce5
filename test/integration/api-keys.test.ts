import type { KyselyPlugin } from 'kysely';
import { expect, it } from 'vitest';
import { openDatabase } from '../../db/client.js';
import { ledgerSum } from '../../server/domain/credits/ledger.js';
import { apiKeyHashOf, authenticateApiKey } from '../../server/domain/keys/api-keys.js';
import { createKey, signUp, signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { startOfNextMinute, startTestServer, useTestServer } from '../helpers/server.js';

describeEachDatabase('API keys', (dialect) => {
  const server = useTestServer(dialect);

  it('creates a live key shown once, with 10 bonus credits for the first key only', async () => {
    const { token } = await signUp(server.api);
    const first = await server.api.post('/api/v1/keys', { token, json: { name: 'Production' } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(Number),
      name: 'Production',
      mode: 'live',
      key: expect.stringMatching(/^sk_live_[0-9A-Za-z]{32}$/),
      prefix: first.body.key.slice(0, 12),
      status: 'active',
      created_at: expect.any(String),
      bonus_credits_granted: 10,
      scopes: ['stage', 'enhance', 'place_products', 'declutter', 'credits:read', 'jobs:read'],
      expires_at: null,
    });
    const second = await createKey(server.api, token, { mode: 'test' });
    expect(second.key).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect(second.name).toBe('Default');
    expect(second.bonus_credits_granted).toBe(0);
    const credits = await server.api.get('/api/v1/credits', { token: second.key });
    expect(credits.body.credits).toBe(10);
  });

  it('keeps only the SHA-256 hash and the display prefix of a key', async () => {
    const { token } = await signUp(server.api);
    const created = await createKey(server.api, token);
    const row = await server.services.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.prefix).toBe(created.key.slice(0, 12));
    expect(JSON.stringify(row)).not.toContain(created.key);
  });

  it('lists keys newest first without their plaintext', async () => {
    const { token, userId, email } = await signUp(server.api);
    const a = await createKey(server.api, token, { name: 'a' });
    const b = await createKey(server.api, token, { name: 'b', mode: 'test' });
    const response = await server.api.get('/api/v1/keys', { token });
    expect(response.status).toBe(200);
    expect(response.body.keys.map((k: { id: number }) => k.id)).toEqual([b.id, a.id]);
    expect(response.body.keys[0]).toEqual({
      id: b.id,
      name: 'b',
      mode: 'test',
      prefix: b.prefix,
      status: 'active',
      created_at: expect.any(String),
      last_used_at: null,
      revoked_at: null,
      scopes: ['stage', 'enhance', 'place_products', 'declutter', 'credits:read', 'jobs:read'],
      expires_at: null,
      created_by: { user_id: userId, email },
    });
    expect(response.text).not.toContain(a.key);
  });

  it('sets last_used_at on every use of the key', async () => {
    const { token, key, keyId } = await signUpWithKey(server.api);
    const lastUsed = async () =>
      (await server.api.get('/api/v1/keys', { token })).body.keys.find((k: { id: number }) => k.id === keyId)
        .last_used_at;
    expect(await lastUsed()).toBeNull();
    await server.api.get('/api/v1/credits', { token: key });
    const first = await lastUsed();
    expect(first).not.toBeNull();
    server.clock.advance(5_000);
    await server.api.get('/api/v1/credits', { token: key });
    expect(Date.parse(await lastUsed())).toBeGreaterThanOrEqual(Date.parse(first) + 5_000);
  });

  it('records the latest of many uses of a key; on SQLite the uses of one event-loop turn in one write', async () => {
    const { key, keyId } = await signUpWithKey(server.api);
    let writes = 0;
    const countWrites: KyselyPlugin = {
      transformQuery: (args) => {
        if (args.node.kind === 'UpdateQueryNode') writes++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const db = server.services.db.withPlugin(countWrites);
    const hash = apiKeyHashOf(key);
    if (!hash) throw new Error('a key made by the API has the key format');
    const base = server.clock.now() + 60_000;
    // One after the other, as requests read in one turn are: each check finishes before the next begins.
    for (let i = 0; i < 20; i++) expect((await authenticateApiKey(db, hash, base + i))?.id).toBe(keyId);
    const lastUsed = async () =>
      (
        await server.services.db
          .selectFrom('api_keys')
          .select('last_used_at')
          .where('id', '=', keyId)
          .executeTakeFirst()
      )?.last_used_at;
    await expect.poll(lastUsed).toBe(base + 19);
    if (dialect === 'sqlite') expect(writes).toBe(1);
    else expect(writes).toBeGreaterThan(0);
  });

  it('writes the uses of several keys together, each key its own latest time', async () => {
    const { token, key, keyId } = await signUpWithKey(server.api);
    const other = await createKey(server.api, token, { name: 'second' });
    let writes = 0;
    const handle = openDatabase(server.databaseUrl, {
      onQuery: (sql) => {
        if (/^update [`"]api_keys[`"]/i.test(sql)) writes++;
      },
    });
    try {
      const hashOf = (plaintext: string) => {
        const hash = apiKeyHashOf(plaintext);
        if (!hash) throw new Error('a key made by the API has the key format');
        return hash;
      };
      const base = server.clock.now() + 120_000;
      const uses = await Promise.all([
        authenticateApiKey(handle.db, hashOf(key), base + 5),
        authenticateApiKey(handle.db, hashOf(other.key), base + 7),
        authenticateApiKey(handle.db, hashOf(key), base + 3),
      ]);
      expect(uses.map((use) => use?.id)).toEqual([keyId, other.id, keyId]);
      const lastUsed = async () =>
        Object.fromEntries(
          (
            await handle.db
              .selectFrom('api_keys')
              .select(['id', 'last_used_at'])
              .where('id', 'in', [keyId, other.id])
              .execute()
          ).map((row) => [row.id, Number(row.last_used_at)]),
        );
      await expect.poll(lastUsed).toEqual({ [keyId]: base + 5, [other.id]: base + 7 });
      // SQLite: every use of this turn in one write. On MySQL the count depends on which round trip ends first.
      if (dialect === 'sqlite') expect(writes).toBe(1);
    } finally {
      await handle.close();
    }
  });

  it('shares one key check among the requests of a key that arrive while it is in flight', async () => {
    const { token, key, keyId } = await signUpWithKey(server.api);
    let checks = 0;
    const handle = openDatabase(server.databaseUrl, {
      onQuery: (sql) => {
        if (/^select .* from [`"]api_keys[`"]/i.test(sql)) checks++;
      },
    });
    try {
      const hash = apiKeyHashOf(key);
      if (!hash) throw new Error('a key made by the API has the key format');
      const now = server.clock.now();
      // Twenty at once: the first check goes out, the nineteen that arrive meanwhile share the next one.
      const uses = await Promise.all(Array.from({ length: 20 }, () => authenticateApiKey(handle.db, hash, now)));
      expect(uses.every((use) => use?.id === keyId)).toBe(true);
      expect(checks).toBe(2);
      // A check that begins after a revocation committed refuses the key (the unit test of db/shared-reads.ts pins
      // that one in flight while it committed is never reused).
      expect((await server.api.delete(`/api/v1/keys/${keyId}`, { token })).status).toBe(200);
      expect(await authenticateApiKey(handle.db, hash, now)).toBeNull();
    } finally {
      await handle.close();
    }
  });

  it('rejects a revoked key on the very next request; revoking again is 200', async () => {
    const { token, key, keyId } = await signUpWithKey(server.api);
    expect((await server.api.get('/api/v1/credits', { token: key })).status).toBe(200);
    const revoked = await server.api.delete(`/api/v1/keys/${keyId}`, { token });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id: keyId, status: 'revoked', revoked_at: expect.any(String) });
    const next = await server.api.get('/api/v1/credits', { token: key });
    expect(next.status).toBe(401);
    const again = await server.api.delete(`/api/v1/keys/${keyId}`, { token });
    expect(again.status).toBe(200);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    const listed = (await server.api.get('/api/v1/keys', { token })).body.keys[0];
    expect(listed).toMatchObject({ status: 'revoked', revoked_at: revoked.body.revoked_at });
  });

  it('counts every request of a key once, the first one and those of a key already seen, and a key revoked after use is 401', async () => {
    server.clock.advanceTo(startOfNextMinute(server.clock));
    const { token, key, keyId } = await signUpWithKey(server.api);
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 3; i++)
      remaining.push((await server.api.get('/api/v1/credits', { token: key })).headers.get('x-ratelimit-remaining'));
    expect(remaining).toEqual(['59', '58', '57']);
    await server.api.delete(`/api/v1/keys/${keyId}`, { token });
    const refused = await server.api.get('/api/v1/credits', { token: key });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-ratelimit-remaining')).toBeNull();
  });

  it("answers 404 for another account's key and leaves it working", async () => {
    const owner = await signUpWithKey(server.api);
    const stranger = await signUp(server.api);
    const response = await server.api.delete(`/api/v1/keys/${owner.keyId}`, { token: stranger.token });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ error: 'not found', code: 'not_found' });
    expect((await server.api.get('/api/v1/credits', { token: owner.key })).status).toBe(200);
    expect((await server.api.delete('/api/v1/keys/999999', { token: stranger.token })).status).toBe(404);
  });

  it('validates key creation input', async () => {
    const { token } = await signUp(server.api);
    const tooLong = await server.api.post('/api/v1/keys', { token, json: { name: 'x'.repeat(65) } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.details[0].path).toBe('name');
    const badMode = await server.api.post('/api/v1/keys', { token, json: { mode: 'prod' } });
    expect(badMode.status).toBe(400);
    expect((await server.api.get('/api/v1/keys', { token })).body.keys).toHaveLength(0);
  });

  it('grants the first-key bonus exactly once when first keys are created at the same instant', async () => {
    const { token, userId } = await signUp(server.api);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => server.api.post('/api/v1/keys', { token, json: {} })),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(results.map((r) => r.body.bonus_credits_granted).sort()).toEqual([0, 0, 0, 0, 0, 0, 0, 10]);
    const credits = await server.api.get('/api/v1/credits', { token: results[0]!.body.key });
    expect(credits.body.credits).toBe(10);
    const bonusRows = await server.services.db
      .selectFrom('credit_ledger')
      .selectAll()
      .where('account_id', '=', userId)
      .execute();
    expect(bonusRows).toHaveLength(1);
    expect(bonusRows[0]).toMatchObject({ delta: 10, reason: 'signup_bonus', balance_after: 10 });
    expect(await ledgerSum(server.services.db, userId)).toBe(10);
  });

  it('rejects a revoked key on every server process sharing the database', async () => {
    const other = await startTestServer(dialect, { database: { url: server.databaseUrl, drop: async () => {} } });
    try {
      const { token, key, keyId } = await signUpWithKey(server.api);
      expect((await other.api.get('/api/v1/credits', { token: key })).status).toBe(200);
      await server.api.delete(`/api/v1/keys/${keyId}`, { token });
      expect((await other.api.get('/api/v1/credits', { token: key })).status).toBe(401);
    } finally {
      await other.close();
    }
  });
});
