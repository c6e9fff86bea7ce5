import { expect, it } from 'vitest';
import { signUp, signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { expectBooksAgree, readBooks } from '../helpers/holds.js';
import { useTestServer } from '../helpers/server.js';
import { confirmEmailOf } from '../fixtures/mail.js';

/** The checkout URL names PUBLIC_BASE_URL; tests open its path on the server they started. */
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
};

describeEachDatabase('Billing with the simulated gateway (no Stripe key)', (dialect) => {
  const server = useTestServer(dialect);

  async function buy(token: string, credits: number, card?: string) {
    await confirmEmailOf(server, token);
    const checkout = await server.api.post('/api/v1/billing/checkout', { token, json: { credits } });
    expect(checkout.status).toBe(200);
    const page = await server.api.get(pathOf(checkout.body.checkout_url) + (card ? `?card=${card}` : ''));
    return { checkout, page };
  }

  it('buys credits by opening the checkout URL, which says it is simulated and saves a simulated card', async () => {
    const { token, userId } = await signUpWithKey(server.api);
    const { checkout, page } = await buy(token, 25);
    expect(checkout.body).toEqual({
      checkout_url: expect.stringContaining('/billing/simulated-checkout/'),
      session_id: expect.stringMatching(/^cs_sim_/),
    });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/simulated/i);
    expect(page.text).toContain('25 credits added');

    const billing = await server.api.get('/api/v1/billing', { token });
    expect(billing.body).toMatchObject({
      credits: 35,
      total_purchased: 25,
      has_payment_method: true,
      payment_method: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: expect.any(Number), simulated: true },
    });
    const status = await server.api.get(`/api/v1/billing/checkout/${checkout.body.session_id}`, { token });
    expect(status.body).toEqual({
      session_id: checkout.body.session_id,
      status: 'complete',
      credits: 25,
      purpose: 'credits',
      amount_cents: 0,
    });
    expectBooksAgree(await readBooks(server.services.db, userId));
  });

  it('adds nothing when the simulated checkout page is opened again', async () => {
    const { token } = await signUp(server.api);
    const { checkout } = await buy(token, 7);
    await server.api.get(pathOf(checkout.body.checkout_url));
    await server.api.get(pathOf(checkout.body.checkout_url));
    const billing = await server.api.get('/api/v1/billing', { token });
    expect(billing.body.credits).toBe(7);
    expect(billing.body.total_purchased).toBe(7);
  });

  it('shows an open session as open until its page is opened', async () => {
    const { token } = await signUp(server.api);
    await confirmEmailOf(server, token);
    const checkout = await server.api.post('/api/v1/billing/checkout', { token, json: { credits: 3 } });
    const status = await server.api.get(`/api/v1/billing/checkout/${checkout.body.session_id}`, { token });
    expect(status.body).toEqual({
      session_id: checkout.body.session_id,
      status: 'open',
      credits: 3,
      purpose: 'credits',
      amount_cents: 0,
    });
    expect((await server.api.get('/api/v1/billing', { token })).body.credits).toBe(0);
  });

  it('never shows another account’s checkout session: 404', async () => {
    const owner = await signUp(server.api);
    const other = await signUp(server.api);
    await confirmEmailOf(server, owner.token);
    const checkout = await server.api.post('/api/v1/billing/checkout', { token: owner.token, json: { credits: 3 } });
    const response = await server.api.get(`/api/v1/billing/checkout/${checkout.body.session_id}`, {
      token: other.token,
    });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('not_found');
  });

  it('answers 404 for an unknown simulated checkout page', async () => {
    const response = await server.api.get('/billing/simulated-checkout/cs_sim_nothing');
    expect(response.status).toBe(404);
  });

  it('enables auto top-up only with a card on file (409 payment_method_required) and removing the card switches it off', async () => {
    const { token } = await signUp(server.api);
    const refused = await server.api.put('/api/v1/settings/auto-topup', {
      token,
      json: { enabled: true, amount: 20, threshold: 5 },
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'payment_method_required', error: 'payment method required' });
    expect((await server.api.get('/api/v1/settings/auto-topup', { token })).body).toMatchObject({
      enabled: false,
      has_payment_method: false,
    });

    await buy(token, 10);
    const saved = await server.api.put('/api/v1/settings/auto-topup', {
      token,
      json: { enabled: true, amount: 20, threshold: 5, monthly_limit: 100 },
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({
      enabled: true,
      amount: 20,
      threshold: 5,
      monthly_limit: 100,
      paused_until: null,
      last_failure_reason: null,
      has_payment_method: true,
    });

    const removed = await server.api.delete('/api/v1/billing/payment-method', { token });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ has_payment_method: false });
    const billing = await server.api.get('/api/v1/billing', { token });
    expect(billing.body).toMatchObject({
      has_payment_method: false,
      payment_method: null,
      auto_topup: { enabled: false, amount: 20, threshold: 5, monthly_limit: 100 },
    });
  });

  it('refuses bad billing and auto top-up bodies with 400 invalid_request and details, changing nothing', async () => {
    const { token } = await signUp(server.api);
    await buy(token, 10);
    const before = await server.api.get('/api/v1/billing', { token });
    const sessionCount = async () =>
      (await server.services.db.selectFrom('checkout_sessions').select('id').execute()).length;
    const sessionsBefore = await sessionCount();
    const badCheckouts = [
      {},
      { credits: 0 },
      { credits: 10_001 },
      { credits: 1.5 },
      { credits: 'five' },
      { credits: null },
    ];
    for (const json of badCheckouts) {
      const response = await server.api.post('/api/v1/billing/checkout', { token, json });
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(response.body).toMatchObject({
        code: 'invalid_request',
        error: 'invalid request',
        details: expect.any(Array),
      });
    }
    const badSettings = [
      {},
      { enabled: true, amount: 9, threshold: 5 },
      { enabled: true, amount: 10_001, threshold: 5 },
      { enabled: true, amount: 20, threshold: -1 },
      { enabled: true, amount: 20, threshold: 100_001 },
      { enabled: 'true', amount: 20, threshold: 5 },
      { enabled: true, amount: 20, threshold: 5, monthly_limit: 0 },
      { enabled: true, amount: 20, threshold: 5, monthly_limit: 'lots' },
    ];
    for (const json of badSettings) {
      const response = await server.api.put('/api/v1/settings/auto-topup', { token, json });
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(response.body).toMatchObject({ code: 'invalid_request', details: expect.any(Array) });
    }
    expect((await server.api.get('/api/v1/billing', { token })).body).toEqual(before.body);
    expect(await sessionCount()).toBe(sessionsBefore);
  });

  it('asks for an identity token on every billing endpoint', async () => {
    const { key } = await signUpWithKey(server.api);
    const calls = [
      server.api.post('/api/v1/billing/checkout', { token: key, json: { credits: 5 } }),
      server.api.get('/api/v1/billing/checkout/cs_sim_x', { token: key }),
      server.api.delete('/api/v1/billing/payment-method', { token: key }),
      server.api.get('/api/v1/settings/auto-topup'),
      server.api.put('/api/v1/settings/auto-topup', { json: { enabled: false, amount: 20, threshold: 5 } }),
    ];
    for (const response of await Promise.all(calls)) {
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('authentication_required');
    }
  });

  it('refuses Stripe webhooks when Stripe is not configured, changing nothing', async () => {
    const response = await server.api.post('/api/stripe/webhook', {
      json: { id: 'evt_1', type: 'checkout.session.completed' },
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_request');
    expect(await server.services.db.selectFrom('stripe_events').select('id').execute()).toEqual([]);
  });
});
