import type { Kysely } from 'kysely';

/**
 * After a secret rotation deliveries are signed with both secrets for 24 h, so the replaced secret and
 * the end of its overlap are kept. `disabled_reason` says why Roomstage switched a webhook off (a 410 Gone).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').addColumn('previous_secret', 'varchar(64)').execute();
  await db.schema.alterTable('webhooks').addColumn('previous_secret_expires_at', 'bigint').execute();
  await db.schema.alterTable('webhooks').addColumn('disabled_reason', 'varchar(500)').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['disabled_reason', 'previous_secret_expires_at', 'previous_secret']) {
    await db.schema.alterTable('webhooks').dropColumn(column).execute();
  }
}
