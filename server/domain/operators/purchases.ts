import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { AppError } from '../../errors.js';
import { recordAudit } from '../audit/audit.js';
import { CENTS_PER_CREDIT, type PaymentGateway } from '../billing/gateway.js';
import { changeCredits } from '../credits/ledger.js';
import { lockAccount } from '../accounts/accounts.js';
import type { OperatorChange } from '../audit/audit.js';

type Executor = Kysely<Database>;

export interface RefundOutcome {
  refunded_cents: number;
  credits_deducted: number;
  /** Credits of the purchase already spent: refunded in money but not taken back (the balance never goes below 0). */
  credits_short: number;
}

async function alreadyRefunded(db: Executor, transactionId: string): Promise<boolean> {
  const entry = await db
    .selectFrom('audit_log')
    .select('id')
    .where('action', '=', 'operator.purchase_refunded')
    .where('target', '=', transactionId)
    .executeTakeFirst();
  return entry !== undefined;
}

/**
 * Refunds a credit purchase (a `purchase` or `auto_topup` ledger row) through the gateway, then takes its credits
 * back as an `adjustment`, as many as the balance holds. The gateway call carries an idempotency key of the purchase,
 * so a retry after a crash between the two never pays back twice; the audit entry marks the purchase refunded.
 */
export async function refundPurchase(
  db: Executor,
  gateway: PaymentGateway,
  input: OperatorChange & { transactionId: string },
): Promise<RefundOutcome> {
  const purchase = await db
    .selectFrom('credit_ledger')
    .selectAll()
    .where('public_id', '=', input.transactionId)
    .executeTakeFirst();
  if (!purchase || (purchase.reason !== 'purchase' && purchase.reason !== 'auto_topup') || !purchase.reference)
    throw new AppError('not_found', `No credit purchase ${input.transactionId}.`);
  if (await alreadyRefunded(db, input.transactionId))
    throw new AppError('conflict', `Purchase ${input.transactionId} was refunded already.`);
  const refundedCents = purchase.delta * CENTS_PER_CREDIT;
  const { refundId } = await gateway.refundPayment({
    paymentReference: purchase.reference,
    amountCents: refundedCents,
    idempotencyKey: `refund-${purchase.public_id}`,
  });
  return inTransaction(db, async (trx) => {
    const account = await lockAccount(trx, purchase.account_id);
    if (await alreadyRefunded(trx, input.transactionId))
      throw new AppError('conflict', `Purchase ${input.transactionId} was refunded already.`);
    const deducted = Math.min(purchase.delta, account.credits);
    if (deducted > 0) {
      const change = await changeCredits(trx, {
        accountId: purchase.account_id,
        delta: -deducted,
        reason: 'adjustment',
        reference: purchase.public_id,
        now: input.now,
      });
      if (!change.ok) throw new Error('the locked balance changed under a refund');
    }
    const outcome = {
      refunded_cents: refundedCents,
      credits_deducted: deducted,
      credits_short: purchase.delta - deducted,
    };
    await recordAudit(trx, {
      accountId: purchase.account_id,
      action: 'operator.purchase_refunded',
      origin: input.origin,
      target: purchase.public_id,
      details: { ...outcome, refund_id: refundId, reason: input.reason },
      now: input.now,
    });
    return outcome;
  });
}
