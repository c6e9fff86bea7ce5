import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { initTRPC, TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { answerWithoutProcedure } from './adapters/library-internals.js';
import { bearerToken } from './auth/bearer.js';
import { sessionCookieHeader } from './auth/session-cookie.js';
import type { Config } from './env.js';
import type { Services } from './services.js';
import {
  AppError,
  AUTH_MESSAGES,
  type ErrorCode,
  ERROR_CATALOG,
  UNKNOWN_ENDPOINT_MESSAGE,
  toErrorResponse,
} from './errors.js';
import type { ResponseControl } from './response-control.js';
import {
  apiKeyHashOf,
  authenticateApiKey,
  type KeyScope,
  lastKnownKeyId,
  type VerifiedApiKey,
} from './domain/keys/api-keys.js';
import { apiKeyRefusal, SUSPENDED_MESSAGE } from './domain/keys/credential.js';
import type { Session } from 'lucia';
import { sessionIdHash } from './auth/lucia-adapter.js';
import type { AuditOrigin } from './domain/audit/audit.js';
import { membershipOf, notAMember, switchAccount } from './domain/teams/members.js';
import { forbiddenForRole, type Permission, roleAllows, rolesFor } from './domain/teams/roles.js';
import { type SessionOrigin, touchSession } from './domain/security/sessions.js';
import {
  abandonIdempotentRequest,
  beginIdempotentRequest,
  completeIdempotentRequest,
  type IdempotencyClaim,
  parseIdempotencyKey,
  requestFingerprint,
} from './domain/idempotency/requests.js';
import { takeImageSlot } from './limits/image-admission.js';
import { log } from './observability/logger.js';
import type { RequestInfo } from './observability/request-log.js';

/** Long-lived things every request may use; built once per process in server/services.ts. */
export interface Context {
  services: Services;
  headers: IncomingHttpHeaders;
  response: ResponseControl;
  /** Files of a multipart image request, kept as Buffers and named in the input by reference. */
  uploads: ReadonlyMap<string, Buffer>;
  /** The API key an image upload already verified before buffering its body: checked once per request. */
  verifiedApiKey?: VerifiedApiKey;
  /** The request's id and, once a credential is checked, its account (for the request's log line). */
  request: RequestInfo;
  /** The client's address (behind a proxy: as TRUST_PROXY allows), for per-IP limits. */
  clientIp: string;
  /** Served over HTTPS (directly, via a trusted proxy's X-Forwarded-Proto, or PUBLIC_BASE_URL https): cookies get Secure. */
  secureTransport: boolean;
  /**
   * Set for the dashboard's own calls (server/main.ts), one object per page request: the session is verified once
   * for all the loaders and the action of that request, and those calls spend no API budget (they are not requests
   * that reach the API from outside; the page request is the one that came in).
   */
  dashboard?: DashboardRequest;
}

export interface DashboardRequest {
  session?: Promise<VerifiedSession>;
}

/** `operator`: an identity token of an operator; every other caller is told the endpoint does not exist (404). */
export type AuthKind = 'none' | 'session' | 'apiKey' | 'operator';
/**
 * `successStatus`: what the procedure answers when it sets a status other than 200 (the document says so).
 * `errors`: the error codes the procedure's own work can raise; `builderErrors`: those every procedure of a builder
 * can raise (set by the builder). The OpenAPI document adds what the credential and the HTTP method imply
 * (server/http/error-docs.ts), so a procedure declares only what is particular to it.
 */
export type Meta = OpenApiMeta<{
  auth?: AuthKind;
  successStatus?: 201 | 202;
  errors?: readonly ErrorCode[];
  builderErrors?: readonly ErrorCode[];
  /** API-key procedures: the scope a key needs to call it (checked once, in apiKeyProcedure). */
  scope?: KeyScope;
  /** Token procedures: what the user's role in the current account must allow (checked once, in sessionProcedure). */
  permission?: Permission;
  /**
   * Token procedures that change what a session verifies to (its account, its user's role or two-factor sign-in, the
   * session itself): the dashboard verifies the session again for the rest of that page request.
   */
  changesSession?: true;
}>;

const TRPC_CODE_BY_STATUS: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  410: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

function trpcCodeFor(code: ErrorCode): TRPC_ERROR_CODE_KEY {
  return TRPC_CODE_BY_STATUS[ERROR_CATALOG[code].status] ?? 'INTERNAL_SERVER_ERROR';
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // Every client (REST bridge, /trpc, dashboard) gets the JSON error body under data.contract; no stack traces.
    errorFormatter({ shape, error }) {
      const contract = toErrorResponse(error);
      return {
        ...shape,
        message: contract.body.message,
        data: { code: shape.data.code, httpStatus: contract.status, path: shape.data.path, contract },
      };
    },
  });

/** Domain errors become TRPCErrors with the matching code, keeping the AppError as the cause. */
const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: trpcCodeFor(cause.code), message: cause.message, cause });
  }
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

export const publicProcedure = t.procedure.use(domainErrors).meta({ auth: 'none' });

export type VerifiedSession = Awaited<ReturnType<typeof checkSession>>;

/**
 * Identity token: a dashboard session id, as a Bearer token or the session cookie. An API key here is no credential.
 * Throws what the caller is told; `sessionProcedure` and `operatorProcedure` differ only in what they do with it.
 * The dashboard's calls of one page request share one verification.
 */
function verifySession(ctx: Context): Promise<VerifiedSession> {
  if (!ctx.dashboard) return checkSession(ctx);
  ctx.dashboard.session ??= checkSession(ctx);
  return ctx.dashboard.session;
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

/**
 * API key: `Authorization: Bearer sk_live_…|sk_test_…`. Cookies and identity tokens are no credential here.
 * Every authenticated call counts against the key's requests-per-minute budget, reported in X-RateLimit-* headers.
 */
export const apiKeyProcedure = publicProcedure.meta({ auth: 'apiKey' }).use(async ({ ctx, meta, next }) => {
  const bearer = bearerToken(ctx.headers);
  const keyHash = bearer ? apiKeyHashOf(bearer) : null;
  if (!keyHash) throw apiKeyRefusal(null, 0, meta?.scope);
  const { db, clock, requestRateLimiter } = ctx.services;
  const now = clock.now();
  // A key seen before is counted against its budget while it is checked: two round trips at once instead of one
  // after the other. If the check then fails, that hit lands on a key that no longer works, which changes nothing.
  const knownId = lastKnownKeyId(db, keyHash);
  const verified = ctx.verifiedApiKey?.hash === keyHash ? ctx.verifiedApiKey.key : undefined;
  const [found, early] = await Promise.all([
    verified ?? authenticateApiKey(db, keyHash, now),
    knownId === undefined ? null : requestRateLimiter.consume(knownId, now),
  ]);
  if (found) ctx.request.accountId = found.accountId;
  // The one credential check (existence, expiry, suspension, the scope each API-key procedure names in meta), the
  // same the image upload pre-check ran before reading the body.
  const refusal = apiKeyRefusal(found, now, meta?.scope);
  if (refusal || !found) throw refusal;
  const apiKey = found;
  const rate = early && knownId === apiKey.id ? early : await requestRateLimiter.consume(apiKey.id, now);
  ctx.response.setHeader('X-RateLimit-Limit', String(rate.limit));
  ctx.response.setHeader('X-RateLimit-Remaining', String(rate.remaining));
  ctx.response.setHeader('X-RateLimit-Reset', String(rate.resetSeconds));
  if (!rate.allowed) {
    throw new AppError(
      'rate_limited',
      `This API key is limited to ${rate.limit} requests a minute. Retry in ${rate.resetSeconds} s.`,
      {},
      { 'Retry-After': String(rate.resetSeconds) },
    );
  }
  return next({ ctx: { apiKey } });
});

/** One hit on a named per-minute budget shared by every process; over it, 429 with Retry-After and `tooMany`'s words. */
/** The limits table names buckets; a session's is a digest, so the table holds nothing that signs anyone in. */
function sessionBucketOf(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('base64url').slice(0, 22);
}

async function spendAttempt(
  ctx: Context,
  bucket: string,
  perMinute: number,
  tooMany: (limit: number, retrySeconds: number) => string,
) {
  const { requestRateLimiter, clock } = ctx.services;
  const rate = await requestRateLimiter.consumeBucket(bucket, perMinute, clock.now());
  if (!rate.allowed)
    throw new AppError(
      'rate_limited',
      tooMany(rate.limit, rate.resetSeconds),
      {},
      { 'Retry-After': String(rate.resetSeconds) },
    );
}

/**
 * At most `perMinute(config)` calls a minute from one client IP to the procedures it guards, shared by every process
 * (the budget lives in the database). For endpoints that must not be probed in bulk, like claim codes.
 */
export function limitPerClientIp(purpose: string, perMinute: (config: Config) => number) {
  return t.middleware(async ({ ctx, next }) => {
    await spendAttempt(
      ctx,
      `${purpose}:${ctx.clientIp}`,
      perMinute(ctx.services.config),
      (limit, retry) => `Too many attempts from this address: at most ${limit} a minute. Retry in ${retry} s.`,
    );
    return next();
  });
}

/**
 * At most `perIp` attempts a minute from one address and `perEmail` for one e-mail address (the input's `email`),
 * so guessing one account's password from many addresses meets the second budget. The e-mail is hashed into the
 * bucket name: the limits table holds no addresses.
 */
function limitPerIpAndEmail(purpose: string, limits: (config: Config) => { perIp: number; perEmail: number }) {
  return t.middleware(async ({ ctx, getRawInput, next }) => {
    const { perIp, perEmail } = limits(ctx.services.config);
    await spendAttempt(
      ctx,
      `${purpose}-ip:${ctx.clientIp}`,
      perIp,
      (limit, retry) =>
        `Too many attempts from your network (at most ${limit} a minute). Please wait ${retry} s and try again.`,
    );
    const input = await getRawInput();
    const email =
      input && typeof input === 'object' && 'email' in input && typeof input.email === 'string'
        ? input.email.trim().toLowerCase()
        : '';
    if (email) {
      const digest = createHash('sha256').update(email).digest('hex').slice(0, 40);
      await spendAttempt(
        ctx,
        `${purpose}-email:${digest}`,
        perEmail,
        (limit, retry) =>
          `Too many attempts for this e-mail address (at most ${limit} a minute). Please wait ${retry} s and try again.`,
      );
    }
    return next();
  });
}

/** Sign-in and sign-up: SIGN_IN_LIMIT_PER_IP and SIGN_IN_LIMIT_PER_EMAIL attempts a minute. */
export const limitSignInAttempts = limitPerIpAndEmail('sign-in', (config) => config.signInLimit);

/** Password-reset requests: the sign-in budget per address, and a few a minute per e-mail address (each sends mail). */
export const limitPasswordResets = limitPerIpAndEmail('password-reset', (config) => ({
  perIp: config.signInLimit.perIp,
  perEmail: Math.min(config.signInLimit.perEmail, PASSWORD_RESETS_PER_EMAIL_PER_MINUTE),
}));
const PASSWORD_RESETS_PER_EMAIL_PER_MINUTE = 3;

/** Second-factor codes a minute for one user, wherever they come from: six digits must not be guessable in bulk. */
export async function limitSecondFactorAttempts(ctx: Context, userId: string): Promise<void> {
  await spendAttempt(
    ctx,
    `second-factor:${userId}`,
    SECOND_FACTOR_ATTEMPTS_PER_MINUTE,
    (limit, retry) => `Too many two-factor codes tried (at most ${limit} a minute). Please wait ${retry} s.`,
  );
}
const SECOND_FACTOR_ATTEMPTS_PER_MINUTE = 5;

function isAcceptedJob(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'job_id' in body && 'status_url' in body;
}

/**
 * The image endpoints (stage, enhance, place-products, declutter, re-render): an API key, then Idempotency-Key
 * replay, then one of the key's slots for image operations in flight.
 */
export const imageProcedure = apiKeyProcedure
  .meta({
    builderErrors: [
      // Idempotency-Key reuse or a retry while the first runs; the key's slots; a full server or a lost hold.
      'conflict',
      'service_unavailable',
      // The image: too large, a format not accepted, not decodable or out of the size range.
      'payload_too_large',
      'unsupported_media_type',
      'invalid_image',
      // `claim_code`: not this account's, redeemed, expired.
      'not_found',
      'claim_already_redeemed',
      'claim_expired',
    ],
  })
  .use(async ({ ctx, path, getRawInput, next }) => {
    const idempotencyKey = parseIdempotencyKey(ctx.headers['idempotency-key']);
    if (!idempotencyKey) return next({ ctx: { idempotency: null } });
    const { db, clock } = ctx.services;
    const scope = { keyId: ctx.apiKey.id, idempotencyKey };
    const fingerprint = requestFingerprint(path, await getRawInput());
    const startedAt = clock.now();
    const start = await beginIdempotentRequest(db, { ...scope, fingerprint, now: startedAt });
    if (start.kind === 'replay') {
      ctx.response.setHeader('Idempotent-Replayed', 'true');
      // An asynchronous request's first answer was the 202 with its job; so is the replay.
      if (isAcceptedJob(start.body)) {
        ctx.response.setStatus(202);
        ctx.response.setHeader('Preference-Applied', 'respond-async');
      }
      // A replayed response skips the procedure.
      return answerWithoutProcedure<Awaited<ReturnType<typeof next>>>(start.body);
    }
    const idempotency: IdempotencyClaim = { key: idempotencyKey, startedAt };
    const result = await next({ ctx: { idempotency } });
    // The work is done (and maybe charged): bookkeeping failures are logged, never turned into a failed response.
    // A record left in progress makes retries answer 409 for 24 h, which never charges twice.
    const settle = result.ok
      ? completeIdempotentRequest(db, scope, result.data)
      : abandonIdempotentRequest(db, { ...scope, startedAt });
    await settle.catch((error: unknown) =>
      log.error({ err: error, idempotencyKey }, 'idempotency key could not be settled'),
    );
    return result;
  })
  .use(async ({ ctx, path, next }) => {
    const { metrics } = ctx.services;
    const release = await takeImageSlot(ctx.services.imageAdmission, ctx.apiKey.id);
    try {
      const result = await next();
      metrics.imageOperations.inc({ operation: path, outcome: result.ok ? 'ok' : 'failed' });
      return result;
    } finally {
      await release();
    }
  });
