import type { Kysely } from 'kysely';
import { tableOptions } from '../migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  // Idempotency-Key records: one per (API key, client key), kept 24 hours.
  await tableOptions(
    db,
    db.schema
      .createTable('idempotency_keys')
      .addColumn('key_id', 'bigint', (col) => col.notNull())
      .addColumn('idempotency_key', 'varchar(255)', (col) => col.notNull())
      .addColumn('fingerprint', 'char(64)', (col) => col.notNull())
      .addColumn('status', 'varchar(16)', (col) => col.notNull())
      .addColumn('response_body', 'text')
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['key_id', 'idempotency_key']),
  ).execute();

  // Image operations in flight per API key, as leases so a crashed process cannot hold a slot for ever.
  await tableOptions(
    db,
    db.schema
      .createTable('image_operation_leases')
      .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
      .addColumn('key_id', 'bigint', (col) => col.notNull())
      .addColumn('expires_at', 'bigint', (col) => col.notNull()),
  ).execute();
  await db.schema
    .createIndex('image_operation_leases_key')
    .on('image_operation_leases')
    .columns(['key_id', 'expires_at'])
    .execute();

  // Requests a minute per API key: one fixed-window counter row per key, shared by every server process.
  await tableOptions(
    db,
    db.schema
      .createTable('rate_limit_windows')
      .addColumn('bucket', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('window_start', 'bigint', (col) => col.notNull())
      .addColumn('hits', 'integer', (col) => col.notNull()),
  ).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_limit_windows').execute();
  await db.schema.dropTable('image_operation_leases').execute();
  await db.schema.dropTable('idempotency_keys').execute();
}
