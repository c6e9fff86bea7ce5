import { createTRPCClient, httpLink } from '@trpc/client';
import { expect, it } from 'vitest';
import type { AppRouter } from '../../server/root.js';
import { signUp } from '../fixtures/api-client.js';
import { describeOnSqlite } from '../helpers/each-database.js';
import { confirmEmailOf } from '../fixtures/mail.js';
import { useTestServer } from '../helpers/server.js';

// JSON carries numbers as numbers: text, booleans and nested arrays that merely convert to one are refused.
const NOT_INTEGERS: unknown[] = ['0x10', '1e3', '16', true, [[7]], [20], '', null, 12.5];

/** Why MySQL adds nothing here (docs/contributors/tests.md, which files run on both databases). */
const SQLITE_ONLY = 'input validation refuses these before any query';

describeOnSqlite('Money fields take JSON integers only', SQLITE_ONLY, (dialect) => {
  const server = useTestServer(dialect);

  it.each(NOT_INTEGERS.map((value) => [JSON.stringify(value), value]))(
    'POST /billing/checkout refuses credits %s',
    async (_, credits) => {
      const { token } = await signUp(server.api);
      const response = await server.api.post('/api/v1/billing/checkout', { token, json: { credits } });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        code: 'invalid_request',
        details: [{ path: 'credits', message: expect.any(String) }],
      });
    },
  );

  it('PUT /settings/auto-topup refuses amount [20], threshold "5" and monthly_limit true, and saves nothing', async () => {
    const { token } = await signUp(server.api);
    const before = (await server.api.get('/api/v1/settings/auto-topup', { token })).body;
    for (const body of [
      { enabled: false, amount: [20], threshold: 5 },
      { enabled: false, amount: 20, threshold: '5' },
      { enabled: false, amount: 20, threshold: 5, monthly_limit: true },
      { enabled: 'false', amount: 20, threshold: 5 },
    ]) {
      const response = await server.api.put('/api/v1/settings/auto-topup', { token, json: body });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('invalid_request');
    }
    expect((await server.api.get('/api/v1/settings/auto-topup', { token })).body).toEqual(before);
  });

  it('stays strict over tRPC too, even after the REST bridge has served the same procedure', async () => {
    const { token } = await signUp(server.api);
    await confirmEmailOf(server, token);
    await server.api.post('/api/v1/billing/checkout', { token, json: { credits: 5 } });
    const client = createTRPCClient<AppRouter>({
      links: [httpLink({ url: `${server.url}/trpc`, headers: { authorization: `Bearer ${token}` } })],
    });
    await expect(client.billing.checkout.mutate({ credits: '0x10' as unknown as number })).rejects.toThrow();
    const fine = await client.billing.checkout.mutate({ credits: 16 });
    expect(fine.checkout_url).toEqual(expect.any(String));
  });

  it('still reads numbers from path parameters and query strings, which are text', async () => {
    const { token } = await signUp(server.api);
    expect((await server.api.get('/api/v1/billing/transactions?limit=2', { token })).status).toBe(200);
    expect((await server.api.post('/api/v1/keys/999999/revoke', { token })).status).toBe(404);
  });
});
