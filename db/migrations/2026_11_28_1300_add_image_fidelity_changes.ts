import type { Kysely } from 'kysely';

/*
 * Each checked image keeps what its fidelity check found changed, as JSON `[{kind, box: [x, y, width, height]}]` in
 * the photo's pixels, so the claim, the gallery and a job's result name the same regions as the first response and
 * the dashboard can outline them. Null: not checked, or checked before changes were reported.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('images').addColumn('fidelity_changes', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('images').dropColumn('fidelity_changes').execute();
}
