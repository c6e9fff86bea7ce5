import type { Kysely } from 'kysely';
import { tableOptions } from '../migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  // The retention job deletes by age; without these it would scan whole tables on every run.
  await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_at').execute();
  await db.schema.createIndex('sessions_expires').on('sessions').column('expires_at').execute();
  await db.schema.createIndex('webhook_events_created').on('webhook_events').column('created_at').execute();
  await db.schema
    .createIndex('webhook_deliveries_event')
    .on('webhook_deliveries')
    .columns(['event_id', 'status'])
    .execute();
  await db.schema.createIndex('rate_limit_windows_window').on('rate_limit_windows').column('window_start').execute();

  // The last counted impression of each viewer of each placed image: at most one an hour counts, as the
  // docs/operators/scaling.md says. Rows older than an hour carry no information and are purged.
  await tableOptions(
    db,
    db.schema
      .createTable('impression_views')
      .addColumn('image_id', 'varchar(40)', (col) => col.notNull())
      .addColumn('viewer', 'char(32)', (col) => col.notNull())
      .addColumn('counted_at', 'bigint', (col) => col.notNull())
      .addPrimaryKeyConstraint('impression_views_pk', ['image_id', 'viewer']),
  ).execute();
  await db.schema.createIndex('impression_views_counted').on('impression_views').column('counted_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('impression_views').execute();
  await db.schema.dropIndex('rate_limit_windows_window').on('rate_limit_windows').execute();
  await db.schema.dropIndex('webhook_deliveries_event').on('webhook_deliveries').execute();
  await db.schema.dropIndex('webhook_events_created').on('webhook_events').execute();
  await db.schema.dropIndex('sessions_expires').on('sessions').execute();
  await db.schema.dropIndex('idempotency_keys_created').on('idempotency_keys').execute();
}
