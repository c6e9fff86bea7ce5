import { type Kysely, sql } from 'kysely';
import type { Account, Database, LedgerEntry, LedgerReason } from '../../../db/schema.js';
import { iso } from '../../clock.js';
import { emitEvent } from '../events/outbox.js';
import { ledgerUsage, recordUsage } from '../usage/rollup.js';
import { newId } from '../../ids.js';

type Executor = Kysely<Database>;

export const FIRST_KEY_BONUS_CREDITS = 10;

/** A ledger row as every reader sees it (the API's transaction, the operator CLI). */
export function ledgerEntryView(entry: LedgerEntry) {
  return {
    id: entry.public_id,
    delta: entry.delta,
    reason: entry.reason,
    balance_after: entry.balance_after,
    reference: entry.reference,
    created_at: iso(entry.created_at),
  };
}

/** Spending and its refunds move `total_used`; purchases move `total_purchased`; the signup bonus moves neither. */
const USAGE: ReadonlySet<LedgerReason> = new Set(['stage', 'enhance', 'refund']);
const BUYING: ReadonlySet<LedgerReason> = new Set(['purchase', 'auto_topup']);

export interface CreditChange {
  accountId: string;
  delta: number;
  reason: LedgerReason;
  reference?: string | null;
  apiKeyId?: number | null;
  now: number;
}

export type CreditChangeResult = { ok: true; balanceAfter: number; entryId: number } | { ok: false; available: number };

/**
 * The only writer of balances. Run it inside the caller's transaction: a conditional update keeps the balance
 * from going negative under concurrency, and the ledger row records the balance it produced, so
 * `credits = Σ delta` always holds.
 */
export async function changeCredits(trx: Executor, change: CreditChange): Promise<CreditChangeResult> {
  const { accountId, delta, reason } = change;
  let update = trx
    .updateTable('accounts')
    .set((eb) => ({
      credits: eb('credits', '+', delta),
      total_used: USAGE.has(reason) ? eb('total_used', '-', delta) : eb.ref('total_used'),
      total_purchased: BUYING.has(reason) ? eb('total_purchased', '+', delta) : eb.ref('total_purchased'),
    }))
    .where('id', '=', accountId);
  if (delta < 0) update = update.where('credits', '>=', -delta);
  const result = await update.executeTakeFirst();
  const account = await trx
    .selectFrom('accounts')
    .select(['credits', 'low_balance_threshold'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account || Number(result.numUpdatedRows) === 0) return { ok: false, available: account?.credits ?? 0 };
  const balanceAfter = account.credits;
  const inserted = await trx
    .insertInto('credit_ledger')
    .values({
      public_id: newId('ledger'),
      account_id: accountId,
      delta,
      reason,
      balance_after: balanceAfter,
      reference: change.reference ?? null,
      api_key_id: change.apiKeyId ?? null,
      created_at: change.now,
    })
    .executeTakeFirstOrThrow();
  const threshold = account.low_balance_threshold;
  if (balanceAfter - delta >= threshold && balanceAfter < threshold) {
    // Once each time the balance falls below the threshold, not on every charge below it.
    await emitEvent(trx, {
      accountId,
      keyId: null,
      event: 'credits.low',
      data: { current_balance: balanceAfter, threshold },
      now: change.now,
    });
  }
  await recordUsage(trx, {
    accountId,
    keyId: change.apiKeyId ?? null,
    at: change.now,
    counts: ledgerUsage(reason, delta),
  });
  return { ok: true, balanceAfter, entryId: Number(inserted.insertId) };
}

/** Grants the first-key bonus at most once per account, however many first keys race for it. */
export async function grantFirstKeyBonus(trx: Executor, accountId: string, now: number): Promise<number> {
  const claimed = await trx
    .updateTable('accounts')
    .set({ key_bonus_granted_at: now })
    .where('id', '=', accountId)
    .where('key_bonus_granted_at', 'is', null)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return 0;
  await changeCredits(trx, { accountId, delta: FIRST_KEY_BONUS_CREDITS, reason: 'signup_bonus', now });
  return FIRST_KEY_BONUS_CREDITS;
}

export interface BalanceSummary {
  credits: number;
  total_purchased: number;
  total_used: number;
  has_payment_method: boolean;
  auto_topup: { enabled: boolean; amount: number; threshold: number };
}

/** The account columns a balance is made of; API-key authentication reads them in the same query as the key. */
export const BALANCE_COLUMNS = [
  'credits',
  'total_purchased',
  'total_used',
  'payment_method_id',
  'auto_topup_enabled',
  'auto_topup_amount',
  'auto_topup_threshold',
] as const;

export type BalanceRow = Pick<Account, (typeof BALANCE_COLUMNS)[number]>;

export function presentBalance(row: BalanceRow): BalanceSummary {
  return {
    credits: row.credits,
    total_purchased: row.total_purchased,
    total_used: row.total_used,
    has_payment_method: row.payment_method_id !== null,
    auto_topup: {
      enabled: row.auto_topup_enabled === 1,
      amount: row.auto_topup_amount,
      threshold: row.auto_topup_threshold,
    },
  };
}

export async function getBalance(db: Executor, accountId: string): Promise<BalanceSummary> {
  return presentBalance(
    await db.selectFrom('accounts').select(BALANCE_COLUMNS).where('id', '=', accountId).executeTakeFirstOrThrow(),
  );
}

/** Σ delta over the ledger; tests and the health of the books compare it with the cached balance. */
export async function ledgerSum(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('credit_ledger')
    .select(sql<number>`coalesce(sum(delta), 0)`.as('total'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}
