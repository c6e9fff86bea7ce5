import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Db } from '../../../db/client.js';
import { isUniqueViolation } from '../../../db/errors.js';
import type { Database, Role } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { iso } from '../../clock.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { lockAccount, normalizeEmail } from '../accounts/accounts.js';
import { type AuditOrigin, recordAudit } from '../audit/audit.js';
import { inviteMessage } from '../mail/messages.js';
import { enqueueMail } from '../mail/outbox.js';
import { requireVerifiedEmail } from '../security/identity.js';
import { hashSecret } from '../security/tokens.js';
import { forbiddenForRole } from './roles.js';

export const INVITE_TTL_MS = 7 * 86_400_000;

/** Who changes the members: the signed-in user and their role in the account. */
export interface MemberActor {
  userId: string;
  role: Role;
  origin: AuditOrigin;
}

export interface MemberView {
  user_id: string;
  email: string;
  role: Role;
  joined_at: string;
}

export interface InviteView {
  id: string;
  email: string;
  role: Role;
  expires_at: string;
}

const OWNERS_ONLY: readonly Role[] = ['owner'];

/** Admins may do everything but touch owners: making, changing, removing or inviting one is the owners' alone. */
function requireOwnerFor(actor: MemberActor, ...roles: Role[]) {
  if (actor.role !== 'owner' && roles.includes('owner'))
    throw forbiddenForRole(actor.role, OWNERS_ONLY, 'change owners or make someone an owner');
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

function openInvites(db: Kysely<Database>, accountId: string, now: number) {
  return db
    .selectFrom('invites')
    .select(['id', 'email', 'role', 'expires_at'])
    .where('account_id', '=', accountId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now);
}

const inviteView = (row: { id: string; email: string; role: Role; expires_at: number }): InviteView => ({
  id: row.id,
  email: row.email,
  role: row.role,
  expires_at: iso(row.expires_at),
});

/**
 * Invites an e-mail address: the invite (its token only as a hash), the e-mail with the link and the audit entry
 * commit together. A new invite to the same address replaces the open one; a member cannot be invited again (409).
 */
export async function inviteMember(
  db: Db,
  input: {
    accountId: string;
    actor: MemberActor & { email: string };
    email: string;
    role: Role;
    links: { publicBaseUrl: string };
    now: number;
  },
): Promise<InviteView> {
  const { actor, now } = input;
  requireOwnerFor(actor, input.role);
  await requireVerifiedEmail(db, actor.userId);
  const email = normalizeEmail(input.email);
  return inTransaction(db, async (trx) => {
    await lockAccount(trx, input.accountId);
    const member = await trx
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .select('users.id')
      .where('memberships.account_id', '=', input.accountId)
      .where('users.email', '=', email)
      .executeTakeFirst();
    if (member) throw new AppError('conflict', `${email} is a member of this account already.`);
    // A new invite replaces the open one, which revokes it: that needs the rights revoking it needs (an admin may
    // not cancel an owner's invite by inviting the same address again with another role).
    const open = await trx
      .selectFrom('invites')
      .select('role')
      .where('account_id', '=', input.accountId)
      .where('email', '=', email)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .execute();
    for (const replaced of open) requireOwnerFor(actor, replaced.role);
    await trx
      .updateTable('invites')
      .set({ revoked_at: now })
      .where('account_id', '=', input.accountId)
      .where('email', '=', email)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .execute();
    const token = randomBytes(32).toString('base64url');
    const invite = { id: newId('invite'), email, role: input.role, expires_at: now + INVITE_TTL_MS };
    await trx
      .insertInto('invites')
      .values({
        ...invite,
        account_id: input.accountId,
        token_hash: hashSecret(token),
        invited_by: actor.userId,
        created_at: now,
        accepted_at: null,
        accepted_by: null,
        revoked_at: null,
      })
      .execute();
    const account = await trx
      .selectFrom('accounts')
      .select('name')
      .where('id', '=', input.accountId)
      .executeTakeFirstOrThrow();
    await enqueueMail(trx, {
      to: email,
      mail: inviteMessage({
        inviter: actor.email,
        accountName: account.name,
        role: input.role,
        url: `${input.links.publicBaseUrl}/invite?token=${encodeURIComponent(token)}`,
      }),
      now,
    });
    await recordAudit(trx, {
      accountId: input.accountId,
      action: 'member.invited',
      origin: actor.origin,
      target: invite.id,
      details: { email, role: input.role },
      now,
    });
    return inviteView(invite);
  });
}

const INVITE_INVALID =
  'This invitation is invalid, used, revoked or expired. Ask the account’s owner or admin for a new one.';

/**
 * Joins the account of an invite. The signed-in user's e-mail must be the invited one; one conditional update spends
 * the invite, so two requests with it (or two invites of one user) never both join. Following the e-mailed link
 * also proves the address, as a reset link does.
 */
export async function acceptInvite(
  db: Db,
  input: { token: string; user: { id: string; email: string }; origin: AuditOrigin; now: number },
): Promise<{ account_id: string; role: Role }> {
  const { now, user } = input;
  const tokenHash = hashSecret(input.token);
  return inTransaction(db, async (trx) => {
    const invite = await trx
      .selectFrom('invites')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (!invite) throw new AppError('not_found', INVITE_INVALID);
    if (invite.email !== user.email)
      throw new AppError(
        'forbidden',
        'This invitation was sent to another e-mail address: sign in with that address to accept it.',
      );
    if (await membershipOf(trx, user.id, invite.account_id))
      throw new AppError('conflict', 'You are a member of this account already.');
    const spent = await trx
      .updateTable('invites')
      .set({ accepted_at: now, accepted_by: user.id })
      .where('id', '=', invite.id)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (Number(spent.numUpdatedRows) !== 1) throw new AppError('not_found', INVITE_INVALID);
    try {
      await trx
        .insertInto('memberships')
        .values({ account_id: invite.account_id, user_id: user.id, role: invite.role, created_at: now })
        .execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('conflict', 'You are a member of this account already.');
      throw error;
    }
    await trx
      .updateTable('user_security')
      .set({ email_verified_at: now })
      .where('user_id', '=', user.id)
      .where('email_verified_at', 'is', null)
      .execute();
    await recordAudit(trx, {
      accountId: invite.account_id,
      action: 'member.joined',
      origin: input.origin,
      target: user.id,
      details: { email: user.email, role: invite.role, invite: invite.id },
      now,
    });
    return { account_id: invite.account_id, role: invite.role };
  });
}

/** Revokes an open invite; revoking a revoked one answers the same again. An accepted invite cannot be revoked (409). */
export async function revokeInvite(
  db: Db,
  input: { accountId: string; inviteId: string; actor: MemberActor; now: number },
): Promise<{ id: string; revoked: true }> {
  return inTransaction(db, async (trx) => {
    const invite = await trx
      .selectFrom('invites')
      .select(['id', 'email', 'role', 'accepted_at', 'revoked_at'])
      .where('id', '=', input.inviteId)
      .where('account_id', '=', input.accountId)
      .executeTakeFirst();
    if (!invite) throw new AppError('not_found', `No invite ${input.inviteId} in this account.`);
    requireOwnerFor(input.actor, invite.role);
    if (invite.accepted_at !== null) throw new AppError('conflict', 'This invite was accepted already.');
    if (invite.revoked_at === null) {
      await trx.updateTable('invites').set({ revoked_at: input.now }).where('id', '=', invite.id).execute();
      await recordAudit(trx, {
        accountId: input.accountId,
        action: 'member.invite_revoked',
        origin: input.actor.origin,
        target: invite.id,
        details: { email: invite.email, role: invite.role },
        now: input.now,
      });
    }
    return { id: invite.id, revoked: true as const };
  });
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
