import { expect, it } from 'vitest';
import { signUp, signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { useTestServer } from '../helpers/server.js';

describeEachDatabase('Billing overview', (dialect) => {
  const server = useTestServer(dialect);

  it('shows a new account its balance, no card and auto top-up off', async () => {
    const { token } = await signUpWithKey(server.api);
    const response = await server.api.get('/api/v1/billing', { token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      credits: 10,
      has_payment_method: false,
      total_purchased: 0,
      total_used: 0,
      auto_topup: {
        enabled: false,
        amount: expect.any(Number),
        threshold: expect.any(Number),
        monthly_limit: null,
        paused_until: null,
        last_failure_reason: null,
      },
      payment_method: null,
    });
  });

  it('asks for an identity token: an API key or nothing is 401', async () => {
    const { key } = await signUpWithKey(server.api);
    for (const token of [key, undefined]) {
      const response = await server.api.get('/api/v1/billing', { token });
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('authentication_required');
    }
  });

  it('is reachable from the dashboard session cookie too', async () => {
    const { token } = await signUp(server.api);
    const response = await server.api.get('/api/v1/billing', { headers: { cookie: `roomstage_session=${token}` } });
    expect(response.status).toBe(200);
    expect(response.body.credits).toBe(0);
  });
});
