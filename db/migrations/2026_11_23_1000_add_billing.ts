import type { Kysely } from 'kysely';
import { tableOptions } from '../migration-helpers.js';

/**
 * Billing: the card on file and the auto top-up's cap and pause live on the account; Checkout
 * Sessions are credited exactly once (the row's `credited_at` is claimed by one conditional update); Stripe events
 * are applied at most once (their ids are stored); top-up attempts are rows, and `in_flight_account_id` (unique,
 * set only while an attempt runs) keeps one top-up at a time per account across processes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const accountColumns: [string, string][] = [
    ['stripe_customer_id', 'varchar(255)'],
    ['payment_method_brand', 'varchar(32)'],
    ['payment_method_last4', 'varchar(4)'],
    ['payment_method_exp_month', 'integer'],
    ['payment_method_exp_year', 'integer'],
    ['payment_method_simulated', 'integer'],
    ['auto_topup_monthly_limit', 'integer'],
    ['auto_topup_paused_until', 'bigint'],
    ['auto_topup_last_failure_reason', 'varchar(40)'],
  ];
  for (const [name, type] of accountColumns) {
    await db.schema
      .alterTable('accounts')
      .addColumn(name, type as 'integer')
      .execute();
  }
  await db.schema
    .alterTable('accounts')
    .addColumn('auto_topup_consecutive_failures', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();

  await tableOptions(
    db,
    db.schema
      .createTable('checkout_sessions')
      .addColumn('id', 'varchar(255)', (col) => col.primaryKey())
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('credits', 'integer', (col) => col.notNull())
      .addColumn('gateway', 'varchar(16)', (col) => col.notNull())
      .addColumn('checkout_url', 'varchar(2000)', (col) => col.notNull())
      .addColumn('status', 'varchar(16)', (col) => col.notNull())
      .addColumn('credited_at', 'bigint')
      .addColumn('created_at', 'bigint', (col) => col.notNull()),
  ).execute();
  await db.schema
    .createIndex('checkout_sessions_account')
    .on('checkout_sessions')
    .columns(['account_id', 'created_at'])
    .execute();

  await tableOptions(
    db,
    db.schema
      .createTable('stripe_events')
      .addColumn('id', 'varchar(255)', (col) => col.primaryKey())
      .addColumn('type', 'varchar(100)', (col) => col.notNull())
      .addColumn('received_at', 'bigint', (col) => col.notNull()),
  ).execute();

  await tableOptions(
    db,
    db.schema
      .createTable('topup_attempts')
      .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('in_flight_account_id', 'varchar(40)', (col) => col.unique())
      .addColumn('amount', 'integer', (col) => col.notNull())
      .addColumn('status', 'varchar(16)', (col) => col.notNull())
      .addColumn('reason', 'varchar(40)')
      .addColumn('payment_id', 'varchar(255)')
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('lease_expires_at', 'bigint', (col) => col.notNull())
      .addColumn('finished_at', 'bigint'),
  ).execute();
  await db.schema
    .createIndex('topup_attempts_account')
    .on('topup_attempts')
    .columns(['account_id', 'status', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('topup_attempts').execute();
  await db.schema.dropTable('stripe_events').execute();
  await db.schema.dropTable('checkout_sessions').execute();
  for (const column of [
    'auto_topup_consecutive_failures',
    'auto_topup_last_failure_reason',
    'auto_topup_paused_until',
    'auto_topup_monthly_limit',
    'payment_method_simulated',
    'payment_method_exp_year',
    'payment_method_exp_month',
    'payment_method_last4',
    'payment_method_brand',
    'stripe_customer_id',
  ]) {
    await db.schema.alterTable('accounts').dropColumn(column).execute();
  }
}
