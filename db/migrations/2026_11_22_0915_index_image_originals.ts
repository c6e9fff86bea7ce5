import type { Kysely } from 'kysely';

// Retention looks stored files up by the original's name too, so that originals kept to re-render from are never
// mistaken for orphans; the lookup needs an index like the one on storage_name.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('images_original_storage_name').on('images').column('original_storage_name').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('images_original_storage_name').on('images').execute();
}
