import type { Kysely } from 'kysely';

// Operators can suspend an account: every credential of it is refused while `suspended_at` is set. Each image row
// now records the engine that drew it, so the fleet report can count images by engine (older rows stay null).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('suspended_at', 'bigint').execute();
  await db.schema.alterTable('images').addColumn('engine', 'varchar(32)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('images').dropColumn('engine').execute();
  await db.schema.alterTable('accounts').dropColumn('suspended_at').execute();
}
