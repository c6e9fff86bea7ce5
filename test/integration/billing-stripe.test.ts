import { afterAll, beforeAll, expect, it } from 'vitest';
import { signUp, signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { FakeStripe } from '../helpers/fake-stripe.js';
import { expectBooksAgree, readBooks } from '../helpers/holds.js';
import { imageForm, roomJpeg } from '../fixtures/images.js';
import { useImagingServer } from '../helpers/staging.js';
import { confirmEmailOf } from '../fixtures/mail.js';

describeEachDatabase('Billing through the Stripe SDK (a local Stripe-protocol server)', (dialect) => {
  const stripe = new FakeStripe();
  beforeAll(async () => {
    await stripe.start();
  });
  const server = useImagingServer(dialect, () => ({ env: stripe.env() }));
  afterAll(async () => {
    await stripe.stop();
  });

  const db = () => server.services.db;
  const sendEvent = (event: { payload: string; signature: string }) =>
    server.api.post('/api/stripe/webhook', {
      body: event.payload,
      headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
    });
  const balance = async (token: string) => (await server.api.get('/api/v1/billing', { token })).body;

  async function paidCheckout(token: string, credits: number, card: { declinesOffSession?: boolean } = {}) {
    await confirmEmailOf(server, token);
    const checkout = await server.api.post('/api/v1/billing/checkout', { token, json: { credits } });
    expect(checkout.status).toBe(200);
    return {
      sessionId: checkout.body.session_id as string,
      checkout: checkout.body,
      session: stripe.payCheckout(checkout.body.session_id, card),
    };
  }

  it('creates one Customer per account and a payment-mode Checkout at $1 per credit that saves the card off-session', async () => {
    const { token, userId } = await signUp(server.api);
    await confirmEmailOf(server, token);
    const first = await server.api.post('/api/v1/billing/checkout', { token, json: { credits: 12 } });
    const second = await server.api.post('/api/v1/billing/checkout', { token, json: { credits: 3 } });
    expect(first.body).toEqual({
      checkout_url: expect.stringContaining('checkout.stripe.test'),
      session_id: expect.stringMatching(/^cs_test_/),
    });
    const session = stripe.sessions.get(first.body.session_id)!;
    expect(session).toMatchObject({
      mode: 'payment',
      amount_total: 1200,
      currency: 'usd',
      setup_future_usage: 'off_session',
      client_reference_id: userId,
    });
    expect(session.success_url).toContain('session_id={CHECKOUT_SESSION_ID}');
    expect(stripe.sessions.get(second.body.session_id)!.customer).toBe(session.customer);
    expect([...stripe.customers.values()].filter((c) => c.metadata.account_id === userId)).toHaveLength(1);
  });

  it('credits a purchase once when Stripe retries the event and the return page is opened twice', async () => {
    const { token, userId } = await signUp(server.api);
    const { sessionId, session } = await paidCheckout(token, 15);

    const returned = await server.api.get(`/api/v1/billing/checkout/${sessionId}`, { token });
    expect(returned.body).toEqual({
      session_id: sessionId,
      status: 'complete',
      credits: 15,
      purpose: 'credits',
      amount_cents: 0,
    });
    const event = stripe.signedEvent('checkout.session.completed', session);
    const deliveries = [
      await sendEvent(event),
      await sendEvent(event),
      await sendEvent(stripe.signedEvent('checkout.session.completed', session)),
    ];
    expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200]);
    await server.api.get(`/api/v1/billing/checkout/${sessionId}`, { token });

    const billing = await balance(token);
    expect(billing).toMatchObject({
      credits: 15,
      total_purchased: 15,
      has_payment_method: true,
      payment_method: { brand: 'visa', last4: '4242', exp_month: 8, exp_year: 2031, simulated: false },
    });
    const purchases = await db()
      .selectFrom('credit_ledger')
      .select(['delta', 'reference'])
      .where('account_id', '=', userId)
      .where('reason', '=', 'purchase')
      .execute();
    expect(purchases).toEqual([{ delta: 15, reference: sessionId }]);
    expectBooksAgree(await readBooks(db(), userId));
  });

  it('credits a purchase once when the event comes first and concurrent retries race the return page', async () => {
    const { token, userId } = await signUp(server.api);
    const { sessionId, session } = await paidCheckout(token, 9);
    const event = stripe.signedEvent('checkout.session.completed', session);
    const results = await Promise.all([
      sendEvent(event),
      sendEvent(event),
      server.api.get(`/api/v1/billing/checkout/${sessionId}`, { token }),
      sendEvent(event),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await balance(token)).credits).toBe(9);
    expect(await db().selectFrom('stripe_events').select('id').where('id', '=', event.eventId).execute()).toHaveLength(
      1,
    );
    expectBooksAgree(await readBooks(db(), userId));
  });

  it('answers 400 to a bad Stripe signature and changes nothing', async () => {
    const { token } = await signUp(server.api);
    const { session } = await paidCheckout(token, 20);
    const event = stripe.signedEvent('checkout.session.completed', session);
    const forged = [
      { payload: event.payload, signature: event.signature.replace(/v1=[0-9a-f]{4}/, 'v1=0000') },
      { payload: event.payload.replace('"paid"', '"paid" '), signature: event.signature },
      { payload: event.payload, signature: '' },
      { payload: event.payload, signature: `t=${Math.floor(Date.now() / 1000)},v1=${'ab'.repeat(32)}` },
    ];
    for (const attempt of forged) {
      const response = await sendEvent(attempt);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'invalid_request', error: 'invalid request' });
    }
    expect(await balance(token)).toMatchObject({ credits: 0, has_payment_method: false });
    expect(await db().selectFrom('stripe_events').select('id').where('id', '=', event.eventId).execute()).toEqual([]);
  });

  it('tops up off-session with an idempotency key from the attempt id and emits auto_topup.success', async () => {
    const user = await signUpWithKey(server.api);
    await paidCheckout(user.token, 5);
    await server.api.get(
      `/api/v1/billing/checkout/${(await db().selectFrom('checkout_sessions').select('id').where('account_id', '=', user.userId).executeTakeFirstOrThrow()).id}`,
      { token: user.token },
    );
    expect(
      (
        await server.api.put('/api/v1/settings/auto-topup', {
          token: user.token,
          json: { enabled: true, amount: 25, threshold: 15 },
        })
      ).status,
    ).toBe(200);
    const before = stripe.offSessionCharges().length;
    const staged = await server.api.post('/api/v1/stage', {
      token: user.key,
      body: imageForm([{ data: await roomJpeg(400, 300) }]),
    });
    expect(staged.status).toBe(200);
    await server.services.autoTopUp.drain();

    const charges = stripe.offSessionCharges().slice(before);
    expect(charges).toHaveLength(1);
    const attempt = await db()
      .selectFrom('topup_attempts')
      .selectAll()
      .where('account_id', '=', user.userId)
      .executeTakeFirstOrThrow();
    expect(charges[0]!.idempotencyKey).toBe(`roomstage-topup-${attempt.id}`);
    expect(charges[0]!.params.get('off_session')).toBe('true');
    expect(charges[0]!.params.get('amount')).toBe('2500');
    expect(attempt).toMatchObject({
      status: 'succeeded',
      payment_id: expect.stringMatching(/^pi_/),
      in_flight_account_id: null,
    });
    const success = await db()
      .selectFrom('webhook_events')
      .select('payload')
      .where('account_id', '=', user.userId)
      .where('event', '=', 'auto_topup.success')
      .execute();
    expect(success.map((row) => JSON.parse(row.payload).data)).toEqual([
      { amount: 25, new_balance: 14 + 25, payment_id: attempt.payment_id },
    ]);
    expectBooksAgree(await readBooks(db(), user.userId));
  });

  it('turns a Stripe card decline into auto_topup.failed card_declined, never a 500', async () => {
    const user = await signUpWithKey(server.api);
    const { sessionId } = await paidCheckout(user.token, 1, { declinesOffSession: true });
    await server.api.get(`/api/v1/billing/checkout/${sessionId}`, { token: user.token });
    await server.api.put('/api/v1/settings/auto-topup', {
      token: user.token,
      json: { enabled: true, amount: 10, threshold: 0 },
    });
    const photo = await roomJpeg(400, 300);
    expect(
      (
        await server.api.post('/api/v1/stage', {
          token: user.key,
          body: imageForm(Array.from({ length: 10 }, () => ({ data: photo }))),
        })
      ).status,
    ).toBe(200);
    const response = await server.api.post('/api/v1/stage', {
      token: user.key,
      body: imageForm([{ data: photo }, { data: photo }]),
    });
    expect(response.status).toBe(402);
    expect(response.body).toMatchObject({ code: 'insufficient_credits', credits_available: 1 });
    const failed = await db()
      .selectFrom('webhook_events')
      .select('payload')
      .where('account_id', '=', user.userId)
      .where('event', '=', 'auto_topup.failed')
      .execute();
    expect(failed.map((row) => JSON.parse(row.payload).data)).toEqual([
      { amount: 10, current_balance: 1, reason: 'card_declined' },
    ]);
  });

  it('forgets the card and switches auto top-up off when Stripe reports it detached, and removal detaches it at Stripe', async () => {
    const user = await signUp(server.api);
    const { sessionId } = await paidCheckout(user.token, 2);
    await server.api.get(`/api/v1/billing/checkout/${sessionId}`, { token: user.token });
    await server.api.put('/api/v1/settings/auto-topup', {
      token: user.token,
      json: { enabled: true, amount: 10, threshold: 1 },
    });
    const methodId = (
      await db()
        .selectFrom('accounts')
        .select('payment_method_id')
        .where('id', '=', user.userId)
        .executeTakeFirstOrThrow()
    ).payment_method_id!;
    expect(
      (
        await sendEvent(
          stripe.signedEvent('payment_method.detached', { ...stripe.paymentMethods.get(methodId), customer: null }),
        )
      ).status,
    ).toBe(200);
    expect(await balance(user.token)).toMatchObject({
      has_payment_method: false,
      payment_method: null,
      auto_topup: { enabled: false },
    });

    const other = await signUp(server.api);
    const bought = await paidCheckout(other.token, 2);
    await server.api.get(`/api/v1/billing/checkout/${bought.sessionId}`, { token: other.token });
    const otherMethod = (
      await db()
        .selectFrom('accounts')
        .select('payment_method_id')
        .where('id', '=', other.userId)
        .executeTakeFirstOrThrow()
    ).payment_method_id!;
    expect((await server.api.delete('/api/v1/billing/payment-method', { token: other.token })).body).toEqual({
      has_payment_method: false,
    });
    expect(stripe.requests.some((r) => r.path === `/v1/payment_methods/${otherMethod}/detach`)).toBe(true);
  });
});
