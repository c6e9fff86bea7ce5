import type { Kysely } from 'kysely';
import type { Database, Payout, PayoutStatus, Product } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { iso } from '../../clock.js';
import { AppError } from '../../errors.js';
import { recordAudit } from '../audit/audit.js';
import { enqueueMail } from '../mail/outbox.js';
import { payoutPaidMessage, payoutRejectedMessage } from '../mail/messages.js';
import { lockAccount } from '../accounts/accounts.js';
import type { OperatorChange } from './accounts.js';

type Executor = Kysely<Database>;

/** Rejects (never selected again, the owner cannot resume it) or restores an advertiser's product. */
export async function reviewProduct(
  db: Executor,
  input: OperatorChange & { productId: string; decision: 'reject' | 'restore' },
): Promise<Product> {
  return inTransaction(db, async (trx) => {
    const product = await trx
      .selectFrom('products')
      .selectAll()
      .where('id', '=', input.productId)
      .where('account_id', 'is not', null)
      .executeTakeFirst();
    if (!product?.account_id) throw new AppError('not_found', `No advertiser product ${input.productId}.`);
    const status = input.decision === 'reject' ? 'rejected' : 'active';
    if (input.decision === 'restore' && product.status !== 'rejected')
      throw new AppError('conflict', `Product ${input.productId} is not rejected.`);
    await trx.updateTable('products').set({ status }).where('id', '=', product.id).execute();
    await recordAudit(trx, {
      accountId: product.account_id,
      action: input.decision === 'reject' ? 'operator.product_rejected' : 'operator.product_restored',
      origin: input.origin,
      target: product.id,
      details: { reason: input.reason, previous_status: product.status },
      now: input.now,
    });
    return { ...product, status };
  });
}

export interface OperatorPayoutView {
  id: string;
  account_id: string;
  email: string;
  amount_cents: number;
  status: PayoutStatus;
  reference: string | null;
  created_at: string;
  paid_at: string | null;
}

function payoutView(row: Payout & { email: string }): OperatorPayoutView {
  return {
    id: row.id,
    account_id: row.account_id,
    email: row.email,
    amount_cents: Number(row.amount_cents),
    status: row.status,
    reference: row.reference,
    created_at: iso(row.created_at),
    paid_at: iso(row.paid_at),
  };
}

function payoutsQuery(db: Executor) {
  return db
    .selectFrom('payouts')
    .innerJoin('accounts', 'accounts.id', 'payouts.account_id')
    .selectAll('payouts')
    .select('accounts.email');
}

/** Every account's payouts, oldest request first: the queue an operator pays from. */
export async function listAllPayouts(db: Executor, status?: PayoutStatus): Promise<OperatorPayoutView[]> {
  let query = payoutsQuery(db);
  if (status) query = query.where('payouts.status', '=', status);
  const rows = await query.orderBy('payouts.created_at', 'asc').orderBy('payouts.id').limit(500).execute();
  return rows.map(payoutView);
}

/**
 * Settles a requested payout: `paid` (with the bank's reference) or `rejected` (the amount is available again, since
 * available = earned − requested − paid); either way the agent is e-mailed in the same transaction. Only a requested
 * payout changes (else 409).
 */
export async function settlePayout(
  db: Executor,
  input: OperatorChange & { payoutId: string; outcome: 'paid' | 'rejected'; reference?: string | null },
): Promise<OperatorPayoutView> {
  return inTransaction(db, async (trx) => {
    const payout = await payoutsQuery(trx).where('payouts.id', '=', input.payoutId).executeTakeFirst();
    if (!payout) throw new AppError('not_found', `No payout ${input.payoutId}.`);
    await lockAccount(trx, payout.account_id);
    const reference = input.reference ?? null;
    const changed = await trx
      .updateTable('payouts')
      .set({
        status: input.outcome,
        reference,
        paid_at: input.outcome === 'paid' ? input.now : null,
      })
      .where('id', '=', payout.id)
      .where('status', '=', 'requested')
      .executeTakeFirst();
    if (Number(changed.numUpdatedRows) !== 1)
      throw new AppError('conflict', `Payout ${payout.id} is ${payout.status}, not requested.`);
    const amountCents = Number(payout.amount_cents);
    await enqueueMail(trx, {
      to: payout.email,
      mail:
        input.outcome === 'paid'
          ? payoutPaidMessage({ amountCents, reference })
          : payoutRejectedMessage({ amountCents }),
      now: input.now,
    });
    await recordAudit(trx, {
      accountId: payout.account_id,
      action: input.outcome === 'paid' ? 'operator.payout_paid' : 'operator.payout_rejected',
      origin: input.origin,
      target: payout.id,
      details: { amount_cents: amountCents, reference, reason: input.reason },
      now: input.now,
    });
    const settled = await payoutsQuery(trx).where('payouts.id', '=', payout.id).executeTakeFirstOrThrow();
    return payoutView(settled);
  });
}
