import type { Kysely } from 'kysely';
import type Stripe from 'stripe';
import type { Db } from '../../../db/client.js';
import { isUniqueViolation } from '../../../db/errors.js';
import type { Database } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { completeCheckout } from './checkout.js';
import type { PaymentGateway } from './gateway.js';
import { cardOf } from './stripe-gateway.js';
import { forgetCard, refreshCard } from './payment-methods.js';

export type StripeEventOutcome = 'applied' | 'duplicate' | 'ignored';

const PAID_CHECKOUT_EVENTS = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);
const CARD_UPDATE_EVENTS = new Set(['payment_method.updated', 'payment_method.automatically_updated']);

/** Stores the event id in the transaction that applies it: a redelivered event finds it and changes nothing. */
async function recordOnce(trx: Kysely<Database>, event: Stripe.Event, now: number): Promise<boolean> {
  try {
    await trx.insertInto('stripe_events').values({ id: event.id, type: event.type, received_at: now }).execute();
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

/**
 * Applies one verified Stripe event at most once: a paid Checkout Session credits its purchase (once,
 * shared with the return page) and saves the card; a detached card is forgotten; an updated card is refreshed.
 */
export async function applyStripeEvent(
  deps: { db: Db; gateway: PaymentGateway; now: () => number },
  event: Stripe.Event,
): Promise<StripeEventOutcome> {
  const { db } = deps;
  const seen = await db.selectFrom('stripe_events').select('id').where('id', '=', event.id).executeTakeFirst();
  if (seen) return 'duplicate';

  if (PAID_CHECKOUT_EVENTS.has(event.type)) {
    const session = event.data.object as Stripe.Checkout.Session;
    if (session.payment_status !== 'paid') return 'ignored';
    // The card details come from Stripe before the transaction; the crediting itself is claimed once inside it.
    const state = await deps.gateway.fetchCheckout(session.id);
    return inTransaction(db, async (trx) => {
      if (!(await recordOnce(trx, event, deps.now()))) return 'duplicate';
      await completeCheckout(trx, { sessionId: session.id, card: state?.card ?? null, now: deps.now() });
      return 'applied';
    });
  }
  if (event.type === 'payment_method.detached' || CARD_UPDATE_EVENTS.has(event.type)) {
    const method = event.data.object as Stripe.PaymentMethod;
    return inTransaction(db, async (trx) => {
      if (!(await recordOnce(trx, event, deps.now()))) return 'duplicate';
      if (event.type === 'payment_method.detached') await forgetCard(trx, { paymentMethodId: method.id });
      else {
        const card = cardOf(method);
        if (card) await refreshCard(trx, card);
      }
      return 'applied';
    });
  }
  return 'ignored';
}
