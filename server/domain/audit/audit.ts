import type { Kysely } from 'kysely';
import type { AuditActorType, AuditEntry, Database } from '../../../db/schema.js';
import { iso } from '../../clock.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';

export const AUDIT_ACTIONS = [
  'user.signed_in',
  'user.sign_in_failed',
  'user.password_changed',
  'user.password_reset',
  'user.2fa_enabled',
  'user.2fa_disabled',
  'key.created',
  'key.revoked',
  'webhook.updated',
  'webhook.secret_rotated',
  'settings.updated',
  'billing.purchase',
  'billing.payment_method_removed',
  'member.invited',
  'member.invite_revoked',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'payout.requested',
  'ads.funds_purchased',
  'ads.product_created',
  'ads.campaign_created',
  'ads.campaign_updated',
  'operator.credits_adjusted',
  'operator.ad_funds_adjusted',
  'operator.purchase_refunded',
  'operator.account_suspended',
  'operator.account_unsuspended',
  'operator.product_rejected',
  'operator.product_restored',
  'operator.payout_paid',
  'operator.payout_rejected',
  'operator.invalid_traffic_declared',
  'operator.earnings_taken_back',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Details are flat JSON: what changed, readable without knowing the schema of the change. */
export type AuditDetails = Record<string, string | number | boolean | null | string[]>;

export interface AuditActor {
  type: AuditActorType;
  id: string;
  /** What a person recognises: an e-mail address, a key's prefix. */
  label: string;
}

/** Who made a change and from where: built once per request, handed to every domain function that audits. */
export interface AuditOrigin {
  actor: AuditActor;
  ip: string | null;
  userAgent: string | null;
}

/** An operator's change: who made it, why, and when. Every operator change carries these. */
export interface OperatorChange {
  origin: AuditOrigin;
  reason: string;
  now: number;
}

/** A change made by no request (a Stripe event, a background top-up) is attributed to the account's own user. */
export function systemOrigin(account: { id: string; email: string }): AuditOrigin {
  return { actor: { type: 'user', id: account.id, label: account.email }, ip: null, userAgent: null };
}

/** Changes made from a shell (`npm run admin`): an operator with no user behind it. */
export const CLI_ORIGIN: AuditOrigin = {
  actor: { type: 'operator', id: 'cli', label: 'cli' },
  ip: null,
  userAgent: null,
};

/** Written in the caller's transaction, so the entry exists exactly when the change it records does. */
export async function recordAudit(
  trx: Kysely<Database>,
  input: {
    accountId: string;
    action: AuditAction;
    origin: AuditOrigin;
    target?: string | null;
    details?: Partial<AuditDetails>;
    now: number;
  },
): Promise<void> {
  await trx
    .insertInto('audit_log')
    .values({
      public_id: newId('audit'),
      account_id: input.accountId,
      action: input.action,
      actor_type: input.origin.actor.type,
      actor_id: input.origin.actor.id,
      actor_label: input.origin.actor.label.slice(0, 254),
      ip: input.origin.ip?.slice(0, 64) ?? null,
      user_agent: input.origin.userAgent?.slice(0, 512) ?? null,
      target: input.target ?? null,
      details: JSON.stringify(input.details ?? {}),
      created_at: input.now,
    })
    .execute();
}

export interface AuditView {
  id: string;
  action: string;
  actor: { type: AuditActorType; id: string; label: string };
  ip: string | null;
  user_agent: string | null;
  target: string | null;
  details: AuditDetails;
  created_at: string;
}

function present(row: AuditEntry): AuditView {
  return {
    id: row.public_id,
    action: row.action,
    actor: { type: row.actor_type, id: row.actor_id, label: row.actor_label },
    ip: row.ip,
    user_agent: row.user_agent,
    target: row.target,
    details: JSON.parse(row.details) as AuditDetails,
    created_at: iso(row.created_at),
  };
}

/** Newest first; `startingAfter` is the id of the last entry of the previous page. */
export async function listAudit(
  db: Kysely<Database>,
  input: { accountId: string; limit: number; startingAfter?: string; action?: string; actor?: string },
): Promise<{ entries: AuditView[]; has_more: boolean }> {
  let query = db.selectFrom('audit_log').selectAll().where('account_id', '=', input.accountId);
  if (input.startingAfter) {
    const cursor = await db
      .selectFrom('audit_log')
      .select('id')
      .where('public_id', '=', input.startingAfter)
      .where('account_id', '=', input.accountId)
      .executeTakeFirst();
    if (!cursor) throw new AppError('not_found', `No audit log entry ${input.startingAfter} in this account.`);
    query = query.where('id', '<', cursor.id);
  }
  if (input.action) query = query.where('action', '=', input.action);
  const { actor } = input;
  if (actor) query = query.where((eb) => eb.or([eb('actor_id', '=', actor), eb('actor_label', '=', actor)]));
  const rows = await query
    .orderBy('id', 'desc')
    .limit(input.limit + 1)
    .execute();
  return { entries: rows.slice(0, input.limit).map(present), has_more: rows.length > input.limit };
}
