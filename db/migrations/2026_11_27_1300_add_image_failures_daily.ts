import type { Kysely } from 'kysely';
import { tableOptions } from '../migration-helpers.js';

/*
 * Image requests that failed, counted per UTC day, engine and error code (engine_unavailable, engine_rejected,
 * structure_changed, internal_error): synchronous requests and jobs alike, so the operator's fleet report can give
 * each engine's outcomes and failure rate from SQL sums. A failed request stores no image, so the images table
 * cannot tell.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await tableOptions(
    db,
    db.schema
      .createTable('image_failures_daily')
      .addColumn('day', 'integer', (col) => col.notNull())
      .addColumn('engine', 'varchar(32)', (col) => col.notNull())
      .addColumn('code', 'varchar(64)', (col) => col.notNull())
      .addColumn('failures', 'bigint', (col) => col.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('image_failures_daily_pk', ['day', 'engine', 'code']),
  ).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('image_failures_daily').execute();
}
