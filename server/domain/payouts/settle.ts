import type { Kysely } from 'kysely';
import type { Database, Payout, PayoutStatus } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { iso } from '../../clock.js';
import { AppError } from '../../errors.js';
import { lockAccount } from '../accounts/accounts.js';
import { recordAudit } from '../audit/audit.js';
import { payoutPaidMessage, payoutRejectedMessage } from '../mail/messages.js';
import { enqueueMail } from '../mail/outbox.js';
import type { OperatorChange } from '../audit/audit.js';

type Executor = Kysely<Database>;

/** The operators' side of payouts: the queue of every account's requests, and settling one (paid or rejected). */
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
