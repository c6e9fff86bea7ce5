import { type Kysely, sql } from 'kysely';
import { tableOptions, withAutoIncrementId } from '../migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await tableOptions(
    db,
    db.schema
      .createTable('accounts')
      .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
      .addColumn('email', 'varchar(254)', (col) => col.notNull().unique())
      .addColumn('password_hash', 'varchar(255)', (col) => col.notNull())
      .addColumn('credits', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('total_purchased', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('total_used', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('key_bonus_granted_at', 'bigint')
      .addColumn('payment_method_id', 'varchar(255)')
      .addColumn('auto_topup_enabled', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('auto_topup_amount', 'integer', (col) => col.notNull().defaultTo(50))
      .addColumn('auto_topup_threshold', 'integer', (col) => col.notNull().defaultTo(10))
      .addColumn('low_balance_threshold', 'integer', (col) => col.notNull().defaultTo(5))
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addCheckConstraint('accounts_credits_not_negative', sql`credits >= 0`),
  ).execute();

  await tableOptions(
    db,
    db.schema
      .createTable('sessions')
      .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('expires_at', 'bigint', (col) => col.notNull()),
  ).execute();
  await db.schema.createIndex('sessions_account_id').on('sessions').column('account_id').execute();

  await tableOptions(
    db,
    withAutoIncrementId(db, db.schema.createTable('api_keys'))
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', 'varchar(64)', (col) => col.notNull())
      .addColumn('mode', 'varchar(8)', (col) => col.notNull())
      .addColumn('key_hash', 'char(64)', (col) => col.notNull().unique())
      .addColumn('prefix', 'varchar(16)', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('revoked_at', 'bigint'),
  ).execute();
  await db.schema.createIndex('api_keys_account_id').on('api_keys').columns(['account_id', 'id']).execute();

  await tableOptions(
    db,
    withAutoIncrementId(db, db.schema.createTable('credit_ledger'))
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('delta', 'integer', (col) => col.notNull())
      .addColumn('reason', 'varchar(32)', (col) => col.notNull())
      .addColumn('balance_after', 'integer', (col) => col.notNull())
      .addColumn('reference', 'varchar(128)')
      .addColumn('api_key_id', 'bigint')
      .addColumn('created_at', 'bigint', (col) => col.notNull()),
  ).execute();
  await db.schema.createIndex('credit_ledger_account_id').on('credit_ledger').columns(['account_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['credit_ledger', 'api_keys', 'sessions', 'accounts']) {
    await db.schema.dropTable(table).execute();
  }
}
