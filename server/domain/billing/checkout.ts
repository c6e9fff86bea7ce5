import type { Kysely } from 'kysely';
import type { Db } from '../../../db/client.js';
import type { CheckoutSession, CheckoutStatus, Database } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { AppError } from '../../errors.js';
import { changeAdFunds } from '../ads/funds.js';
import { centsToMillicents } from '../ads/money.js';
import { changeCredits } from '../credits/ledger.js';
import { type AuditOrigin, recordAudit, systemOrigin } from '../audit/audit.js';
import { enqueueMail } from '../mail/outbox.js';
import { purchaseReceiptMessage } from '../mail/messages.js';
import { requireVerifiedEmail } from '../security/identity.js';
import type { PaymentGateway, SavedCard } from './gateway.js';
import { saveCard } from './payment-methods.js';
import { simulatedCard, type SimulatedCardKind } from './simulated-gateway.js';

export interface BillingDeps {
  db: Db;
  gateway: PaymentGateway;
  publicBaseUrl: string;
  now: () => number;
}

export interface CheckoutView {
  session_id: string;
  status: CheckoutStatus;
  credits: number;
  purpose: CheckoutSession['purpose'];
  /** What an advertising-funds purchase adds, in cents; 0 for credits. */
  amount_cents: number;
}

function present(row: Pick<CheckoutSession, 'id' | 'status' | 'credits' | 'purpose' | 'amount_cents'>): CheckoutView {
  return {
    session_id: row.id,
    status: row.status,
    credits: row.credits,
    purpose: row.purpose,
    amount_cents: Number(row.amount_cents),
  };
}

/** Where the payer comes back to: the page of what was bought. */
export function checkoutReturnPath(purpose: CheckoutSession['purpose']): string {
  return purpose === 'ad_funds' ? '/ads/funds' : '/billing/return';
}

/**
 * POST /billing/checkout: a Checkout Session for `credits` at $1 each, saving the card for off-session use. With
 * `adFundsCents` (POST /ads/funds/checkout) it buys advertising funds instead, through the same gateway and crediting.
 */
export async function startCheckout(
  deps: BillingDeps,
  input: { accountId: string; buyerId: string; credits: number; adFundsCents?: number },
): Promise<{ checkout_url: string; session_id: string }> {
  const { db, gateway } = deps;
  // The member who buys must have a confirmed address (the account's receipts go to its contact address).
  await requireVerifiedEmail(db, input.buyerId);
  const account = await db
    .selectFrom('accounts')
    .select(['email', 'stripe_customer_id'])
    .where('id', '=', input.accountId)
    .executeTakeFirstOrThrow();
  const created = await gateway.createCheckout({
    accountId: input.accountId,
    email: account.email,
    customerId: account.stripe_customer_id,
    credits: input.credits,
    ...(input.adFundsCents !== undefined && { adFundsCents: input.adFundsCents }),
    successUrl: `${deps.publicBaseUrl}${checkoutReturnPath(input.adFundsCents === undefined ? 'credits' : 'ad_funds')}?session_id={CHECKOUT_SESSION_ID}`,
    cancelUrl: `${deps.publicBaseUrl}${input.adFundsCents === undefined ? '/billing' : '/ads/funds'}`,
  });
  if (created.customerId && created.customerId !== account.stripe_customer_id) {
    await db
      .updateTable('accounts')
      .set({ stripe_customer_id: created.customerId })
      .where('id', '=', input.accountId)
      .where('stripe_customer_id', 'is', null)
      .execute();
  }
  await db
    .insertInto('checkout_sessions')
    .values({
      id: created.sessionId,
      account_id: input.accountId,
      credits: input.credits,
      purpose: input.adFundsCents === undefined ? 'credits' : 'ad_funds',
      amount_cents: input.adFundsCents ?? 0,
      buyer_id: input.buyerId,
      gateway: gateway.name,
      checkout_url: created.url,
      status: 'open',
      credited_at: null,
      created_at: deps.now(),
    })
    .execute();
  return { checkout_url: created.url, session_id: created.sessionId };
}

/**
 * Credits a paid session exactly once, whoever calls first (the Stripe event, the return page, the simulated page):
 * one conditional update claims `credited_at`, in the transaction that adds the credits and saves the card.
 * Returns false when the session is unknown or was credited already.
 */
export async function completeCheckout(
  trx: Kysely<Database>,
  input: { sessionId: string; card: SavedCard | null; now: number },
): Promise<boolean> {
  const claimed = await trx
    .updateTable('checkout_sessions')
    .set({ status: 'complete', credited_at: input.now })
    .where('id', '=', input.sessionId)
    .where('credited_at', 'is', null)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return false;
  const session = await trx
    .selectFrom('checkout_sessions')
    .select(['account_id', 'credits', 'purpose', 'amount_cents', 'buyer_id'])
    .where('id', '=', input.sessionId)
    .executeTakeFirstOrThrow();
  if (session.purpose === 'ad_funds') {
    const entry = await changeAdFunds(trx, {
      accountId: session.account_id,
      deltaMillicents: centsToMillicents(Number(session.amount_cents)),
      reason: 'purchase',
      reference: input.sessionId,
      now: input.now,
    });
    if (input.card) await saveCard(trx, session.account_id, input.card);
    await recordAudit(trx, {
      accountId: session.account_id,
      action: 'ads.funds_purchased',
      origin: await buyerOrigin(trx, session),
      target: entry.public_id,
      details: { amount_cents: Number(session.amount_cents), checkout_session: input.sessionId },
      now: input.now,
    });
    return true;
  }
  await changeCredits(trx, {
    accountId: session.account_id,
    delta: session.credits,
    reason: 'purchase',
    reference: input.sessionId,
    now: input.now,
  });
  if (input.card) await saveCard(trx, session.account_id, input.card);
  // The receipt and the audit entry commit with the credits: a purchase never goes unrecorded or unreceipted.
  const account = await trx
    .selectFrom('accounts')
    .select(['id', 'email', 'credits'])
    .where('id', '=', session.account_id)
    .executeTakeFirstOrThrow();
  await recordAudit(trx, {
    accountId: account.id,
    action: 'billing.purchase',
    origin: systemOrigin(account),
    target: input.sessionId,
    details: { credits: session.credits, amount_cents: session.credits * 100 },
    now: input.now,
  });
  await enqueueMail(trx, {
    to: account.email,
    mail: purchaseReceiptMessage({ credits: session.credits, reference: input.sessionId, balance: account.credits }),
    now: input.now,
  });
  return true;
}

/**
 * Who bought: the member who opened the checkout (the payment may complete later, by a Stripe event with no
 * request of theirs), else the account's own user as for any change made without a request.
 */
async function buyerOrigin(
  trx: Kysely<Database>,
  session: { account_id: string; buyer_id: string | null },
): Promise<AuditOrigin> {
  const buyer =
    session.buyer_id === null
      ? undefined
      : await trx.selectFrom('users').select(['id', 'email']).where('id', '=', session.buyer_id).executeTakeFirst();
  if (buyer) return { actor: { type: 'user', id: buyer.id, label: buyer.email }, ip: null, userAgent: null };
  const account = await trx
    .selectFrom('accounts')
    .select(['id', 'email'])
    .where('id', '=', session.account_id)
    .executeTakeFirstOrThrow();
  return systemOrigin(account);
}

async function findSession(db: Db, accountId: string, sessionId: string) {
  const row = await db
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('id', '=', sessionId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!row) throw new AppError('not_found', 'No checkout session with this id belongs to your account.');
  return row;
}

/** GET /billing/checkout/{id}: the return page asks Stripe about the session and credits it if paid (once). */
export async function checkoutStatus(
  deps: BillingDeps,
  input: { accountId: string; sessionId: string },
): Promise<CheckoutView> {
  const row = await findSession(deps.db, input.accountId, input.sessionId);
  if (row.status !== 'open' || row.gateway !== deps.gateway.name) return present(row);
  const state = await deps.gateway.fetchCheckout(row.id);
  if (!state) return present(row);
  if (state.paid) {
    await inTransaction(deps.db, (trx) =>
      completeCheckout(trx, { sessionId: row.id, card: state.card, now: deps.now() }),
    );
  } else if (state.status === 'expired') {
    await deps.db
      .updateTable('checkout_sessions')
      .set({ status: 'expired' })
      .where('id', '=', row.id)
      .where('status', '=', 'open')
      .execute();
  }
  return present(await findSession(deps.db, input.accountId, input.sessionId));
}

/**
 * The simulated gateway's checkout page: opening it completes the purchase and saves a simulated card (once; opening
 * it again adds nothing). The session id is the credential, as Stripe's checkout URL is.
 */
export async function completeSimulatedCheckout(
  db: Db,
  input: { sessionId: string; card: SimulatedCardKind; now: number },
): Promise<CheckoutSession | null> {
  const row = await db
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('id', '=', input.sessionId)
    .where('gateway', '=', 'simulated')
    .executeTakeFirst();
  if (!row) return null;
  await inTransaction(db, (trx) =>
    completeCheckout(trx, { sessionId: row.id, card: simulatedCard(input.card), now: input.now }),
  );
  return (await db.selectFrom('checkout_sessions').selectAll().where('id', '=', row.id).executeTakeFirst()) ?? null;
}
