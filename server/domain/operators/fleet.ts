import { type Kysely, sql } from 'kysely';
import { isMysql } from '../../../db/client.js';
import type { Database } from '../../../db/schema.js';
import { countOutstandingHolds } from '../credits/holds.js';
import { DAY_MS, dayToDate, millicentsToCents, utcDay } from '../ads/money.js';

type Executor = Kysely<Database>;

export interface FleetDay {
  date: string;
  images_by_engine: Record<string, number>;
  /** Image requests (synchronous or jobs) the engine or the server failed, refunded: in all, by engine, by code. */
  failures: number;
  failures_by_engine: Record<string, number>;
  failures_by_code: Record<string, number>;
  /** The engine calls' p50 and p95 that day, from the images' recorded timings; null on a day without any. */
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

/**
 * Upper bounds (ms) of the histogram the percentiles are read from: the days' timings are counted per bucket in SQL,
 * so the report reads a few rows per day however many images there were, and interpolates inside the bucket.
 */
export const ENGINE_MS_BUCKETS = [25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 120_000];

/** The q-quantile (0–1) of a histogram of counts per ENGINE_MS_BUCKETS bucket (one more for above the last). */
export function histogramQuantile(counts: number[], q: number): number | null {
  const total = counts.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (const [index, n] of counts.entries()) {
    if (n > 0 && below + n >= rank) {
      const lower = index === 0 ? 0 : (ENGINE_MS_BUCKETS[index - 1] as number);
      const upper = ENGINE_MS_BUCKETS[index];
      if (upper === undefined) return lower;
      return Math.round(lower + ((upper - lower) * (rank - below)) / n);
    }
    below += n;
  }
  return ENGINE_MS_BUCKETS.at(-1) as number;
}

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
  // The bucket of an image's engine time: the index of the first upper bound it does not pass.
  const bucket = sql<number>`case ${sql.join(
    ENGINE_MS_BUCKETS.map(
      (upper, index) => sql`when ${sql.ref('engine_ms')} <= ${sql.lit(upper)} then ${sql.lit(index)}`,
    ),
    sql` `,
  )} else ${sql.lit(ENGINE_MS_BUCKETS.length)} end`;
  const [images, timings, failures, sold, spend, earned, deliveries, undelivered, backlog, holds] = await Promise.all([
    db
      .selectFrom('images')
      .select([day('created_at').as('day'), 'engine', (eb) => eb.fn.countAll<number>().as('n')])
      .where('created_at', '>=', since)
      .groupBy([day('created_at'), 'engine'])
      .execute(),
    db
      .selectFrom('images')
      .select([day('created_at').as('day'), bucket.as('bucket'), (eb) => eb.fn.countAll<number>().as('n')])
      .where('created_at', '>=', since)
      .where('engine_ms', 'is not', null)
      .groupBy([day('created_at'), bucket])
      .execute(),
    db
      .selectFrom('image_failures_daily')
      .select(['day', 'engine', 'code', 'failures as n'])
      .where('day', '>=', fromDay)
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
  const [credits, spent, owed] = [byDay(sold), byDay(spend), byDay(earned)];
  const [delivered, notDelivered] = [byDay(deliveries), byDay(undelivered)];
  const daily: FleetDay[] = [];
  for (let d = fromDay; d <= toDay; d++) {
    const images_by_engine: Record<string, number> = {};
    for (const row of images.filter((image) => Number(image.day) === d)) {
      const engine = row.engine ?? UNRECORDED_ENGINE;
      images_by_engine[engine] = (images_by_engine[engine] ?? 0) + Number(row.n);
    }
    const failures_by_engine: Record<string, number> = {};
    const failures_by_code: Record<string, number> = {};
    for (const row of failures.filter((failure) => Number(failure.day) === d)) {
      failures_by_engine[row.engine] = (failures_by_engine[row.engine] ?? 0) + Number(row.n);
      failures_by_code[row.code] = (failures_by_code[row.code] ?? 0) + Number(row.n);
    }
    const histogram = new Array<number>(ENGINE_MS_BUCKETS.length + 1).fill(0);
    for (const row of timings.filter((timing) => Number(timing.day) === d))
      histogram[Number(row.bucket)] = (histogram[Number(row.bucket)] ?? 0) + Number(row.n);
    daily.push({
      date: dayToDate(d),
      images_by_engine,
      failures: Object.values(failures_by_engine).reduce((sum, n) => sum + n, 0),
      failures_by_engine,
      failures_by_code,
      engine_p50_ms: histogramQuantile(histogram, 0.5),
      engine_p95_ms: histogramQuantile(histogram, 0.95),
      credits_sold: credits.get(d) ?? 0,
      ad_spend_cents: millicentsToCents(spent.get(d) ?? 0),
      earnings_owed_cents: millicentsToCents(owed.get(d) ?? 0),
      webhook_deliveries: delivered.get(d) ?? 0,
      webhook_failures: notDelivered.get(d) ?? 0,
    });
  }
  return { daily, webhook_backlog: Number(backlog.n), holds_outstanding: holds };
}
