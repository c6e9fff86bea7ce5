import { type Kysely, MysqlAdapter, sql } from 'kysely';
import { tableOptions } from '../migration-helpers.js';

const DAY_MS = 86_400_000;

/*
 * GET /usage answers from one row per account, UTC day and API key (key_id 0: no key, e.g. purchases), kept up to
 * date in the transactions that change credits, images and claims. A 30-day report then reads ~30 rows per key
 * instead of aggregating an account's whole ledger. Rows that existed before this migration are rolled up here.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await tableOptions(
    db,
    db.schema
      .createTable('usage_daily')
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('day', 'integer', (col) => col.notNull())
      .addColumn('key_id', 'bigint', (col) => col.notNull())
      .addColumn('images_staged', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('images_enhanced', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('product_placements', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('credits_used', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('credits_purchased', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('claims_issued', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('claims_redeemed', 'integer', (col) => col.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('usage_daily_pk', ['account_id', 'day', 'key_id']),
  ).execute();

  const mysql = db.getExecutor().adapter instanceof MysqlAdapter;
  // Integer division of epoch milliseconds: SQLite's `/` on integers truncates, MySQL needs DIV.
  const day = (column: string) =>
    mysql ? sql`${sql.ref(column)} DIV ${sql.lit(DAY_MS)}` : sql`${sql.ref(column)} / ${sql.lit(DAY_MS)}`;
  await sql`
    insert into usage_daily (account_id, day, key_id, images_staged, images_enhanced, product_placements, credits_used, credits_purchased, claims_issued, claims_redeemed)
    select account_id, day, key_id, sum(st), sum(en), sum(pl), sum(cu), sum(cp), sum(ci), sum(cr) from (
      select account_id, ${day('created_at')} as day, coalesce(api_key_id, 0) as key_id, 0 as st, 0 as en, 0 as pl,
        case when reason in ('stage', 'enhance', 'refund') then -delta else 0 end as cu,
        case when reason in ('purchase', 'auto_topup') then delta else 0 end as cp, 0 as ci, 0 as cr
      from credit_ledger where reason <> 'signup_bonus'
      union all
      select account_id, ${day('created_at')}, coalesce(key_id, 0), case when kind = 'staged' then 1 else 0 end,
        case when kind = 'enhanced' then 1 else 0 end, case when kind = 'placed' then 1 else 0 end, 0, 0, 0, 0
      from images
      union all
      select account_id, ${day('created_at')}, coalesce(key_id, 0), 0, 0, 0, 0, 0, 1, 0 from claims
      union all
      select account_id, ${day('redeemed_at')}, coalesce(key_id, 0), 0, 0, 0, 0, 0, 0, 1 from claims where redeemed_at is not null
    ) rows_by_day
    group by account_id, day, key_id
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage_daily').execute();
}
