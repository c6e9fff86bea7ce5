import { type Kysely, type RawBuilder, sql } from 'kysely';
import { isMysql } from '../../../db/client.js';
import type { Database, ImageKind, LedgerReason } from '../../../db/schema.js';
import { DAY_MS } from '../../clock.js';

type Executor = Kysely<Database>;

export const USAGE_COUNTERS = [
  'images_staged',
  'images_enhanced',
  'product_placements',
  'credits_used',
  'credits_purchased',
  'claims_issued',
  'claims_redeemed',
] as const;

export type UsageCounter = (typeof USAGE_COUNTERS)[number];
export type UsageCounts = Record<UsageCounter, number>;

/** Days since 1970-01-01 UTC: the `day` of usage_daily. */
export function utcDay(epochMs: number): number {
  return Math.floor(epochMs / DAY_MS);
}

export const IMAGE_COUNTER: Record<ImageKind, UsageCounter> = {
  staged: 'images_staged',
  enhanced: 'images_enhanced',
  placed: 'product_placements',
  // Emptying a room is staging work for the agent; usage has no counter of its own for it.
  decluttered: 'images_staged',
};

/** How a ledger entry moves usage: spending (net of refunds) and buying; the signup bonus moves neither. */
export function ledgerUsage(reason: LedgerReason, delta: number): Partial<UsageCounts> {
  if (reason === 'stage' || reason === 'enhance' || reason === 'refund') return { credits_used: -delta };
  if (reason === 'purchase' || reason === 'auto_topup') return { credits_purchased: delta };
  return {};
}

/**
 * Adds `counts` to the account's usage row for the day of `at` and the key (none: 0). Call it inside the transaction
 * that writes what it counts, as its last write there: the row is a hot spot of the account, and taking it last keeps
 * the lock order of every transaction the same (account or claim or hold first, usage after).
 */
export async function recordUsage(
  trx: Executor,
  input: { accountId: string; keyId: number | null; at: number; counts: Partial<UsageCounts> },
): Promise<void> {
  const counts = Object.entries(input.counts).filter(([, n]) => n !== undefined && n !== 0) as Array<
    [UsageCounter, number]
  >;
  if (counts.length === 0) return;
  const insert = trx.insertInto('usage_daily').values({
    account_id: input.accountId,
    day: utcDay(input.at),
    key_id: input.keyId ?? 0,
    ...Object.fromEntries(counts),
  });
  // The unqualified column is the stored value in both dialects' upsert.
  const increments = Object.fromEntries(
    counts.map(([column, n]) => [column, sql<number>`${sql.ref(column)} + ${n}`]),
  ) as Partial<Record<UsageCounter, RawBuilder<number>>>;
  if (isMysql(trx)) await insert.onDuplicateKeyUpdate(increments).execute();
  else
    await insert
      .onConflict((conflict) => conflict.columns(['account_id', 'day', 'key_id']).doUpdateSet(increments))
      .execute();
}
