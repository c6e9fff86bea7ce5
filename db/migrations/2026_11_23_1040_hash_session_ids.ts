import type { Kysely } from 'kysely';

// Sessions are now looked up by the SHA-256 (hex, 64 characters: the column's width) of the identity token, so a
// copy of this table signs nobody in. Rows written before hold plaintext tokens that no lookup can match any more:
// they are removed, and everyone signs in once again.
export async function up(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('sessions').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  // Hashed ids cannot be turned back into tokens; the older code would simply find no session for anyone.
  await db.deleteFrom('sessions').execute();
}
