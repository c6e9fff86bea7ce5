import { afterAll, beforeAll, expect, it } from 'vitest';
import { signUpWithKey, uniqueEmail } from '../fixtures/api-client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { operatorToken } from '../helpers/operators.js';
import { startTestServer } from '../helpers/server.js';

const OPERATOR = uniqueEmail('operator');

describeEachDatabase('Suspension across two app nodes on one database', (dialect) => {
  let database: TestDatabase;
  let nodes: Array<Awaited<ReturnType<typeof startTestServer>>> = [];
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const env = { OPERATOR_EMAILS: OPERATOR };
    nodes = [await startTestServer(dialect, { database, env }), await startTestServer(dialect, { database, env })];
  });
  afterAll(async () => {
    for (const node of nodes) await node.close();
    await database?.drop();
  });

  it('refuses the account’s key and session on both nodes from the next request, and restores both', async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const token = await operatorToken(a, OPERATOR);
    const customer = await signUpWithKey(a.api);
    for (const node of [a, b])
      expect((await node.api.get('/api/v1/credits', { token: customer.key })).status).toBe(200);

    const suspended = await a.api.post(`/api/v1/admin/accounts/${customer.userId}/suspend`, {
      token,
      json: { reason: 'leaked key' },
    });
    expect(suspended.body).toEqual({ status: 'suspended' });
    for (const node of [b, a]) {
      for (const refused of [
        await node.api.get('/api/v1/credits', { token: customer.key }),
        await node.api.get('/api/v1/keys', { token: customer.token }),
      ]) {
        expect(refused.status).toBe(403);
        expect(refused.body.code).toBe('account_suspended');
      }
    }
    await b.api.post(`/api/v1/admin/accounts/${customer.userId}/unsuspend`, { token, json: { reason: 'rotated' } });
    for (const node of [a, b]) {
      expect((await node.api.get('/api/v1/credits', { token: customer.key })).status).toBe(200);
      expect((await node.api.get('/api/v1/keys', { token: customer.token })).status).toBe(200);
    }
  }, 60_000);
});
