import type { Kysely } from 'kysely';

/*
 * Each image keeps how long the engine call that drew it took, in milliseconds, so the operator's fleet report can
 * give the engine's p50 and p95 per day from SQL counts (a histogram of these values), on every node's images alike.
 * Null: made before this was recorded.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('images').addColumn('engine_ms', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('images').dropColumn('engine_ms').execute();
}
