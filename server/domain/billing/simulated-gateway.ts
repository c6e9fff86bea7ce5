import { AppError } from '../../errors.js';
import { ID_PREFIXES, newId, randomBase62 } from '../../ids.js';
import type { PaymentGateway, SavedCard } from './gateway.js';

/** A simulated card id says how the card behaves: `pm_sim_declines_…` declines every off-session charge. */
const DECLINING_MARK = 'declines_';

export type SimulatedCardKind = 'succeeds' | 'declines_off_session';

export function simulatedCard(kind: SimulatedCardKind): SavedCard {
  const declines = kind === 'declines_off_session';
  return {
    paymentMethodId: `${ID_PREFIXES.simulatedCard}_${declines ? DECLINING_MARK : ''}${randomBase62(22)}`,
    brand: 'visa',
    // Stripe's test cards: 4242 4242 4242 4242 succeeds, 4000 0000 0000 0341 declines off-session.
    last4: declines ? '0341' : '4242',
    expMonth: 12,
    expYear: new Date().getUTCFullYear() + 5,
    simulated: true,
  };
}

/**
 * Payments without Stripe (no STRIPE_SECRET_KEY): the checkout URL is a page on this server that completes the
 * purchase when opened (server/http/simulated-checkout.ts); off-session charges succeed unless the card declines.
 */
export function createSimulatedGateway(publicBaseUrl: string): PaymentGateway {
  return {
    name: 'simulated',
    async createCheckout() {
      const sessionId = newId('simulatedCheckout');
      return { sessionId, url: `${publicBaseUrl}/billing/simulated-checkout/${sessionId}`, customerId: null };
    },
    async fetchCheckout() {
      return null;
    },
    async fetchCard() {
      return null;
    },
    async chargeOffSession(request) {
      if (request.paymentMethodId.includes(DECLINING_MARK)) {
        return { ok: false, reason: 'card_declined', message: 'The simulated card declines off-session charges.' };
      }
      return { ok: true, paymentId: newId('simulatedPayment') };
    },
    async detachPaymentMethod() {},
    async refundPayment(request) {
      // Only what this gateway took can be paid back: a Stripe payment recorded before a switch to simulated cannot.
      const own = [ID_PREFIXES.simulatedCheckout, ID_PREFIXES.simulatedPayment];
      if (!own.some((prefix) => request.paymentReference.startsWith(`${prefix}_`)))
        throw new AppError('conflict', `Payment ${request.paymentReference} was not made through simulated payments.`);
      return { refundId: newId('simulatedRefund') };
    },
  };
}
