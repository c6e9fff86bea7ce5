import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

type StripeObject = Record<string, any>;

export interface RecordedRequest {
  method: string;
  path: string;
  params: URLSearchParams;
  idempotencyKey: string | undefined;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A small local server that speaks the part of Stripe's HTTP API Roomstage uses (customers, Checkout Sessions,
 * PaymentIntents, PaymentMethods, Refunds), driven through the real `stripe` SDK via STRIPE_API_URL. Test controls pay a
 * session (as the customer would on Stripe's page) and sign events the way Stripe does.
 */
export class FakeStripe {
  readonly webhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
  readonly customers = new Map<string, StripeObject>();
  readonly sessions = new Map<string, StripeObject>();
  readonly paymentIntents = new Map<string, StripeObject>();
  readonly paymentMethods = new Map<string, StripeObject>();
  readonly refunds = new Map<string, StripeObject>();
  readonly requests: RecordedRequest[] = [];
  private readonly idempotent = new Map<string, { status: number; body: StripeObject }>();
  private server: Server | null = null;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      void this.handle(req).then(({ status, body }) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
        res.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Environment for a Roomstage server that talks to this fake. */
  env(): Record<string, string> {
    return { STRIPE_SECRET_KEY: 'sk_test_fake', STRIPE_WEBHOOK_SECRET: this.webhookSecret, STRIPE_API_URL: this.url };
  }

  /** The customer pays on Stripe's page: the session completes and its card is saved to the Customer. */
  payCheckout(sessionId: string, card: { declinesOffSession?: boolean } = {}): StripeObject {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    const method = {
      id: id('pm'),
      object: 'payment_method',
      type: 'card',
      customer: session.customer,
      card: { brand: 'visa', last4: card.declinesOffSession ? '0341' : '4242', exp_month: 8, exp_year: 2031 },
      declinesOffSession: card.declinesOffSession ?? false,
    };
    this.paymentMethods.set(method.id, method);
    const intent = {
      id: id('pi'),
      object: 'payment_intent',
      amount: session.amount_total,
      currency: 'usd',
      status: 'succeeded',
      customer: session.customer,
      payment_method: method.id,
    };
    this.paymentIntents.set(intent.id, intent);
    Object.assign(session, { status: 'complete', payment_status: 'paid', payment_intent: intent.id });
    return session;
  }

  /** An event as Stripe sends it: the body and its Stripe-Signature header. */
  signedEvent(
    type: string,
    object: StripeObject,
    eventId = id('evt'),
  ): { payload: string; signature: string; eventId: string } {
    const payload = JSON.stringify({
      id: eventId,
      object: 'event',
      type,
      api_version: '2025-01-01',
      created: Math.floor(Date.now() / 1000),
      data: { object },
    });
    return {
      payload,
      signature: Stripe.webhooks.generateTestHeaderString({ payload, secret: this.webhookSecret }),
      eventId,
    };
  }

  offSessionCharges(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents');
  }

  private async handle(req: IncomingMessage): Promise<{ status: number; body: StripeObject }> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const params = req.method === 'GET' ? url.searchParams : new URLSearchParams(await readBody(req));
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname, params, idempotencyKey });
    if (req.method === 'POST' && idempotencyKey) {
      const replay = this.idempotent.get(`${url.pathname} ${idempotencyKey}`);
      if (replay) return replay;
      const answer = this.route(req.method, url.pathname, params);
      this.idempotent.set(`${url.pathname} ${idempotencyKey}`, answer);
      return answer;
    }
    return this.route(req.method ?? 'GET', url.pathname, params);
  }

  private route(method: string, path: string, params: URLSearchParams): { status: number; body: StripeObject } {
    const ok = (body: StripeObject) => ({ status: 200, body });
    const missing = () => ({
      status: 404,
      body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such object: ${path}` } },
    });
    if (method === 'POST' && path === '/v1/customers') {
      const customer = {
        id: id('cus'),
        object: 'customer',
        email: params.get('email'),
        metadata: { account_id: params.get('metadata[account_id]') },
      };
      this.customers.set(customer.id, customer);
      return ok(customer);
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const quantity = Number(params.get('line_items[0][quantity]'));
      const unit = Number(params.get('line_items[0][price_data][unit_amount]'));
      const sessionId = id('cs_test');
      const session = {
        id: sessionId,
        object: 'checkout.session',
        mode: params.get('mode'),
        status: 'open',
        payment_status: 'unpaid',
        customer: params.get('customer'),
        client_reference_id: params.get('client_reference_id'),
        amount_total: quantity * unit,
        currency: params.get('line_items[0][price_data][currency]'),
        setup_future_usage: params.get('payment_intent_data[setup_future_usage]'),
        metadata: { account_id: params.get('metadata[account_id]'), credits: params.get('metadata[credits]') },
        payment_intent: null,
        success_url: params.get('success_url'),
        url: `https://checkout.stripe.test/c/pay/${sessionId}`,
      };
      this.sessions.set(session.id, session);
      return ok(session);
    }
    const sessionId = method === 'GET' ? path.match(/^\/v1\/checkout\/sessions\/([^/]+)$/)?.[1] : undefined;
    if (sessionId !== undefined) {
      const session = this.sessions.get(sessionId);
      return session ? ok(session) : missing();
    }
    const intentId = method === 'GET' ? path.match(/^\/v1\/payment_intents\/([^/]+)$/)?.[1] : undefined;
    if (intentId !== undefined) {
      const intent = this.paymentIntents.get(intentId);
      return intent ? ok(intent) : missing();
    }
    const paymentMethodId = method === 'GET' ? path.match(/^\/v1\/payment_methods\/([^/]+)$/)?.[1] : undefined;
    if (paymentMethodId !== undefined) {
      const paymentMethod = this.paymentMethods.get(paymentMethodId);
      return paymentMethod ? ok(paymentMethod) : missing();
    }
    const detachId = method === 'POST' ? path.match(/^\/v1\/payment_methods\/([^/]+)\/detach$/)?.[1] : undefined;
    if (detachId !== undefined) {
      const paymentMethod = this.paymentMethods.get(detachId);
      if (!paymentMethod) return missing();
      paymentMethod.customer = null;
      return ok(paymentMethod);
    }
    if (method === 'POST' && path === '/v1/payment_intents') {
      const paymentMethod = this.paymentMethods.get(params.get('payment_method') ?? '');
      const intent = {
        id: id('pi'),
        object: 'payment_intent',
        amount: Number(params.get('amount')),
        currency: params.get('currency'),
        customer: params.get('customer'),
        payment_method: params.get('payment_method'),
        off_session: params.get('off_session'),
        status: 'succeeded',
      };
      if (!paymentMethod || paymentMethod.customer !== intent.customer) return missing();
      if (paymentMethod.declinesOffSession) {
        const failed = { ...intent, status: 'requires_payment_method' };
        this.paymentIntents.set(failed.id, failed);
        return {
          status: 402,
          body: {
            error: {
              type: 'card_error',
              code: 'card_declined',
              decline_code: 'generic_decline',
              message: 'Your card was declined.',
              payment_intent: failed,
            },
          },
        };
      }
      this.paymentIntents.set(intent.id, intent);
      return ok(intent);
    }
    if (method === 'POST' && path === '/v1/refunds') {
      const intent = this.paymentIntents.get(params.get('payment_intent') ?? '');
      if (!intent) return missing();
      const refunded = intent.amount_refunded ?? 0;
      const amount = params.has('amount') ? Number(params.get('amount')) : intent.amount - refunded;
      if (intent.status !== 'succeeded' || amount < 1 || refunded + amount > intent.amount)
        return {
          status: 400,
          body: {
            error: {
              type: 'invalid_request_error',
              code: refunded >= intent.amount ? 'charge_already_refunded' : 'amount_too_large',
              message: `Refund amount ($${(amount / 100).toFixed(2)}) is greater than unrefunded amount on charge ($${((intent.amount - refunded) / 100).toFixed(2)})`,
            },
          },
        };
      intent.amount_refunded = refunded + amount;
      const refund = { id: id('re'), object: 'refund', amount, payment_intent: intent.id, status: 'succeeded' };
      this.refunds.set(refund.id, refund);
      return ok(refund);
    }
    return missing();
  }
}
