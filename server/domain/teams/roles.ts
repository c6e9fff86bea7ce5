import type { Role } from '../../../db/schema.js';
import { AppError } from '../../errors.js';
import type { AuditOrigin } from '../audit/audit.js';

export const ROLES = ['owner', 'admin', 'developer', 'billing', 'agent', 'viewer'] as const satisfies readonly Role[];

/**
 * What a Token procedure needs of the signed-in user's role in the account it acts on. Each procedure names one in
 * its meta (`permission`); sessionProcedure checks it against this one table, so no procedure body checks a role.
 * `user`: the signed-in user's own things (profile, password, two-factor, sessions, memberships), whatever the role.
 */
export const PERMISSIONS = {
  user: ROLES,
  /** Everything but the audit log: keys, webhooks, settings, billing, usage, ads. */
  read: ['owner', 'admin', 'developer', 'billing', 'viewer'],
  /** Claims, images and earnings: every role reads them. */
  read_claims: ROLES,
  read_audit: ['owner', 'admin'],
  /** Keys, webhooks, staging settings, the playground, ad products and campaigns. */
  develop: ['owner', 'admin', 'developer'],
  /** Checkout, the payment method, auto top-up, notifications, ad funds. */
  billing: ['owner', 'admin', 'billing'],
  /** Claims (preview, redeem), images, earnings and payouts. */
  redeem: ['owner', 'admin', 'agent'],
  /** Members, invites and account security settings (admins may not touch owners: requireOwnerFor below). */
  manage_members: ['owner', 'admin'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as [Permission, ...Permission[]];

export function rolesFor(permission: Permission): readonly Role[] {
  return PERMISSIONS[permission];
}

export function roleAllows(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** The one 403 for a role that may not do something: the §1 body plus the roles that may. */
export function forbiddenForRole(role: Role, requiredRoles: readonly Role[], action = 'call this operation'): AppError {
  return new AppError(
    'forbidden',
    `Your role in this account (${role}) may not ${action}: it needs ${requiredRoles.join(' or ')}. Ask an owner or admin of the account.`,
    { required_roles: [...requiredRoles] },
  );
}

/** Who changes the members: the signed-in user and their role in the account. */
export interface MemberActor {
  userId: string;
  role: Role;
  origin: AuditOrigin;
}

const OWNERS_ONLY: readonly Role[] = ['owner'];

/** Admins may do everything but touch owners: making, changing, removing or inviting one is the owners' alone. */
export function requireOwnerFor(actor: MemberActor, ...roles: Role[]) {
  if (actor.role !== 'owner' && roles.includes('owner'))
    throw forbiddenForRole(actor.role, OWNERS_ONLY, 'change owners or make someone an owner');
}
