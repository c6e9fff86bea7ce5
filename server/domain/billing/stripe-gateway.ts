import Stripe from 'stripe';
import { AppError } from '../../errors.js';
import {
  CENTS_PER_CREDIT,
  type CheckoutState,
  type OffSessionCharge,
  type OffSessionFailureReason,
  type PaymentGateway,
  type SavedCard,
} from './gateway.js';

export interface StripeSettings {
  secretKey: string;
  /** STRIPE_API_URL: another base URL for the API (tests run a local Stripe-protocol server). */
  apiUrl?: string;
}

export function createStripeClient(settings: StripeSettings): Stripe {
  const options: ConstructorParameters<typeof Stripe>[1] = {
    maxNetworkRetries: 0,
    timeout: 30_000,
    appInfo: { name: 'Roomstage' },
  };
  if (settings.apiUrl) {
    const url = new URL(settings.apiUrl);
    const protocol = url.protocol === 'http:' ? 'http' : 'https';
    Object.assign(options, {
      host: url.hostname,
      port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443,
      protocol,
    });
  }
  return new Stripe(settings.secretKey, options);
}

/** The card a Stripe payment method carries, as the account's saved card; null for a method that is not a card. */
export function cardOf(method: Stripe.PaymentMethod): SavedCard | null {
  if (!method.card) return null;
  return {
    paymentMethodId: method.id,
    brand: method.card.brand,
    last4: method.card.last4,
    expMonth: method.card.exp_month,
    expYear: method.card.exp_year,
    simulated: false,
  };
}

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value == null ? null : typeof value === 'string' ? value : value.id;

/** Stripe's card error codes → the auto top-up failure reasons; anything else is a processing error. */
function failureReason(error: unknown): OffSessionFailureReason {
  if (error instanceof Stripe.errors.StripeCardError) {
    return error.code === 'authentication_required' ? 'authentication_required' : 'card_declined';
  }
  if (error instanceof Stripe.errors.StripeError && error.code === 'authentication_required')
    return 'authentication_required';
  return 'processing_error';
}

/** Stripe Checkout and off-session PaymentIntents through the official SDK; one Customer per account. */
export function createStripeGateway(stripe: Stripe): PaymentGateway {
  async function fetchCard(paymentMethodId: string): Promise<SavedCard | null> {
    return cardOf(await stripe.paymentMethods.retrieve(paymentMethodId));
  }

  return {
    name: 'stripe',
    async createCheckout(request) {
      // The idempotency key makes two first checkouts at once share one Customer.
      const customerId =
        request.customerId ??
        (
          await stripe.customers.create(
            { email: request.email, metadata: { account_id: request.accountId } },
            { idempotencyKey: `customer-${request.accountId}` },
          )
        ).id;
      const adFunds = request.adFundsCents !== undefined;
      const metadata: Record<string, string> = adFunds
        ? { account_id: request.accountId, purpose: 'ad_funds', amount_cents: String(request.adFundsCents) }
        : { account_id: request.accountId, credits: String(request.credits) };
      const session = await stripe.checkout.sessions.create({
        mode: 'payment',
        customer: customerId,
        client_reference_id: request.accountId,
        line_items: [
          adFunds
            ? {
                quantity: 1,
                price_data: {
                  currency: 'usd',
                  unit_amount: request.adFundsCents,
                  product_data: { name: 'Roomstage advertising funds' },
                },
              }
            : {
                quantity: request.credits,
                price_data: {
                  currency: 'usd',
                  unit_amount: CENTS_PER_CREDIT,
                  product_data: { name: 'Roomstage credit' },
                },
              },
        ],
        // Only credit purchases save the card: it is what auto top-up charges.
        payment_intent_data: adFunds ? { metadata } : { setup_future_usage: 'off_session', metadata },
        metadata,
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
      });
      if (!session.url) throw new Error('Stripe returned a Checkout Session without a url');
      return { sessionId: session.id, url: session.url, customerId };
    },

    async fetchCheckout(sessionId): Promise<CheckoutState> {
      const session = await stripe.checkout.sessions.retrieve(sessionId);
      const paid = session.status === 'complete' && session.payment_status === 'paid';
      let card: SavedCard | null = null;
      const paymentIntentId = idOf(session.payment_intent);
      if (paid && paymentIntentId) {
        const intent = await stripe.paymentIntents.retrieve(paymentIntentId);
        const methodId = idOf(intent.payment_method);
        if (methodId) card = await fetchCard(methodId);
      }
      const status: CheckoutState['status'] =
        session.status === 'complete' ? 'complete' : session.status === 'expired' ? 'expired' : 'open';
      return { status, paid, customerId: idOf(session.customer), card };
    },

    fetchCard,

    async chargeOffSession(request): Promise<OffSessionCharge> {
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount: request.credits * CENTS_PER_CREDIT,
            currency: 'usd',
            ...(request.customerId ? { customer: request.customerId } : {}),
            payment_method: request.paymentMethodId,
            off_session: true,
            confirm: true,
            metadata: { account_id: request.accountId, credits: String(request.credits), kind: 'auto_topup' },
          },
          { idempotencyKey: request.idempotencyKey },
        );
        if (intent.status === 'succeeded') return { ok: true, paymentId: intent.id };
        if (intent.status === 'requires_action')
          return {
            ok: false,
            reason: 'authentication_required',
            message: 'The card needs the customer to authenticate.',
          };
        return { ok: false, reason: 'card_declined', message: `The payment ended as ${intent.status}.` };
      } catch (error) {
        return {
          ok: false,
          reason: failureReason(error),
          message: error instanceof Error ? error.message : String(error),
        };
      }
    },

    async detachPaymentMethod(paymentMethodId) {
      await stripe.paymentMethods.detach(paymentMethodId);
    },

    async refundPayment(request) {
      // A Checkout purchase is referenced by its session; the money moved in the session's PaymentIntent.
      const paymentIntent = request.paymentReference.startsWith('cs_')
        ? idOf((await stripe.checkout.sessions.retrieve(request.paymentReference)).payment_intent)
        : request.paymentReference;
      if (!paymentIntent) throw new Error(`Checkout Session ${request.paymentReference} has no payment to refund`);
      try {
        const refund = await stripe.refunds.create(
          { payment_intent: paymentIntent, amount: request.amountCents },
          { idempotencyKey: request.idempotencyKey },
        );
        return { refundId: refund.id };
      } catch (error) {
        // Stripe's answer about this payment (refunded already, disputed) is the operator's to read; a network fault is not.
        if (error instanceof Stripe.errors.StripeInvalidRequestError)
          throw new AppError('conflict', `Stripe refused the refund: ${error.message}`);
        throw error;
      }
    },
  };
}
