import type { Kysely } from 'kysely';
import { tableOptions } from '../migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  // Credits taken by an image request that has not stored its result yet.
  // The row goes when the result is stored (final) or when the credits are refunded; one whose lease ended belongs
  // to a request that died and is refunded by any process's sweeper.
  await tableOptions(
    db,
    db.schema
      .createTable('charge_holds')
      .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('key_id', 'bigint')
      .addColumn('credits', 'integer', (col) => col.notNull())
      .addColumn('reason', 'varchar(16)', (col) => col.notNull())
      .addColumn('reference', 'varchar(64)', (col) => col.notNull())
      .addColumn('idempotency_key', 'varchar(255)')
      .addColumn('idempotency_started_at', 'bigint')
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('lease_expires_at', 'bigint', (col) => col.notNull()),
  ).execute();
  await db.schema.createIndex('charge_holds_lease').on('charge_holds').columns(['lease_expires_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('charge_holds').execute();
}
