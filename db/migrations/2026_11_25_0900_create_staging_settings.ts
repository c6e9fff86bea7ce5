import type { Kysely } from 'kysely';
import { tableOptions } from '../migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  // An account's staging defaults, one row once it saves any (no row: the defaults). `disclosure` names a profile
  // (today `none` or `label`, the "Virtually staged" mark), so more profiles and more defaults fit without a change.
  await tableOptions(
    db,
    db.schema
      .createTable('staging_settings')
      .addColumn('account_id', 'varchar(40)', (col) => col.primaryKey().references('accounts.id').onDelete('cascade'))
      .addColumn('disclosure', 'varchar(32)', (col) => col.notNull())
      .addColumn('updated_at', 'bigint', (col) => col.notNull()),
  ).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('staging_settings').execute();
}
