import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // What the engine drew over which original, so products can replace pieces in a clean re-render and a staged
  // output sent back in is staged from its original: the SHA-256 of the stored output bytes (to recognise them),
  // the original input kept under a storage name that is never served, and the scene as JSON.
  await db.schema.alterTable('images').addColumn('output_sha256', 'varchar(64)').execute();
  await db.schema.alterTable('images').addColumn('original_storage_name', 'varchar(128)').execute();
  await db.schema.alterTable('images').addColumn('scene', 'text').execute();
  await db.schema.createIndex('images_output_sha256').on('images').columns(['account_id', 'output_sha256']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('images_output_sha256').on('images').execute();
  for (const column of ['scene', 'original_storage_name', 'output_sha256'])
    await db.schema.alterTable('images').dropColumn(column).execute();
}
