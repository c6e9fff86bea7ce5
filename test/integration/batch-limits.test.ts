import { expect, it } from 'vitest';
import { MAX_ACTIVE_KEYS } from '../../server/domain/keys/api-keys.js';
import { signUp } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { startOfNextMinute, useTestServer } from '../helpers/server.js';

describeEachDatabase('Batches, session budgets and the key cap', (dialect) => {
  const server = useTestServer(dialect, { env: { SESSION_RATE_LIMIT_PER_MINUTE: '150' } });
  const trpc = (path: string, token: string, init: RequestInit = {}) =>
    fetch(`${server.url}/trpc/${path}?batch=1`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
    });
  const keysOf = async (token: string) =>
    (await server.api.get('/api/v1/keys', { token })).body.keys as Array<{ id: number; status: string }>;

  it('refuses a /trpc batch of more than 10 calls before running any of them', async () => {
    const { token } = await signUp(server.api);
    const eleven = Array.from({ length: 11 }, () => 'keys.create').join(',');
    const input = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [String(i), { name: `k${i}` }]));
    const refused = await trpc(eleven, token, { method: 'POST', body: JSON.stringify(input) });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/at most 10 calls/),
    });
    expect(await keysOf(token)).toEqual([]);
    const reports = await trpc(Array.from({ length: 600 }, () => 'usage.report').join(','), token);
    expect(reports.status).toBe(400);

    const ten = await trpc(Array.from({ length: 10 }, () => 'keys.list').join(','), token);
    expect(ten.status).toBe(200);
    expect(await ten.json()).toHaveLength(10);
  });

  it('counts every call of a batch against the session’s budget', async () => {
    const { token } = await signUp(server.api);
    // Just after a minute starts, so the 160 calls share one window however slowly the machine runs them.
    server.clock.advanceTo(startOfNextMinute(server.clock));
    const statuses: number[] = [];
    for (let i = 0; i < 16; i++) {
      const batch = await trpc(Array.from({ length: 10 }, () => 'keys.list').join(','), token);
      const results = (await batch.json()) as Array<{ error?: { data: { httpStatus: number } } }>;
      statuses.push(...results.map((result) => result.error?.data.httpStatus ?? 200));
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(150);
    expect(statuses.slice(150)).toEqual(Array(10).fill(429));
    const rest = await server.api.get('/api/v1/keys', { token });
    expect(rest.status).toBe(429);
    expect(rest.headers.get('retry-after')).toMatch(/^\d+$/);
    // Another session has a budget of its own.
    expect((await server.api.get('/api/v1/keys', { token: (await signUp(server.api)).token })).status).toBe(200);
  });

  it(`caps an account at ${MAX_ACTIVE_KEYS} active keys, also when creates race`, async () => {
    const { token } = await signUp(server.api);
    for (let i = 0; i < MAX_ACTIVE_KEYS - 2; i++)
      expect((await server.api.post('/api/v1/keys', { token, json: { name: `k${i}` } })).status).toBe(201);
    const racing = await Promise.all(
      Array.from({ length: 6 }, (_, i) => server.api.post('/api/v1/keys', { token, json: { name: `race${i}` } })),
    );
    expect(racing.filter((r) => r.status === 201)).toHaveLength(2);
    for (const refused of racing.filter((r) => r.status !== 201)) {
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({
        code: 'conflict',
        message: expect.stringMatching(/100 active API keys.*Revoke one/),
      });
    }
    const keys = await keysOf(token);
    expect(keys.filter((key) => key.status === 'active')).toHaveLength(MAX_ACTIVE_KEYS);
    expect((await server.api.delete(`/api/v1/keys/${keys[0]?.id}`, { token })).status).toBe(200);
    expect((await server.api.post('/api/v1/keys', { token, json: { name: 'after revoke' } })).status).toBe(201);
  });
});
