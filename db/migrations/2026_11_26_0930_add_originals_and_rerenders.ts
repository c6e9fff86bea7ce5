import type { Kysely } from 'kysely';
import { dropIndex } from '../migration-helpers.js';

/*
 * Staged, decluttered and placed images get a public page of their original (`original_token`, random, unique), the
 * disclosure profile and seed they were drawn with, and what re-rendering needs: the image a re-render started from
 * (`rerender_of`, always the first image of the line) and how many free re-renders that first image has used.
 * A claim remembers the style and seed its first stage used, so later stages into it look alike.
 * SQLite adds one column per ALTER TABLE, so each is its own statement.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('images').addColumn('original_token', 'varchar(64)').execute();
  await db.schema.alterTable('images').addColumn('disclosure', 'varchar(32)').execute();
  await db.schema.alterTable('images').addColumn('seed', 'bigint').execute();
  await db.schema.alterTable('images').addColumn('rerender_of', 'varchar(40)').execute();
  await db.schema
    .alterTable('images')
    .addColumn('free_rerenders_used', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('images_original_token').unique().on('images').column('original_token').execute();
  await db.schema.alterTable('claims').addColumn('style', 'varchar(32)').execute();
  await db.schema.alterTable('claims').addColumn('seed', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await dropIndex(db, 'images_original_token', 'images').execute();
  for (const column of ['original_token', 'disclosure', 'seed', 'rerender_of', 'free_rerenders_used'])
    await db.schema.alterTable('images').dropColumn(column).execute();
  for (const column of ['style', 'seed']) await db.schema.alterTable('claims').dropColumn(column).execute();
}
