/** An account's side of teams: its members, their roles, and removing one (with the keys they created). */
import type { Kysely } from 'kysely';
import type { Db } from '../../../db/client.js';
import type { Database, Role } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { iso } from '../../clock.js';
import { AppError } from '../../errors.js';
import { lockAccount } from '../accounts/accounts.js';
import { recordAudit } from '../audit/audit.js';
import { inviteView, openInvites } from './invites.js';
import { type MemberActor, requireOwnerFor } from './roles.js';

export interface MemberView {
  user_id: string;
  email: string;
  role: Role;
  joined_at: string;
}

async function memberView(db: Kysely<Database>, accountId: string, userId: string): Promise<MemberView | undefined> {
  const row = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['memberships.user_id', 'users.email', 'memberships.role', 'memberships.created_at'])
    .where('memberships.account_id', '=', accountId)
    .where('memberships.user_id', '=', userId)
    .executeTakeFirst();
  return row && { user_id: row.user_id, email: row.email, role: row.role, joined_at: iso(row.created_at) };
}

/** Members, oldest first, and the invites still open (not accepted, revoked or expired). */
export async function listMembers(db: Kysely<Database>, input: { accountId: string; now: number }) {
  const members = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['memberships.user_id', 'users.email', 'memberships.role', 'memberships.created_at'])
    .where('memberships.account_id', '=', input.accountId)
    .orderBy('memberships.created_at')
    .orderBy('users.email')
    .execute();
  const invites = await openInvites(db, input.accountId, input.now).orderBy('created_at', 'desc').execute();
  const working = await workingKeysByCreator(db, input);
  return {
    members: members.map((m) => ({
      user_id: m.user_id,
      email: m.email,
      role: m.role,
      joined_at: iso(m.created_at),
      working_keys: working.get(m.user_id) ?? 0,
    })),
    invites: invites.map(inviteView),
  };
}

/** Per member: how many of the account's keys they created still work (not revoked, not expired). */
async function workingKeysByCreator(db: Kysely<Database>, input: { accountId: string; now: number }) {
  const rows = await db
    .selectFrom('api_keys')
    .select(['created_by', (eb) => eb.fn.countAll<number>().as('working')])
    .where('account_id', '=', input.accountId)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', input.now)]))
    .where('created_by', 'is not', null)
    .groupBy('created_by')
    .execute();
  return new Map(rows.map((row) => [row.created_by as string, Number(row.working)]));
}

/** The member's row under the account's lock; 404 when they are not a member. */
async function lockedMember(trx: Kysely<Database>, accountId: string, userId: string) {
  await lockAccount(trx, accountId);
  const member = await memberView(trx, accountId, userId);
  if (!member) throw new AppError('not_found', `No member ${userId} in this account.`);
  return member;
}

/** Refuses a change that would leave the account without an owner (409). Call under the account's lock. */
async function keepAnOwner(trx: Kysely<Database>, accountId: string, member: MemberView) {
  if (member.role !== 'owner') return;
  const owners = await trx
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  if (Number(owners.n) <= 1)
    throw new AppError(
      'conflict',
      'The last owner of an account cannot be removed or demoted: make another owner first.',
    );
}

export async function changeMemberRole(
  db: Db,
  input: { accountId: string; userId: string; role: Role; actor: MemberActor; now: number },
): Promise<MemberView> {
  return inTransaction(db, async (trx) => {
    const member = await lockedMember(trx, input.accountId, input.userId);
    requireOwnerFor(input.actor, member.role, input.role);
    if (member.role === input.role) return member;
    if (input.role !== 'owner') await keepAnOwner(trx, input.accountId, member);
    await trx
      .updateTable('memberships')
      .set({ role: input.role })
      .where('account_id', '=', input.accountId)
      .where('user_id', '=', input.userId)
      .execute();
    await recordAudit(trx, {
      accountId: input.accountId,
      action: 'member.role_changed',
      origin: input.actor.origin,
      target: input.userId,
      details: { email: member.email, from: member.role, to: input.role },
      now: input.now,
    });
    return { ...member, role: input.role };
  });
}

/**
 * Removes a member; every session of theirs acting on the account goes back to their personal account in the same
 * transaction, and each request checks the membership anyway. Nobody is removed from their own personal account.
 */
/**
 * Removes a member; their sessions lose the account at once. `revokeKeys`: the account's keys they created are
 * revoked in the same transaction, each with its `key.revoked` audit entry (they may have copied them).
 */
export async function removeMember(
  db: Db,
  input: { accountId: string; userId: string; revokeKeys?: boolean; actor: MemberActor; now: number },
): Promise<{ removed: true; keys_revoked: number }> {
  return inTransaction(db, async (trx) => {
    const member = await lockedMember(trx, input.accountId, input.userId);
    requireOwnerFor(input.actor, member.role);
    await keepAnOwner(trx, input.accountId, member);
    if (input.userId === input.accountId)
      throw new AppError('conflict', 'This is the member’s personal account: they cannot be removed from it.');
    await trx
      .deleteFrom('memberships')
      .where('account_id', '=', input.accountId)
      .where('user_id', '=', input.userId)
      .execute();
    await trx
      .updateTable('sessions')
      .set({ account_id: input.userId })
      .where('user_id', '=', input.userId)
      .where('account_id', '=', input.accountId)
      .execute();
    const revoked = input.revokeKeys ? await revokeKeysCreatedBy(trx, input) : [];
    await recordAudit(trx, {
      accountId: input.accountId,
      action: 'member.removed',
      origin: input.actor.origin,
      target: input.userId,
      details: { email: member.email, role: member.role, keys_revoked: revoked.length },
      now: input.now,
    });
    return { removed: true as const, keys_revoked: revoked.length };
  });
}

/** Revokes the account's unrevoked keys that `userId` created, each audited as `key.revoked`. Call in a transaction. */
async function revokeKeysCreatedBy(
  trx: Kysely<Database>,
  input: { accountId: string; userId: string; actor: MemberActor; now: number },
) {
  const keys = await trx
    .selectFrom('api_keys')
    .select(['id', 'name', 'prefix'])
    .where('account_id', '=', input.accountId)
    .where('created_by', '=', input.userId)
    .where('revoked_at', 'is', null)
    .execute();
  for (const key of keys) {
    await trx.updateTable('api_keys').set({ revoked_at: input.now }).where('id', '=', key.id).execute();
    await recordAudit(trx, {
      accountId: input.accountId,
      action: 'key.revoked',
      origin: input.actor.origin,
      target: `key_${key.id}`,
      details: { name: key.name, prefix: key.prefix, reason: 'creator_removed' },
      now: input.now,
    });
  }
  return keys;
}
