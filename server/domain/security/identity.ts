import type { Db } from '../../../db/client.js';
import type { Account, User } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../../auth/passwords.js';
import { AppError } from '../../errors.js';
import { insertAccount, normalizeEmail } from '../accounts/accounts.js';
import { type AuditOrigin, recordAudit } from '../audit/audit.js';
import { enqueueMail } from '../mail/outbox.js';
import { requireCurrentPassword } from './current-password.js';
import { passwordResetMessage, verifyEmailMessage } from '../mail/messages.js';
import { endSessions, openSession, type SessionOrigin } from './sessions.js';
import {
  consumeUserToken,
  hashSecret,
  issueUserToken,
  PASSWORD_RESET_TTL_MS,
  VERIFY_EMAIL_TTL_MS,
  voidUserTokens,
} from './tokens.js';
import { spendSecondFactor } from './two-factor.js';

/** Where the links in e-mails point (the dashboard's pages). */
export interface IdentityLinks {
  publicBaseUrl: string;
}

const verifyUrl = (links: IdentityLinks, token: string) =>
  `${links.publicBaseUrl}/verify-email?token=${encodeURIComponent(token)}`;
const resetUrl = (links: IdentityLinks, token: string) =>
  `${links.publicBaseUrl}/reset-password?token=${encodeURIComponent(token)}`;

/**
 * Sign-up: the user, their personal account (same id), its security row, its first session and the verification
 * e-mail commit together.
 */
export async function signUp(
  db: Db,
  input: { email: string; password: string; origin: SessionOrigin; links: IdentityLinks; now: number },
): Promise<{ account: Account; token: string }> {
  const passwordHash = await hashPassword(input.password);
  return inTransaction(db, async (trx) => {
    const account = await insertAccount(trx, { email: input.email, passwordHash, now: input.now });
    const { id, email } = account;
    const verification = await issueUserToken(trx, {
      userId: id,
      purpose: 'verify_email',
      email,
      ttlMs: VERIFY_EMAIL_TTL_MS,
      now: input.now,
    });
    await enqueueMail(trx, {
      to: email,
      mail: verifyEmailMessage({ url: verifyUrl(input.links, verification) }),
      now: input.now,
    });
    const token = await openSession(trx, { userId: id, origin: input.origin, now: input.now });
    return { account, token };
  });
}

const WRONG_CREDENTIALS = 'The e-mail or password is not correct.';

/**
 * Sign-in. Unknown e-mail and wrong password fail alike and take as long. With two-factor on, a missing second
 * factor is `otp_required` (no session) and a wrong one fails like a wrong password. Failures of a known account are
 * audited; a success opens the session and audits it in one transaction.
 */
export async function signIn(
  db: Db,
  input: {
    email: string;
    password: string;
    otp?: string;
    recoveryCode?: string;
    origin: SessionOrigin;
    now: number;
    /** Spends one attempt of the account's second-factor budget (throws when it is used up). */
    limitSecondFactor: (userId: string) => Promise<void>;
  },
): Promise<{ account: User; token: string }> {
  const account = await db
    .selectFrom('users')
    .selectAll()
    .where('email', '=', normalizeEmail(input.email))
    .executeTakeFirst();
  const valid = await verifyPassword(account?.password_hash ?? DUMMY_PASSWORD_HASH, input.password);
  if (!account) throw new AppError('authentication_required', WRONG_CREDENTIALS);
  const origin: AuditOrigin = {
    actor: { type: 'user', id: account.id, label: account.email },
    ip: input.origin.ip,
    userAgent: input.origin.userAgent,
  };
  const fail = async (reason: string, code: 'authentication_required' | 'otp_required' = 'authentication_required') => {
    await recordAudit(db, {
      accountId: account.id,
      action: 'user.sign_in_failed',
      origin,
      target: account.id,
      details: { reason },
      now: input.now,
    });
    return new AppError(
      code,
      code === 'otp_required'
        ? 'Two-factor sign-in is on: send `otp` (the 6-digit code of your authenticator app) or a `recovery_code`.'
        : WRONG_CREDENTIALS,
    );
  };
  if (!valid) throw await fail('password');
  const security = await db
    .selectFrom('user_security')
    .select('totp_secret')
    .where('user_id', '=', account.id)
    .executeTakeFirst();
  const twoFactor = security?.totp_secret != null;
  if (twoFactor && !input.otp && !input.recoveryCode) throw await fail('second_factor_missing', 'otp_required');
  if (twoFactor) await input.limitSecondFactor(account.id);
  const opened = await inTransaction(db, async (trx) => {
    if (twoFactor && !(await spendSecondFactor(trx, { userId: account.id, ...input }))) return null;
    const token = await openSession(trx, { userId: account.id, origin: input.origin, now: input.now });
    await recordAudit(trx, {
      accountId: account.id,
      action: 'user.signed_in',
      origin,
      target: account.id,
      details: { second_factor: twoFactor ? (input.otp ? 'totp' : 'recovery_code') : null },
      now: input.now,
    });
    return token;
  });
  if (opened === null) throw await fail('second_factor');
  return { account, token: opened };
}

const VERIFY_LINK_INVALID = 'This verification link is invalid, used or expired. Ask for a new one from the dashboard.';
const VERIFY_LINK_HOLDER =
  'This link confirms the address only for the holder of the account’s password: sign in as that account and open the link again, or send the account’s password with the token (`password`).';

/**
 * Confirms the address a verification link went to, for the holder of the account's password only: the request
 * comes from a session of that user (`signedInUserId`), or carries the account's password. Whoever opens the link
 * without either changes nothing, so a stranger who registered someone else's address first never gets it confirmed
 * by its owner opening the e-mail (and operator access, which follows a confirmed address, stays out of reach).
 * The token is spent only when the confirmation succeeds.
 */
export async function verifyEmail(
  db: Db,
  input: { token: string; password?: string; signedInUserId: string | null; now: number },
): Promise<{ email: string }> {
  const pending = await db
    .selectFrom('user_tokens')
    .innerJoin('users', 'users.id', 'user_tokens.user_id')
    .select(['user_tokens.user_id', 'users.password_hash'])
    .where('user_tokens.token_hash', '=', hashSecret(input.token))
    .where('user_tokens.purpose', '=', 'verify_email')
    .where('user_tokens.used_at', 'is', null)
    .where('user_tokens.expires_at', '>', input.now)
    .executeTakeFirst();
  if (!pending) throw new AppError('invalid_request', VERIFY_LINK_INVALID);
  if (pending.user_id !== input.signedInUserId) {
    const holder = input.password !== undefined && (await verifyPassword(pending.password_hash, input.password));
    if (!holder) throw new AppError('authentication_required', VERIFY_LINK_HOLDER);
  }
  return inTransaction(db, async (trx) => {
    const { userId, email } = await consumeUserToken(trx, {
      token: input.token,
      purpose: 'verify_email',
      now: input.now,
      invalidMessage: VERIFY_LINK_INVALID,
    });
    const current = await trx.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow();
    // A link sent to an address the user has since left verifies nothing.
    if (current.email !== email)
      throw new AppError('invalid_request', 'This verification link is for another e-mail address.');
    await trx
      .updateTable('user_security')
      .set({ email_verified_at: input.now })
      .where('user_id', '=', userId)
      .where('email_verified_at', 'is', null)
      .execute();
    return { email };
  });
}

export async function isEmailVerified(db: Db, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('user_security')
    .select('email_verified_at')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.email_verified_at != null;
}

/** Buying needs a verified address: receipts and payment problems must reach someone. */
export async function requireVerifiedEmail(db: Db, userId: string): Promise<void> {
  if (!(await isEmailVerified(db, userId)))
    throw new AppError(
      'email_unverified',
      'Confirm your e-mail address first: open the link we sent you, or ask for a new one (POST /api/v1/auth/resend-verification).',
    );
}

/** A new link replaces any earlier one; nothing is sent to an address already verified. */
export async function resendVerification(
  db: Db,
  input: { userId: string; email: string; links: IdentityLinks; now: number },
): Promise<void> {
  await inTransaction(db, async (trx) => {
    const row = await trx
      .selectFrom('user_security')
      .select('email_verified_at')
      .where('user_id', '=', input.userId)
      .executeTakeFirstOrThrow();
    if (row.email_verified_at !== null) return;
    await voidUserTokens(trx, { userId: input.userId, purpose: 'verify_email', now: input.now });
    const token = await issueUserToken(trx, {
      userId: input.userId,
      purpose: 'verify_email',
      email: input.email,
      ttlMs: VERIFY_EMAIL_TTL_MS,
      now: input.now,
    });
    await enqueueMail(trx, {
      to: input.email,
      mail: verifyEmailMessage({ url: verifyUrl(input.links, token) }),
      now: input.now,
    });
  });
}

/**
 * A reset asked for (password-resets.ts) prepared inside the caller's transaction: a token and one message when the
 * address is registered, nothing otherwise; the request was answered the same either way.
 */
export async function preparePasswordReset(
  trx: Db,
  input: { email: string; links: IdentityLinks; now: number },
): Promise<void> {
  const email = normalizeEmail(input.email);
  const account = await trx.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  if (!account) return;
  await voidUserTokens(trx, { userId: account.id, purpose: 'password_reset', now: input.now });
  const token = await issueUserToken(trx, {
    userId: account.id,
    purpose: 'password_reset',
    email,
    ttlMs: PASSWORD_RESET_TTL_MS,
    now: input.now,
  });
  await enqueueMail(trx, {
    to: email,
    mail: passwordResetMessage({ url: resetUrl(input.links, token) }),
    now: input.now,
  });
}

/** The new password, the end of every session and the audit entry commit together; the link works once. */
export async function confirmPasswordReset(
  db: Db,
  input: { token: string; password: string; origin: SessionOrigin; now: number },
): Promise<void> {
  const passwordHash = await hashPassword(input.password);
  await inTransaction(db, async (trx) => {
    const { userId, email } = await consumeUserToken(trx, {
      token: input.token,
      purpose: 'password_reset',
      now: input.now,
      invalidMessage: 'This reset link is invalid, used or expired. Ask for a new one.',
    });
    await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
    const ended = await endSessions(trx, { userId, keepToken: null });
    // Receiving the link proves the address.
    await trx
      .updateTable('user_security')
      .set({ email_verified_at: input.now })
      .where('user_id', '=', userId)
      .where('email_verified_at', 'is', null)
      .execute();
    await recordAudit(trx, {
      accountId: userId,
      action: 'user.password_reset',
      origin: {
        actor: { type: 'user', id: userId, label: email },
        ip: input.origin.ip,
        userAgent: input.origin.userAgent,
      },
      target: userId,
      details: { sessions_ended: ended },
      now: input.now,
    });
  });
}

/** Changing the password ends every other session of the user; the one that changed it stays signed in. */
export async function changePassword(
  db: Db,
  input: {
    userId: string;
    currentPassword: string;
    newPassword: string;
    currentToken: string;
    origin: AuditOrigin;
    now: number;
  },
): Promise<void> {
  await requireCurrentPassword(db, {
    userId: input.userId,
    password: input.currentPassword,
    field: 'current_password',
  });
  const passwordHash = await hashPassword(input.newPassword);
  await inTransaction(db, async (trx) => {
    await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', input.userId).execute();
    const ended = await endSessions(trx, { userId: input.userId, keepToken: input.currentToken });
    await recordAudit(trx, {
      accountId: input.userId,
      action: 'user.password_changed',
      origin: input.origin,
      target: input.userId,
      details: { sessions_ended: ended },
      now: input.now,
    });
  });
}
