import type { Kysely } from 'kysely';
import { tableOptions } from '../migration-helpers.js';

/*
 * A password reset is asked for in one row written before the answer, the same whatever the address; the token and
 * the message (for a registered address only) are prepared after the answer. A process that dies in between leaves
 * the row, and any process prepares it. `claimed_until` is when the row is due: at once, or when the lease of the
 * process preparing it runs out.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await tableOptions(
    db,
    db.schema
      .createTable('password_reset_requests')
      .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
      .addColumn('email', 'varchar(254)', (col) => col.notNull())
      .addColumn('requested_at', 'bigint', (col) => col.notNull())
      .addColumn('claimed_until', 'bigint', (col) => col.notNull()),
  ).execute();
  await db.schema
    .createIndex('password_reset_requests_due')
    .on('password_reset_requests')
    .column('claimed_until')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('password_reset_requests').execute();
}
