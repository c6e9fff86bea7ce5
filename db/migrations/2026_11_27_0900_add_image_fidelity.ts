import type { Kysely } from 'kysely';

/*
 * Each staged, decluttered or re-rendered image keeps the fidelity score it passed with (0–1: how much of the input's structure it kept), so the
 * claim, the gallery and a job's result list it as the first response did. Null: not checked (enhanced and placed
 * images, and images made before the check).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('images').addColumn('fidelity', 'double precision').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('images').dropColumn('fidelity').execute();
}
