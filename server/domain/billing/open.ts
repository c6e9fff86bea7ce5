import type { Config } from '../../env.js';
import type { PaymentGateway } from './gateway.js';
import { createSimulatedGateway } from './simulated-gateway.js';
import { createStripeClient, createStripeGateway } from './stripe-gateway.js';

/** Stripe when STRIPE_SECRET_KEY is set; the built-in simulated gateway otherwise. */
export function openPaymentGateway(config: Config): PaymentGateway {
  const { secretKey, apiUrl } = config.stripe;
  if (!secretKey) return createSimulatedGateway(config.publicBaseUrl);
  return createStripeGateway(createStripeClient({ secretKey, apiUrl }));
}
