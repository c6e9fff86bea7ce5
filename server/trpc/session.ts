import { createHash } from 'node:crypto';
import type { Session } from 'lucia';
import { bearerToken } from '../auth/bearer.js';
import { sessionIdHash } from '../auth/lucia-adapter.js';
import { sessionCookieHeader } from '../auth/session-cookie.js';
import type { AuditOrigin } from '../domain/audit/audit.js';
import { SUSPENDED_MESSAGE } from '../domain/keys/credential.js';
import { type SessionOrigin, touchSession } from '../domain/security/sessions.js';
import { membershipOf, notAMember, switchAccount } from '../domain/teams/memberships.js';
import { forbiddenForRole, roleAllows, rolesFor } from '../domain/teams/roles.js';
import { AppError, AUTH_MESSAGES, UNKNOWN_ENDPOINT_MESSAGE } from '../errors.js';
import { type Context, publicProcedure } from './setup.js';
import { spendAttempt } from './throttles.js';

export type VerifiedSession = Awaited<ReturnType<typeof checkSession>>;

/**
 * Identity token: a dashboard session id, as a Bearer token or the session cookie. An API key here is no credential.
 * Throws what the caller is told; `sessionProcedure` and `operatorProcedure` differ only in what they do with it.
 * The dashboard's calls of one page request share one verification.
 */
function verifySession(ctx: Context): Promise<VerifiedSession> {
  if (!ctx.dashboard) return checkSession(ctx);
  ctx.dashboard.session ??= checkSession(ctx);
  // Only this function fills the slot, and always with checkSession's promise (setup.ts does not know its type).
  return ctx.dashboard.session as Promise<VerifiedSession>;
}

async function checkSession(ctx: Context) {
  const { auth } = ctx.services;
  const bearer = bearerToken(ctx.headers);
  const sessionId = bearer ?? auth.readSessionCookie(ctx.headers.cookie ?? '');
  if (!sessionId || sessionId.startsWith('sk_')) {
    throw new AppError('authentication_required', AUTH_MESSAGES.session);
  }
  const { session, user } = await auth.validateSession(sessionId);
  if (!session) {
    if (!bearer) ctx.response.appendCookie(sessionCookieHeader(auth, null, { secure: ctx.secureTransport }));
    throw new AppError('authentication_required', AUTH_MESSAGES.session);
  }
  if (session.fresh && !bearer)
    ctx.response.appendCookie(sessionCookieHeader(auth, session.id, { secure: ctx.secureTransport }));
  const origin = sessionOriginOf(ctx);
  await touchSession(ctx.services.db, {
    token: session.id,
    lastSeenAt: session.lastSeenAt,
    origin,
    now: ctx.services.clock.now(),
  });
  // A session's own budget, like a key's: one identity token cannot run hundreds of reports a minute through the
  // API. The dashboard's calls are not counted: the page request they serve is the one that came in.
  if (!ctx.dashboard) {
    await spendAttempt(
      ctx,
      `session:${sessionBucketOf(session.id)}`,
      ctx.services.config.sessionRateLimitPerMinute,
      (limit, retry) => `This session is limited to ${limit} calls a minute. Retry in ${retry} s.`,
    );
  }
  // Checked on every request against the database, so a suspension or a removal reaches every node at once.
  const account = await currentAccountOf(ctx, session, user.id);
  ctx.request.accountId = account.id;
  // Who acts, for the audit log: the signed-in user, whichever account they act on.
  const audit: AuditOrigin = { actor: { type: 'user', id: user.id, label: user.email }, ...origin };
  const twoFactor = user.twoFactorEnabledAt !== null;
  // One rule for the console's pages, `me` and the operator endpoints: OPERATOR_EMAILS names them, once the address
  // is confirmed (by the holder of the password: server/domain/security/identity.ts) and two-factor sign-in is on.
  const operator =
    user.emailVerifiedAt !== null && twoFactor && ctx.services.config.operatorEmails.includes(user.email);
  const signedIn = { id: user.id, email: user.email, createdAt: user.createdAt, twoFactor, operator };
  const twoFactorMissing = account.require2fa && !twoFactor;
  return { session, audit, account, user: signedIn, twoFactorMissing, origin };
}

/**
 * For public procedures that answer more to the signed-in user (confirming an e-mail address): the session's user,
 * or null when the request carries no identity token that verifies. A fault of ours (the database) propagates.
 */
export async function signedInUserIdOf(ctx: Context): Promise<string | null> {
  if (!bearerToken(ctx.headers) && !ctx.services.auth.readSessionCookie(ctx.headers.cookie ?? '')) return null;
  try {
    return (await verifySession(ctx)).user.id;
  } catch (error) {
    if (error instanceof AppError) return null;
    throw error;
  }
}

/** The header that names the account one request acts on, instead of the session's current one. */
export const ACCOUNT_HEADER = 'roomstage-account';

/**
 * The account a session request acts on: the one `Roomstage-Account` names (a member's own only, else 404), or the
 * session's current account. A session whose user was removed from its account goes back to the personal one.
 */
async function currentAccountOf(ctx: Context, session: Session, userId: string) {
  const { db } = ctx.services;
  const header = ctx.headers[ACCOUNT_HEADER];
  const named = typeof header === 'string' ? header.trim().slice(0, 64) : '';
  if (named !== '' && named !== session.account?.id) {
    const account = await membershipOf(db, userId, named);
    if (!account) throw notAMember(named);
    const { id, name, role } = account;
    return { id, name, role, suspendedAt: account.suspended_at, require2fa: account.require_2fa === 1 };
  }
  if (session.account) {
    const { id, name, role, suspended_at, require_2fa } = session.account;
    return { id, name, role, suspendedAt: suspended_at, require2fa: require_2fa };
  }
  const personal = await switchAccount(db, { sessionHash: sessionIdHash(session.id), userId, accountId: userId });
  const row = await membershipOf(db, userId, personal.id);
  return { ...personal, suspendedAt: row?.suspended_at ?? null, require2fa: row?.require_2fa === 1 };
}

/**
 * What a member without two-factor sign-in is told on an account that requires it. Only the `user` procedures (their
 * own profile, password, two-factor setup, sessions, sign-out, their list of accounts and switching) still answer.
 */
export function twoFactorRequiredError(accountName: string): AppError {
  return new AppError(
    'two_factor_required',
    `The account ${accountName} requires two-factor sign-in of its members. Turn on two-factor sign-in for yourself (POST /api/v1/me/2fa/setup, then /api/v1/me/2fa/enable, or the Security page of the dashboard), then try again; or switch to another account.`,
  );
}

/**
 * Identity token, acting on the current account. Each procedure names in `meta.permission` what it needs of the
 * user's role there; this is the one place that checks it (403 `forbidden` with `required_roles`), and the one place
 * that refuses a member without two-factor sign-in on an account that requires it (403 `two_factor_required`),
 * except for the user's own things (`user`), which include turning two-factor sign-in on.
 */
export const sessionProcedure = publicProcedure
  .meta({ auth: 'session', builderErrors: ['not_found'] })
  .use(async ({ ctx, meta, path, next }) => {
    const { session, audit, account, user, twoFactorMissing } = await verifySession(ctx);
    const permission = meta?.permission;
    if (!permission) throw new Error(`Token procedure ${path} declares no permission in its meta`);
    // Checked on every request against the database, so a suspension reaches every node at once. A member can
    // still do their own things (`user`): switch to another account, sign out, their profile and sessions.
    if (account.suspendedAt !== null && permission !== 'user')
      throw new AppError('account_suspended', SUSPENDED_MESSAGE);
    if (twoFactorMissing && permission !== 'user') throw twoFactorRequiredError(account.name);
    if (!roleAllows(account.role, permission)) throw forbiddenForRole(account.role, rolesFor(permission));
    const result = await next({ ctx: { session, audit, account, user } });
    if (meta.changesSession && ctx.dashboard) ctx.dashboard.session = undefined;
    return result;
  });

/**
 * Operators: signed-in users whose verified e-mail is in OPERATOR_EMAILS and who have two-factor sign-in on, whatever
 * account their session is on (a suspended one included). Anyone else, signed in or not, gets the
 * body an unknown path gets, so the operator endpoints look nonexistent. `audit` names the operator.
 */
export const operatorProcedure = publicProcedure
  .meta({ auth: 'operator', builderErrors: ['not_found'] })
  .use(async ({ ctx, next }) => {
    const hidden = () => new AppError('not_found', UNKNOWN_ENDPOINT_MESSAGE);
    // A credential that does not verify is hidden too; a fault of ours (the database) is not.
    const verified = await verifySession(ctx).catch((error: unknown) => {
      if (error instanceof AppError) return null;
      throw error;
    });
    if (!verified) throw hidden();
    const { user, origin, session, account } = verified;
    if (!user.operator) throw hidden();
    const audit: AuditOrigin = { actor: { type: 'operator', id: user.id, label: user.email }, ...origin };
    return next({ ctx: { session, audit, account } });
  });

/** The client's address and User-Agent, as sessions and audit entries record them. */
export function sessionOriginOf(ctx: Pick<Context, 'clientIp' | 'headers'>): SessionOrigin {
  const userAgent = ctx.headers['user-agent'];
  return { ip: ctx.clientIp || null, userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 512) : null };
}

/** The limits table names buckets; a session's is a digest, so the table holds nothing that signs anyone in. */
function sessionBucketOf(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('base64url').slice(0, 22);
}
