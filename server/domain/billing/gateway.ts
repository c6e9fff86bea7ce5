import type { GatewayName } from '../../../db/schema.js';

/** $1 per credit. */
export const CENTS_PER_CREDIT = 100;

/** What Roomstage keeps of a saved card. */
export interface SavedCard {
  paymentMethodId: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  simulated: boolean;
}

export interface CheckoutRequest {
  accountId: string;
  email: string;
  /** The account's Customer at the gateway, if it has one already. */
  customerId: string | null;
  credits: number;
  /** Set for a purchase of advertising funds (then `credits` is 0): this many US cents, no card saved. */
  adFundsCents?: number;
  /** Where the customer lands after paying (`{CHECKOUT_SESSION_ID}` is filled in by Stripe) and after cancelling. */
  successUrl: string;
  cancelUrl: string;
}

export interface CreatedCheckout {
  sessionId: string;
  url: string;
  customerId: string | null;
}

/** The gateway's view of a Checkout Session, fetched by the return page. */
export interface CheckoutState {
  status: 'open' | 'complete' | 'expired';
  paid: boolean;
  customerId: string | null;
  card: SavedCard | null;
}

export type OffSessionFailureReason = 'card_declined' | 'authentication_required' | 'processing_error';

export type OffSessionCharge =
  | { ok: true; paymentId: string }
  | { ok: false; reason: OffSessionFailureReason; message: string };

export interface OffSessionRequest {
  customerId: string | null;
  paymentMethodId: string;
  credits: number;
  accountId: string;
  /** Derived from the top-up attempt's id: a retried call never charges twice. */
  idempotencyKey: string;
}

export interface RefundRequest {
  /** What the purchase's ledger row references: a Checkout Session (`cs_…`) or a PaymentIntent (`pi_…`). */
  paymentReference: string;
  amountCents: number;
  /** Derived from the purchase: refunding it twice never pays back twice. */
  idempotencyKey: string;
}

/**
 * The one interface payments go through: Stripe when STRIPE_SECRET_KEY is set, the built-in simulated gateway
 * otherwise. Card problems come back as a reason, never as an exception.
 */
export interface PaymentGateway {
  readonly name: GatewayName;
  createCheckout(request: CheckoutRequest): Promise<CreatedCheckout>;
  /** null: the gateway keeps no state of its own (simulated); the database row is the truth. */
  fetchCheckout(sessionId: string): Promise<CheckoutState | null>;
  fetchCard(paymentMethodId: string): Promise<SavedCard | null>;
  chargeOffSession(request: OffSessionRequest): Promise<OffSessionCharge>;
  detachPaymentMethod(paymentMethodId: string): Promise<void>;
  /** Pays a purchase back to the card; throws when the gateway refuses. */
  refundPayment(request: RefundRequest): Promise<{ refundId: string }>;
}
