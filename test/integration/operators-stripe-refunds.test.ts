import { afterAll, beforeAll, expect, it } from 'vitest';
import { signUp, uniqueEmail } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { FakeStripe } from '../helpers/fake-stripe.js';
import { confirmEmailOf } from '../fixtures/mail.js';
import { creditBooks, operatorToken, purchasesOf } from '../helpers/operators.js';
import { useTestServer } from '../helpers/server.js';

const OPERATOR = uniqueEmail('operator');

describeEachDatabase('Operators refund purchases through Stripe (a local Stripe-protocol server)', (dialect) => {
  const stripe = new FakeStripe();
  beforeAll(async () => {
    await stripe.start();
  });
  const server = useTestServer(dialect, () => ({ env: { ...stripe.env(), OPERATOR_EMAILS: OPERATOR } }));
  afterAll(async () => {
    await stripe.stop();
  });

  /** A customer who bought `credits` on Stripe's page and came back to the return page. */
  async function customerWithPurchase(credits: number) {
    const customer = await signUp(server.api);
    await confirmEmailOf(server, customer.token);
    const checkout = await server.api.post('/api/v1/billing/checkout', { token: customer.token, json: { credits } });
    const session = stripe.payCheckout(checkout.body.session_id);
    const returned = await server.api.get(`/api/v1/billing/checkout/${session.id}`, { token: customer.token });
    expect(returned.body.status).toBe('complete');
    const [purchase] = await purchasesOf(server, customer.userId);
    return { ...customer, purchase: purchase!, paymentIntent: session.payment_intent as string };
  }

  it('pays the purchase back with refunds.create and takes its credits back, once', async () => {
    const token = await operatorToken(server, OPERATOR);
    const customer = await customerWithPurchase(15);
    expect(await creditBooks(server, customer.userId)).toEqual({ credits: 15, ledger: 15 });

    const refund = await server.api.post(`/api/v1/admin/purchases/${customer.purchase}/refund`, {
      token,
      json: { reason: 'double charge' },
    });
    expect(refund.status).toBe(200);
    expect(refund.body).toEqual({ refunded_cents: 1_500, credits_deducted: 15, credits_short: 0 });
    expect(await creditBooks(server, customer.userId)).toEqual({ credits: 0, ledger: 0 });
    const refunds = stripe.requests.filter((r) => r.method === 'POST' && r.path === '/v1/refunds');
    expect(refunds).toHaveLength(1);
    expect(refunds[0]!.params.get('payment_intent')).toBe(customer.paymentIntent);
    expect(refunds[0]!.params.get('amount')).toBe('1500');
    expect(refunds[0]!.idempotencyKey).toBe(`refund-${customer.purchase}`);
    expect(stripe.paymentIntents.get(customer.paymentIntent)!.amount_refunded).toBe(1_500);

    const again = await server.api.post(`/api/v1/admin/purchases/${customer.purchase}/refund`, {
      token,
      json: { reason: 'double charge' },
    });
    expect(again.status).toBe(409);
    expect(stripe.requests.filter((r) => r.path === '/v1/refunds')).toHaveLength(1);
    const log = await server.api.get('/api/v1/audit-log?action=operator.purchase_refunded', { token: customer.token });
    expect(log.body.entries).toHaveLength(1);
    expect(log.body.entries[0].details).toMatchObject({ refunded_cents: 1_500, reason: 'double charge' });
  });

  it('changes nothing when Stripe refuses the refund (the payment was refunded on Stripe already)', async () => {
    const token = await operatorToken(server, OPERATOR);
    const customer = await customerWithPurchase(12);
    stripe.paymentIntents.get(customer.paymentIntent)!.amount_refunded = 1_200;
    const refused = await server.api.post(`/api/v1/admin/purchases/${customer.purchase}/refund`, {
      token,
      json: { reason: 'customer asked' },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/^Stripe refused the refund: /);
    expect(await creditBooks(server, customer.userId)).toEqual({ credits: 12, ledger: 12 });
    const log = await server.api.get('/api/v1/audit-log?action=operator.purchase_refunded', { token: customer.token });
    expect(log.body.entries).toHaveLength(0);
  });
});
