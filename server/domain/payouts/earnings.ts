import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { type EarningsBalances, earningsBalances } from './balances.js';
import { daySeries } from '../ads/day-series.js';
import { millicentsToCents } from '../ads/money.js';

type Executor = Kysely<Database>;

/**
 * GET /earnings: the balances (available, held, requested, paid) and the agent's impressions and share per day and
 * per image; impressions an operator declared invalid traffic are counted apart and earn nothing.
 */
export async function earningsReport(
  db: Executor,
  input: { accountId: string; fromDay: number; toDay: number; now: number; holdMs: number },
): Promise<
  EarningsBalances & {
    daily: Array<{ date: string; impressions: number; invalid_impressions: number; earned_cents: number }>;
    images: Array<{ image_id: string; impressions: number; invalid_impressions: number; earned_cents: number }>;
  }
> {
  const inRange = db
    .selectFrom('earnings_daily')
    .where('account_id', '=', input.accountId)
    .where('day', '>=', input.fromDay)
    .where('day', '<=', input.toDay);
  const figures = [
    sql<number>`sum(impressions)`.as('impressions'),
    sql<number>`sum(invalid_impressions)`.as('invalid'),
    sql<number>`sum(earned_millicents)`.as('earned'),
  ] as const;
  const [totals, byDay, byImage] = await Promise.all([
    earningsBalances(db, { accountId: input.accountId, now: input.now, holdMs: input.holdMs }),
    inRange
      .select(['day', ...figures])
      .groupBy('day')
      .execute(),
    inRange
      .select(['image_id', ...figures])
      .groupBy('image_id')
      .orderBy(sql`sum(earned_millicents)`, 'desc')
      .orderBy('image_id')
      .limit(500)
      .execute(),
  ]);
  const shown = (row: { impressions: number; invalid: number; earned: number } | undefined) => ({
    impressions: Number(row?.impressions ?? 0),
    invalid_impressions: Number(row?.invalid ?? 0),
    earned_cents: millicentsToCents(Number(row?.earned ?? 0)),
  });
  return {
    ...totals,
    daily: daySeries(input, byDay, shown),
    images: byImage.map((row) => ({ image_id: row.image_id, ...shown(row) })),
  };
}
