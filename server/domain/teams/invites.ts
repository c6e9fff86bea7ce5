/** Invites: an e-mailed link to join an account in a role, accepted by the person it was sent to, or revoked. */
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
import { membershipOf } from './memberships.js';
import { type MemberActor, requireOwnerFor } from './roles.js';

export const INVITE_TTL_MS = 7 * 86_400_000;

export interface InviteView {
  id: string;
  email: string;
  role: Role;
  expires_at: string;
}

export function openInvites(db: Kysely<Database>, accountId: string, now: number) {
  return db
    .selectFrom('invites')
    .select(['id', 'email', 'role', 'expires_at'])
    .where('account_id', '=', accountId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now);
}

export const inviteView = (row: { id: string; email: string; role: Role; expires_at: number }): InviteView => ({
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
