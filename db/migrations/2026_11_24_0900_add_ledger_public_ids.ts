import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { dropIndex } from '../migration-helpers.js';

// Transaction ids were `txn_<row id>`: a new account's first entry told how busy the service is. Each entry now has
// a random public id; the row id stays the internal order. Rows written before get one here, in batches.
const BATCH = 500;

function publicId(): string {
  return `txn_${randomBytes(11).toString('hex')}`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('credit_ledger').addColumn('public_id', 'varchar(32)').execute();
  for (;;) {
    const rows = await db
      .selectFrom('credit_ledger')
      .select('id')
      .where('public_id', 'is', null)
      .limit(BATCH)
      .execute();
    if (rows.length === 0) break;
    for (const { id } of rows)
      await db.updateTable('credit_ledger').set({ public_id: publicId() }).where('id', '=', id).execute();
  }
  await db.schema.createIndex('credit_ledger_public_id').on('credit_ledger').column('public_id').unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await dropIndex(db, 'credit_ledger_public_id', 'credit_ledger').execute();
  await db.schema.alterTable('credit_ledger').dropColumn('public_id').execute();
}
