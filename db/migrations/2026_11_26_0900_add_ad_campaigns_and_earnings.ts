import type { Kysely } from 'kysely';
import { dropIndex, tableOptions, withAutoIncrementId } from '../migration-helpers.js';

/*
 * Sponsored products become real money: advertisers own products and fund campaigns, each counted impression is
 * billed in milli-cents (1/1000 of a cent) and split with the agent who redeemed the image. The built-in catalog's
 * rows stay as house products (no owner); placements keep their old rate and impressions as history.
 */
async function addColumns(
  db: Kysely<any>,
  table: string,
  columns: Array<[string, string, (col: any) => any]>,
): Promise<void> {
  // SQLite takes one column per ALTER TABLE.
  for (const [name, type, build] of columns)
    await db.schema
      .alterTable(table)
      .addColumn(name, type as 'bigint', build as never)
      .execute();
}

export async function up(db: Kysely<any>): Promise<void> {
  await addColumns(db, 'products', [
    ['account_id', 'varchar(40)', (col) => col],
    ['status', 'varchar(16)', (col) => col.notNull().defaultTo('active')],
    ['image_storage_name', 'varchar(96)', (col) => col],
    ['styles', 'varchar(400)', (col) => col.notNull().defaultTo('')],
    ['archived_at', 'bigint', (col) => col],
    ['created_at', 'bigint', (col) => col.notNull().defaultTo(0)],
  ]);
  await db.schema.createIndex('products_account_id').on('products').columns(['account_id', 'created_at']).execute();

  await tableOptions(
    db,
    db.schema
      .createTable('campaigns')
      .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', 'varchar(120)', (col) => col.notNull())
      .addColumn('cpm_cents', 'integer', (col) => col.notNull())
      .addColumn('total_budget_millicents', 'bigint', (col) => col.notNull())
      .addColumn('daily_budget_millicents', 'bigint')
      .addColumn('starts_at', 'bigint')
      .addColumn('ends_at', 'bigint')
      .addColumn('status', 'varchar(16)', (col) => col.notNull().defaultTo('active'))
      .addColumn('exhausted_reason', 'varchar(16)')
      .addColumn('spent_millicents', 'bigint', (col) => col.notNull().defaultTo(0))
      .addColumn('impressions', 'bigint', (col) => col.notNull().defaultTo(0))
      .addColumn('unbilled_impressions', 'bigint', (col) => col.notNull().defaultTo(0))
      .addColumn('spend_day', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('spent_today_millicents', 'bigint', (col) => col.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('updated_at', 'bigint', (col) => col.notNull()),
  ).execute();
  await db.schema.createIndex('campaigns_account_id').on('campaigns').columns(['account_id', 'created_at']).execute();
  await db.schema.createIndex('campaigns_status').on('campaigns').column('status').execute();

  await tableOptions(
    db,
    db.schema
      .createTable('campaign_products')
      .addColumn('campaign_id', 'varchar(40)', (col) => col.notNull().references('campaigns.id').onDelete('cascade'))
      .addColumn('product_id', 'varchar(40)', (col) => col.notNull())
      .addColumn('last_placed_at', 'bigint', (col) => col.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('campaign_products_pk', ['campaign_id', 'product_id']),
  ).execute();
  await db.schema.createIndex('campaign_products_product_id').on('campaign_products').column('product_id').execute();

  await tableOptions(
    db,
    db.schema
      .createTable('campaign_daily')
      .addColumn('campaign_id', 'varchar(40)', (col) => col.notNull())
      .addColumn('day', 'integer', (col) => col.notNull())
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull())
      .addColumn('impressions', 'bigint', (col) => col.notNull().defaultTo(0))
      .addColumn('unbilled_impressions', 'bigint', (col) => col.notNull().defaultTo(0))
      .addColumn('spend_millicents', 'bigint', (col) => col.notNull().defaultTo(0))
      .addColumn('agent_millicents', 'bigint', (col) => col.notNull().defaultTo(0))
      .addColumn('service_millicents', 'bigint', (col) => col.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('campaign_daily_pk', ['campaign_id', 'day']),
  ).execute();
  await db.schema
    .createIndex('campaign_daily_account_day')
    .on('campaign_daily')
    .columns(['account_id', 'day'])
    .execute();

  await addColumns(db, 'accounts', [['ad_funds_millicents', 'bigint', (col) => col.notNull().defaultTo(0)]]);
  await tableOptions(
    db,
    withAutoIncrementId(db, db.schema.createTable('ad_funds_ledger'))
      .addColumn('public_id', 'varchar(32)', (col) => col.notNull().unique())
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('delta_millicents', 'bigint', (col) => col.notNull())
      .addColumn('reason', 'varchar(16)', (col) => col.notNull())
      .addColumn('reference', 'varchar(96)')
      // Spend is one row per campaign and UTC day, grown by each billed impression: found again by this key.
      .addColumn('spend_key', 'varchar(96)', (col) => col.unique())
      .addColumn('created_at', 'bigint', (col) => col.notNull()),
  ).execute();
  await db.schema
    .createIndex('ad_funds_ledger_account_id')
    .on('ad_funds_ledger')
    .columns(['account_id', 'id'])
    .execute();

  await tableOptions(
    db,
    db.schema
      .createTable('earnings_daily')
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull())
      .addColumn('image_id', 'varchar(40)', (col) => col.notNull())
      .addColumn('day', 'integer', (col) => col.notNull())
      .addColumn('impressions', 'bigint', (col) => col.notNull().defaultTo(0))
      .addColumn('earned_millicents', 'bigint', (col) => col.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('earnings_daily_pk', ['account_id', 'image_id', 'day']),
  ).execute();
  await db.schema
    .createIndex('earnings_daily_account_day')
    .on('earnings_daily')
    .columns(['account_id', 'day'])
    .execute();

  await tableOptions(
    db,
    db.schema
      .createTable('payouts')
      .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('amount_cents', 'bigint', (col) => col.notNull())
      .addColumn('status', 'varchar(16)', (col) => col.notNull())
      .addColumn('reference', 'varchar(255)')
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('paid_at', 'bigint'),
  ).execute();
  await db.schema.createIndex('payouts_account_id').on('payouts').columns(['account_id', 'created_at']).execute();

  await addColumns(db, 'placements', [
    ['campaign_id', 'varchar(40)', (col) => col],
    ['cpm_cents', 'integer', (col) => col.notNull().defaultTo(0)],
    ['billed_impressions', 'bigint', (col) => col.notNull().defaultTo(0)],
    ['unbilled_impressions', 'bigint', (col) => col.notNull().defaultTo(0)],
    ['spend_millicents', 'bigint', (col) => col.notNull().defaultTo(0)],
  ]);
  await db.schema.createIndex('placements_campaign_id').on('placements').column('campaign_id').execute();

  await addColumns(db, 'checkout_sessions', [
    ['purpose', 'varchar(16)', (col) => col.notNull().defaultTo('credits')],
    ['amount_cents', 'bigint', (col) => col.notNull().defaultTo(0)],
  ]);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['amount_cents', 'purpose'])
    await db.schema.alterTable('checkout_sessions').dropColumn(column).execute();
  await dropIndex(db, 'placements_campaign_id', 'placements').execute();
  for (const column of ['spend_millicents', 'unbilled_impressions', 'billed_impressions', 'cpm_cents', 'campaign_id'])
    await db.schema.alterTable('placements').dropColumn(column).execute();
  for (const table of ['payouts', 'earnings_daily', 'ad_funds_ledger', 'campaign_daily', 'campaign_products'])
    await db.schema.dropTable(table).execute();
  await db.schema.dropTable('campaigns').execute();
  await db.schema.alterTable('accounts').dropColumn('ad_funds_millicents').execute();
  await dropIndex(db, 'products_account_id', 'products').execute();
  for (const column of ['created_at', 'archived_at', 'styles', 'image_storage_name', 'status', 'account_id'])
    await db.schema.alterTable('products').dropColumn(column).execute();
}
