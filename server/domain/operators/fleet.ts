import { type Kysely, sql } from 'kysely';
import { isMysql } from '../../../db/client.js';
import type { Database } from '../../../db/schema.js';
import { countOutstandingHolds } from '../credits/holds.js';
import { DAY_MS, dayToDate, millicentsToCents, utcDay } from '../ads/money.js';

type Executor = Kysely<Database>;

export interface FleetDay {
  date: string;
  images_by_engine: Record<string, number>;
  failures: number;
  /** Engine timings are not stored per image (they are in the process metrics), so these stay null. */
  engine_p50_ms: number | null;
  engine_p95_ms: number | null;
  credits_sold: number;
  ad_spend_cents: number;
  earnings_owed_cents: number;
  /** Webhook deliveries created that day, and those of them that failed for good. */
  webhook_deliveries: number;
  webhook_failures: number;
}

/** Images made before each row recorded its engine are counted under this name. */
export const UNRECORDED_ENGINE = 'unrecorded';

/** The last `days` UTC days, today included, each from SQL sums; plus what is waiting right now. */
export async function fleetReport(
  db: Executor,
  input: { days: number; now: number },
): Promise<{ daily: FleetDay[]; webhook_backlog: number; holds_outstanding: number }> {
  const toDay = utcDay(input.now);
  const fromDay = toDay - input.days + 1;
  const since = fromDay * DAY_MS;
  // The UTC day of an epoch-ms column as an integer: SQLite divides two integers exactly, but a bound JS number
  // arrives as a REAL (a fractional day that matches no day), so the divisor is a literal; MariaDB needs DIV.
  const day = (column: string) =>
    isMysql(db)
      ? sql<number>`${sql.ref(column)} div ${sql.lit(DAY_MS)}`
      : sql<number>`${sql.ref(column)} / ${sql.lit(DAY_MS)}`;
  const [images, failures, sold, spend, earned, deliveries, undelivered, backlog, holds] = await Promise.all([
    db
      .selectFrom('images')
      .select([day('created_at').as('day'), 'engine', (eb) => eb.fn.countAll<number>().as('n')])
      .where('created_at', '>=', since)
      .groupBy([day('created_at'), 'engine'])
      .execute(),
    db
      .selectFrom('jobs')
      .select([day('finished_at').as('day'), (eb) => eb.fn.countAll<number>().as('n')])
      .where('status', '=', 'failed')
      .where('finished_at', '>=', since)
      .groupBy(day('finished_at'))
      .execute(),
    db
      .selectFrom('credit_ledger')
      .select([day('created_at').as('day'), sql<number>`sum(delta)`.as('n')])
      .where('reason', 'in', ['purchase', 'auto_topup'])
      .where('created_at', '>=', since)
      .groupBy(day('created_at'))
      .execute(),
    db
      .selectFrom('campaign_daily')
      .select(['day', sql<number>`sum(spend_millicents)`.as('n')])
      .where('day', '>=', fromDay)
      .groupBy('day')
      .execute(),
    db
      .selectFrom('earnings_daily')
      .select(['day', sql<number>`sum(earned_millicents)`.as('n')])
      .where('day', '>=', fromDay)
      .groupBy('day')
      .execute(),
    db
      .selectFrom('webhook_deliveries')
      .select([day('created_at').as('day'), (eb) => eb.fn.countAll<number>().as('n')])
      .where('created_at', '>=', since)
      .groupBy(day('created_at'))
      .execute(),
    db
      .selectFrom('webhook_deliveries')
      .select([day('created_at').as('day'), (eb) => eb.fn.countAll<number>().as('n')])
      .where('status', '=', 'failed')
      .where('created_at', '>=', since)
      .groupBy(day('created_at'))
      .execute(),
    db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow(),
    countOutstandingHolds(db),
  ]);
  const byDay = (rows: Array<{ day: number; n: number }>) => {
    const totals = new Map<number, number>();
    for (const row of rows) totals.set(Number(row.day), (totals.get(Number(row.day)) ?? 0) + Number(row.n));
    return totals;
  };
  const [failed, credits, spent, owed] = [byDay(failures), byDay(sold), byDay(spend), byDay(earned)];
  const [delivered, notDelivered] = [byDay(deliveries), byDay(undelivered)];
  const daily: FleetDay[] = [];
  for (let d = fromDay; d <= toDay; d++) {
    const images_by_engine: Record<string, number> = {};
    for (const row of images.filter((image) => Number(image.day) === d)) {
      const engine = row.engine ?? UNRECORDED_ENGINE;
      images_by_engine[engine] = (images_by_engine[engine] ?? 0) + Number(row.n);
    }
    daily.push({
      date: dayToDate(d),
      images_by_engine,
      failures: failed.get(d) ?? 0,
      engine_p50_ms: null,
      engine_p95_ms: null,
      credits_sold: credits.get(d) ?? 0,
      ad_spend_cents: millicentsToCents(spent.get(d) ?? 0),
      earnings_owed_cents: millicentsToCents(owed.get(d) ?? 0),
      webhook_deliveries: delivered.get(d) ?? 0,
      webhook_failures: notDelivered.get(d) ?? 0,
    });
  }
  return { daily, webhook_backlog: Number(backlog.n), holds_outstanding: holds };
}
