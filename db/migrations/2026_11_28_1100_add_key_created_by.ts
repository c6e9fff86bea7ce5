import type { Kysely } from 'kysely';

/*
 * Who created each API key (a user id; null for keys made before this, with no audit entry to tell), so the key list
 * can name the person behind a key and removing a member can offer to revoke the keys they made. Earlier keys take
 * it from their `key.created` audit entry where one is kept.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('created_by', 'varchar(64)').execute();
  await db.schema
    .createIndex('api_keys_account_created_by')
    .on('api_keys')
    .columns(['account_id', 'created_by'])
    .execute();
  const created = await db
    .selectFrom('audit_log')
    .select(['target', 'actor_id'])
    .where('action', '=', 'key.created')
    .where('actor_type', '=', 'user')
    .execute();
  for (const { target, actor_id } of created as Array<{ target: string | null; actor_id: string }>) {
    const id = Number(/^key_(\d+)$/.exec(target ?? '')?.[1]);
    if (Number.isInteger(id) && id > 0)
      await db.updateTable('api_keys').set({ created_by: actor_id }).where('id', '=', id).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('api_keys_account_created_by').on('api_keys').execute();
  await db.schema.alterTable('api_keys').dropColumn('created_by').execute();
}
