import { expect, it } from 'vitest';
import { ledgerSum } from '../../server/domain/credits/ledger.js';
import { type RequestOptions, signUp, signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { useTestServer } from '../helpers/server.js';

describeEachDatabase('Credits', (dialect) => {
  const server = useTestServer(dialect);

  it('reports the balance with the spec fields and the auto top-up settings', async () => {
    const { key } = await signUpWithKey(server.api);
    const response = await server.api.get('/api/v1/credits', { token: key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      credits: 10,
      has_payment_method: false,
      total_purchased: 0,
      total_used: 0,
      auto_topup: { enabled: false, amount: expect.any(Number), threshold: expect.any(Number) },
    });
  });

  it('keeps the cached balance equal to the sum of the ledger', async () => {
    const { userId } = await signUpWithKey(server.api);
    const balance = await server.services.db
      .selectFrom('accounts')
      .select('credits')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(await ledgerSum(server.services.db, userId)).toBe(balance.credits);
  });

  it('asks for an API key as a Bearer token when none, a bad one or an identity token is sent', async () => {
    const { token } = await signUp(server.api);
    const attempts: RequestOptions[] = [
      {},
      { token: `sk_live_${'x'.repeat(32)}` },
      { token: 'not-a-key' },
      { token },
      { headers: { authorization: 'Basic dXNlcjpwYXNz' } },
      { headers: { cookie: `roomstage_session=${token}` } },
    ];
    for (const attempt of attempts) {
      const response = await server.api.get('/api/v1/credits', attempt);
      expect(response.status, JSON.stringify(attempt)).toBe(401);
      expect(response.body).toEqual({
        error: 'authentication required',
        code: 'authentication_required',
        message: expect.stringMatching(/API key.*Bearer/),
      });
    }
  });
});
