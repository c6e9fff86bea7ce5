import type { Kysely } from 'kysely';

// An account can require two-factor sign-in of its members (PUT /api/v1/settings/security). A flag, 0/1 like the
// others, off for every existing account. One column on `accounts`, so the session check reads it in the query that
// already loads the account.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('require_2fa', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('require_2fa').execute();
}
