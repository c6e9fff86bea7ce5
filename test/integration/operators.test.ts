import { expect, it } from 'vitest';
import { proceduresOf } from '../../server/adapters/library-internals.js';
import { ledgerSum } from '../../server/domain/credits/ledger.js';
import { adminRouter } from '../../server/routers/admin.js';
import type { Meta } from '../../server/trpc.js';
import { signUp, signUpWithKey, uniqueEmail } from '../helpers/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { confirmEmailOf } from '../helpers/mail.js';
import { useTestServer } from '../helpers/server.js';

const OPERATOR = uniqueEmail('operator');

describeEachDatabase('Operators', (dialect) => {
  const server = useTestServer(dialect, { env: { OPERATOR_EMAILS: ` Someone@else.test, ${OPERATOR.toUpperCase()}` } });

  async function operatorToken(): Promise<string> {
    const login = await server.api.post('/api/v1/auth/login', {
      json: { email: OPERATOR, password: 'correct horse battery' },
    });
    if (login.status === 200) return login.body.token;
    const { token } = await signUp(server.api, OPERATOR);
    await confirmEmailOf(server, token);
    return token;
  }

  const books = async (accountId: string) => {
    const row = await server.services.db
      .selectFrom('accounts')
      .select('credits')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    return { credits: row.credits, ledger: await ledgerSum(server.services.db, accountId) };
  };

  it('answers every admin path with the unknown-path 404 to anyone but a verified operator', async () => {
    const stranger = await signUp(server.api);
    await confirmEmailOf(server, stranger.token);
    const unverifiedOperator = await signUp(server.api, 'someone@else.test');
    const paths = proceduresOf<Meta>(adminRouter).map(({ meta }) => meta!.openapi!);
    expect(paths.length).toBeGreaterThan(10);
    for (const { method, path } of paths) {
      const url = path.replace(/\{[^}]+\}/g, 'acc_x');
      for (const token of [undefined, stranger.token, unverifiedOperator.token]) {
        const send = method === 'GET' ? server.api.get(url, { token }) : server.api.post(url, { token, json: {} });
        const response = await send;
        expect(response.status, `${method} ${url}`).toBe(404);
        expect(response.body).toEqual({
          error: 'not found',
          code: 'not_found',
          message: 'No such endpoint. See /api/v1/openapi.json for the list of endpoints.',
        });
      }
    }
    const unknown = await server.api.post('/api/v1/admin/nothing-here', { token: stranger.token, json: {} });
    expect(unknown.body).toEqual(
      (await server.api.post('/api/v1/admin/search', { token: stranger.token, json: {} })).body,
    );
  });

  it('finds an account by e-mail, id and key prefix, and grants and deducts credits, never below zero', async () => {
    const token = await operatorToken();
    const customer = await signUpWithKey(server.api);
    const prefix = customer.key.slice(0, 12);
    for (const q of [customer.email, customer.userId, prefix, customer.key]) {
      const found = await server.api.get(`/api/v1/admin/search?q=${encodeURIComponent(q)}`, { token });
      expect(found.status).toBe(200);
      expect(found.body.accounts.map((a: { id: string }) => a.id)).toEqual([customer.userId]);
    }
    const grant = await server.api.post(`/api/v1/admin/accounts/${customer.userId}/credits`, {
      token,
      json: { delta: 25, reason: 'goodwill for an outage' },
    });
    expect(grant.status).toBe(200);
    expect(grant.body).toMatchObject({ credits: 35, transaction: { delta: 25, reason: 'adjustment' } });
    expect(await books(customer.userId)).toEqual({ credits: 35, ledger: 35 });

    const tooMuch = await server.api.post(`/api/v1/admin/accounts/${customer.userId}/credits`, {
      token,
      json: { delta: -36, reason: 'oops' },
    });
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.body.code).toBe('conflict');
    expect(await books(customer.userId)).toEqual({ credits: 35, ledger: 35 });

    const deduct = await server.api.post(`/api/v1/admin/accounts/${customer.userId}/credits`, {
      token,
      json: { delta: -35, reason: 'fraudulent bonus' },
    });
    expect(deduct.body.credits).toBe(0);
    expect(await books(customer.userId)).toEqual({ credits: 0, ledger: 0 });

    const noReason = await server.api.post(`/api/v1/admin/accounts/${customer.userId}/credits`, {
      token,
      json: { delta: 1, reason: '' },
    });
    expect(noReason.status).toBe(400);

    const log = await server.api.get('/api/v1/audit-log?action=operator.credits_adjusted', { token: customer.token });
    expect(log.body.entries).toHaveLength(2);
    expect(log.body.entries[0]).toMatchObject({
      actor: { type: 'operator', label: OPERATOR },
      details: { delta: -35, reason: 'fraudulent bonus' },
    });
  });

  it('suspends an account: its key and its session are refused at once, and work again once restored', async () => {
    const token = await operatorToken();
    const customer = await signUpWithKey(server.api);
    expect((await server.api.get('/api/v1/credits', { token: customer.key })).status).toBe(200);
    const suspend = await server.api.post(`/api/v1/admin/accounts/${customer.userId}/suspend`, {
      token,
      json: { reason: 'card testing' },
    });
    expect(suspend.body).toEqual({ status: 'suspended' });
    const byKey = await server.api.get('/api/v1/credits', { token: customer.key });
    const bySession = await server.api.get('/api/v1/me', { token: customer.token });
    for (const refused of [byKey, bySession]) {
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('account_suspended');
    }
    const found = await server.api.get(`/api/v1/admin/search?q=${encodeURIComponent(customer.email)}`, { token });
    expect(found.body.accounts[0].status).toBe('suspended');

    await server.api.post(`/api/v1/admin/accounts/${customer.userId}/unsuspend`, {
      token,
      json: { reason: 'cleared' },
    });
    expect((await server.api.get('/api/v1/credits', { token: customer.key })).status).toBe(200);
    expect((await server.api.get('/api/v1/me', { token: customer.token })).status).toBe(200);
  });

  it('reports the fleet over the days asked for', async () => {
    const token = await operatorToken();
    const fleet = await server.api.get('/api/v1/admin/fleet?days=3', { token });
    expect(fleet.status).toBe(200);
    expect(fleet.body.daily).toHaveLength(3);
    expect(fleet.body).toMatchObject({ webhook_backlog: expect.any(Number), holds_outstanding: expect.any(Number) });
  });
});
