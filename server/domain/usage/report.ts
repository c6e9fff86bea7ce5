import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { DAY_MS, iso } from '../../clock.js';
import { type AdRevenue, adRevenueForAgent } from '../ads/revenue.js';
import { AppError } from '../../errors.js';
import { USAGE_COUNTERS, type UsageCounts, utcDay } from './rollup.js';

type Executor = Kysely<Database>;

/** Reports cover at most this many days, so one request reads a bounded number of rollup rows. */
export const MAX_REPORT_DAYS = 366;
export const DEFAULT_REPORT_DAYS = 30;

export interface DailyUsage {
  date: string;
  images_staged: number;
  images_enhanced: number;
  product_placements: number;
  credits_used: number;
}

export interface KeyUsage {
  key_id: number;
  name: string;
  prefix: string;
  credits_used: number;
  last_used_at: string | null;
}

export interface UsageReport {
  from: string;
  to: string;
  totals: UsageCounts;
  daily: DailyUsage[];
  keys: KeyUsage[];
  ad_revenue: AdRevenue;
}

function dateOfDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** `YYYY-MM-DD` (a real calendar date) → its UTC day number, or null. */
function dayOfDate(date: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return null;
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(ms) || dateOfDay(utcDay(ms)) !== date) return null;
  return utcDay(ms);
}

function invalidRange(path: string, message: string): AppError {
  return new AppError('invalid_request', message, { details: [{ path, message }] });
}

/**
 * The report's days: `to` defaults to today (UTC) and `from` to 29 days before `to`, so the default is the last
 * 30 days including today. Both ends are inclusive.
 */
export function resolveRange(input: { from?: string; to?: string; now: number }): { fromDay: number; toDay: number } {
  const toDay = input.to === undefined ? utcDay(input.now) : dayOfDate(input.to);
  if (toDay === null) throw invalidRange('to', 'to must be a date written YYYY-MM-DD.');
  const fromDay = input.from === undefined ? toDay - (DEFAULT_REPORT_DAYS - 1) : dayOfDate(input.from);
  if (fromDay === null) throw invalidRange('from', 'from must be a date written YYYY-MM-DD.');
  if (fromDay > toDay) throw invalidRange('from', 'from must be on or before to.');
  if (toDay - fromDay + 1 > MAX_REPORT_DAYS)
    throw invalidRange('from', `A report covers at most ${MAX_REPORT_DAYS} days.`);
  return { fromDay, toDay };
}

const sumOf = (column: (typeof USAGE_COUNTERS)[number]) =>
  sql<number>`coalesce(sum(${sql.ref(`usage_daily.${column}`)}), 0)`.as(column);

/**
 * GET /usage: sums of the daily rollup (server/domain/usage/rollup.ts) grouped in SQL by day and by key, read through
 * its primary key (account_id, day, key_id). `daily` has a row for every day of the range, zeros included.
 * `keyId` narrows everything but ad revenue (which belongs to the agent side of the account) to one of its keys.
 */
export async function usageReport(
  db: Executor,
  input: { accountId: string; fromDay: number; toDay: number; keyId?: number },
): Promise<UsageReport> {
  const { accountId, fromDay, toDay, keyId } = input;
  let keys = db
    .selectFrom('api_keys')
    .select(['id', 'name', 'prefix', 'last_used_at'])
    .where('account_id', '=', accountId);
  if (keyId !== undefined) {
    keys = keys.where('id', '=', keyId);
    const own = await keys.executeTakeFirst();
    if (!own) throw new AppError('not_found', `No API key ${keyId} in this account.`);
  }

  let days = db
    .selectFrom('usage_daily')
    .select(['day', ...USAGE_COUNTERS.map(sumOf)])
    .where('account_id', '=', accountId)
    .where('day', '>=', fromDay)
    .where('day', '<=', toDay);
  if (keyId !== undefined) days = days.where('key_id', '=', keyId);

  const keyUsage = db
    .selectFrom('usage_daily')
    .select(['key_id', sumOf('credits_used')])
    .where('account_id', '=', accountId)
    .where('day', '>=', fromDay)
    .where('day', '<=', toDay)
    .groupBy('key_id');

  const [dayRows, keyRows, usageByKey, adRevenue] = await Promise.all([
    days.groupBy('day').execute(),
    keys.orderBy('id', 'desc').execute(),
    keyUsage.execute(),
    adRevenueForAgent(db, accountId),
  ]);

  const byDay = new Map(dayRows.map((row) => [Number(row.day), row]));
  const usedByKey = new Map(usageByKey.map((row) => [Number(row.key_id), Number(row.credits_used)]));
  const totals = Object.fromEntries(USAGE_COUNTERS.map((counter) => [counter, 0])) as UsageCounts;
  const daily: DailyUsage[] = [];
  for (let day = fromDay; day <= toDay; day++) {
    const row = byDay.get(day);
    for (const counter of USAGE_COUNTERS) totals[counter] += Number(row?.[counter] ?? 0);
    daily.push({
      date: dateOfDay(day),
      images_staged: Number(row?.images_staged ?? 0),
      images_enhanced: Number(row?.images_enhanced ?? 0),
      product_placements: Number(row?.product_placements ?? 0),
      credits_used: Number(row?.credits_used ?? 0),
    });
  }
  return {
    from: dateOfDay(fromDay),
    to: dateOfDay(toDay),
    totals,
    daily,
    keys: keyRows.map((key) => ({
      key_id: key.id,
      name: key.name,
      prefix: key.prefix,
      credits_used: usedByKey.get(key.id) ?? 0,
      last_used_at: iso(key.last_used_at),
    })),
    ad_revenue: adRevenue,
  };
}
