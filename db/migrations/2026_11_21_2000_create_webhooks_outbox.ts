import type { Kysely } from 'kysely';
import { tableOptions } from '../migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  // One webhook configuration per API key.
  await tableOptions(
    db,
    db.schema
      .createTable('webhooks')
      .addColumn('key_id', 'bigint', (col) => col.primaryKey().references('api_keys.id').onDelete('cascade'))
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('url', 'varchar(2048)')
      .addColumn('enabled', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('secret', 'varchar(64)')
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('updated_at', 'bigint', (col) => col.notNull()),
  ).execute();
  await db.schema.createIndex('webhooks_account_id').on('webhooks').column('account_id').execute();

  // The outbox: an event and the exact bytes that are signed and sent on every attempt.
  await tableOptions(
    db,
    db.schema
      .createTable('webhook_events')
      .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('key_id', 'bigint')
      .addColumn('event', 'varchar(64)', (col) => col.notNull())
      .addColumn('payload', 'text', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull()),
  ).execute();
  await db.schema
    .createIndex('webhook_events_account_id')
    .on('webhook_events')
    .columns(['account_id', 'created_at'])
    .execute();

  // One delivery per (event, receiving webhook); the worker leases due rows with locked_until.
  await tableOptions(
    db,
    db.schema
      .createTable('webhook_deliveries')
      .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
      .addColumn('event_id', 'varchar(40)', (col) => col.notNull().references('webhook_events.id').onDelete('cascade'))
      .addColumn('key_id', 'bigint', (col) => col.notNull().references('webhooks.key_id').onDelete('cascade'))
      .addColumn('status', 'varchar(16)', (col) => col.notNull())
      .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint')
      .addColumn('locked_until', 'bigint')
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'varchar(500)')
      .addColumn('delivered_at', 'bigint')
      .addColumn('created_at', 'bigint', (col) => col.notNull()),
  ).execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_key')
    .on('webhook_deliveries')
    .columns(['key_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['webhook_deliveries', 'webhook_events', 'webhooks']) await db.schema.dropTable(table).execute();
}
