import { type Kysely, sql } from 'kysely';
import { isMysql } from './client.js';
import type { Database } from './schema.js';

type CounterTable = 'campaign_daily' | 'earnings_daily' | 'ad_funds_ledger' | 'image_failures_daily';

/**
 * Inserts the row, or adds `increments` to the one with the same key: the counters of a day (spend, impressions,
 * earnings, failed image requests) grow in place. The unqualified column is the stored value in both dialects' upsert.
 */
export async function addToCounters(
  trx: Kysely<Database>,
  table: CounterTable,
  conflictColumns: string[],
  row: Record<string, unknown>,
  increments: Record<string, number>,
): Promise<void> {
  const changes = Object.fromEntries(
    Object.entries(increments).map(([column, n]) => [column, sql`${sql.ref(column)} + ${n}`]),
  );
  const insert = trx.insertInto(table).values(row as never);
  if (isMysql(trx)) await insert.onDuplicateKeyUpdate(changes as never).execute();
  else
    await insert
      .onConflict((conflict) => conflict.columns(conflictColumns as never).doUpdateSet(changes as never))
      .execute();
}
