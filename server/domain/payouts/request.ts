import type { Kysely } from 'kysely';
import type { Database, Payout } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { iso } from '../../clock.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { lockAccount } from '../accounts/accounts.js';
import { type AuditOrigin, recordAudit } from '../audit/audit.js';
import { earningsBalances } from './balances.js';

type Executor = Kysely<Database>;

export const MIN_PAYOUT_CENTS = 1000;

export interface PayoutView {
  id: string;
  amount_cents: number;
  status: Payout['status'];
  created_at: string;
  paid_at: string | null;
}

function payoutView(payout: Payout): PayoutView {
  return {
    id: payout.id,
    amount_cents: Number(payout.amount_cents),
    status: payout.status,
    created_at: iso(payout.created_at),
    paid_at: iso(payout.paid_at),
  };
}

/**
 * Asks for a payout of at most what is available (earnings past the hold, less payouts requested or paid). The
 * account's row is locked first (SQLite: the transaction is the lock), so two requests at once cannot both spend the
 * same earnings, and an invalid-traffic declaration cannot take back what a payout is taking. Audited with who asked.
 */
export async function requestPayout(
  db: Executor,
  input: { accountId: string; amountCents: number; now: number; holdMs: number; origin: AuditOrigin },
): Promise<PayoutView> {
  return inTransaction(db, async (trx) => {
    await lockAccount(trx, input.accountId);
    const { available_cents, pending_cents } = await earningsBalances(trx, input);
    if (input.amountCents > available_cents)
      throw new AppError(
        'conflict',
        `A payout may be at most the available earnings (${available_cents} cents; ${pending_cents} more are held until the hold period passes).`,
        { available_cents, pending_cents },
      );
    const payout: Payout = {
      id: newId('payout'),
      account_id: input.accountId,
      amount_cents: input.amountCents,
      status: 'requested',
      reference: null,
      created_at: input.now,
      paid_at: null,
    };
    await trx.insertInto('payouts').values(payout).execute();
    await recordAudit(trx, {
      accountId: input.accountId,
      action: 'payout.requested',
      origin: input.origin,
      target: payout.id,
      details: { amount_cents: input.amountCents, available_cents_before: available_cents },
      now: input.now,
    });
    return payoutView(payout);
  });
}

export async function listPayouts(db: Executor, accountId: string): Promise<PayoutView[]> {
  const rows = await db
    .selectFrom('payouts')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(500)
    .execute();
  return rows.map(payoutView);
}
