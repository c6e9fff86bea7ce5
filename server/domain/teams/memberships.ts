/** A user's side of teams: the accounts they belong to, their membership of one, and switching between them. */
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { AppError } from '../../errors.js';

/** The accounts a user belongs to, their personal one (the user's own id) first. */
export async function listAccountsOf(db: Kysely<Database>, userId: string) {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('accounts', 'accounts.id', 'memberships.account_id')
    .select(['accounts.id', 'accounts.name', 'memberships.role'])
    .where('memberships.user_id', '=', userId)
    .orderBy('memberships.created_at')
    .orderBy('accounts.id')
    .execute();
  return rows.sort((a, b) => Number(b.id === userId) - Number(a.id === userId));
}

/** The account `accountId` as its member `userId` sees it, or null when they are not a member (callers answer 404). */
export async function membershipOf(db: Kysely<Database>, userId: string, accountId: string) {
  const row = await db
    .selectFrom('memberships')
    .innerJoin('accounts', 'accounts.id', 'memberships.account_id')
    .select(['accounts.id', 'accounts.name', 'accounts.suspended_at', 'accounts.require_2fa', 'memberships.role'])
    .where('memberships.user_id', '=', userId)
    .where('memberships.account_id', '=', accountId)
    .executeTakeFirst();
  return row ?? null;
}

export function notAMember(accountId: string): AppError {
  return new AppError('not_found', `No account ${accountId} among the accounts you belong to.`);
}

/** Points the session of `sessionHash` at another of its user's accounts; 404 for an account they are not in. */
export async function switchAccount(
  db: Kysely<Database>,
  input: { sessionHash: string; userId: string; accountId: string },
) {
  const account = await membershipOf(db, input.userId, input.accountId);
  if (!account) throw notAMember(input.accountId);
  await db
    .updateTable('sessions')
    .set({ account_id: account.id })
    .where('id', '=', input.sessionHash)
    .where('user_id', '=', input.userId)
    .execute();
  return { id: account.id, name: account.name, role: account.role };
}
