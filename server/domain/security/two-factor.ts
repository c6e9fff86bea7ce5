import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { authenticator } from 'otplib';
import QRCode from 'qrcode';
import type { Db } from '../../../db/client.js';
import type { Database } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { requireCurrentPassword } from './current-password.js';
import { iso } from '../../clock.js';
import { AppError } from '../../errors.js';
import { type AuditOrigin, recordAudit } from '../audit/audit.js';
import { enqueueMail } from '../mail/outbox.js';
import { twoFactorChangedMessage } from '../mail/messages.js';
import { hashSecret } from './tokens.js';

const STEP_SECONDS = 30;
export const RECOVERY_CODE_COUNT = 10;
const ISSUER = 'Roomstage';

/** The 30-second step a code matches (one step of clock drift either way), or null. */
function matchingStep(secret: string, code: string, now: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = authenticator.clone({ epoch: now, window: 1, step: STEP_SECONDS }).checkDelta(code, secret);
  return delta === null ? null : Math.floor(now / 1000 / STEP_SECONDS) + delta;
}

/** Recovery codes are 10 lowercase base32 characters as two groups; compared without the dash and case. */
function newRecoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const chars = [...randomBytes(10)].map((byte) => alphabet[byte % alphabet.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}
const normalizeRecoveryCode = (code: string) =>
  code
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');

async function securityRow(db: Kysely<Database>, userId: string) {
  return db.selectFrom('user_security').selectAll().where('user_id', '=', userId).executeTakeFirstOrThrow();
}

export async function isTwoFactorEnabled(db: Kysely<Database>, userId: string): Promise<boolean> {
  return (await securityRow(db, userId)).totp_secret !== null;
}

/** A secret as an authenticator app takes it: typed, as an otpauth:// URL, or scanned from the URL's QR code. */
async function describeSecret(email: string, secret: string) {
  const otpauthUrl = authenticator.keyuri(email, ISSUER, secret);
  const qrSvg = await QRCode.toString(otpauthUrl, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
  return { secret, otpauth_url: otpauthUrl, qr_svg: qrSvg };
}

/** A new secret waits for its first code (enable); until then sign-in is unchanged. */
export async function setUpTwoFactor(db: Db, input: { userId: string; email: string }) {
  if (await isTwoFactorEnabled(db, input.userId))
    throw new AppError('conflict', 'Two-factor sign-in is already on. Turn it off first to set up a new device.');
  const secret = authenticator.generateSecret(20);
  await db
    .updateTable('user_security')
    .set({ totp_pending_secret: secret })
    .where('user_id', '=', input.userId)
    .execute();
  return describeSecret(input.email, secret);
}

/**
 * Whether two-factor sign-in is on, how many recovery codes are left, and a setup still waiting for its first code
 * (so a page can show the same QR code again after a mistyped code). The active secret is never answered.
 */
export async function twoFactorStatus(db: Kysely<Database>, input: { userId: string; email: string }) {
  const row = await securityRow(db, input.userId);
  const { remaining } = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll().as('remaining'))
    .where('user_id', '=', input.userId)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  const enabled = row.totp_secret !== null;
  return {
    enabled,
    enabled_at: iso(row.totp_enabled_at),
    recovery_codes_remaining: enabled ? Number(remaining) : 0,
    pending_setup:
      !enabled && row.totp_pending_secret !== null ? await describeSecret(input.email, row.totp_pending_secret) : null,
  };
}

export interface SecurityLinks {
  securityUrl: string;
}

/**
 * The first code from the authenticator turns two-factor sign-in on; the recovery codes are answered once and
 * stored as hashes. The change, its audit entry and the notice e-mail commit together.
 */
export async function enableTwoFactor(
  db: Db,
  input: { userId: string; email: string; code: string; origin: AuditOrigin; links: SecurityLinks; now: number },
): Promise<string[]> {
  return inTransaction(db, async (trx) => {
    const row = await securityRow(trx, input.userId);
    if (row.totp_secret !== null) throw new AppError('conflict', 'Two-factor sign-in is already on.');
    if (row.totp_pending_secret === null)
      throw new AppError('conflict', 'Start with POST /api/v1/me/2fa/setup, then confirm with a code.');
    const step = matchingStep(row.totp_pending_secret, input.code, input.now);
    if (step === null) {
      const message = 'The code is not correct. Enter the current 6-digit code of your app.';
      throw new AppError('invalid_request', message, { details: [{ path: 'code', message }] });
    }
    await trx
      .updateTable('user_security')
      .set({
        totp_secret: row.totp_pending_secret,
        totp_pending_secret: null,
        totp_enabled_at: input.now,
        totp_last_step: step,
      })
      .where('user_id', '=', input.userId)
      .execute();
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await trx.deleteFrom('recovery_codes').where('user_id', '=', input.userId).execute();
    await trx
      .insertInto('recovery_codes')
      .values(
        codes.map((code) => ({
          user_id: input.userId,
          code_hash: hashSecret(normalizeRecoveryCode(code)),
          used_at: null,
        })),
      )
      .execute();
    await recordAudit(trx, {
      accountId: input.userId,
      action: 'user.2fa_enabled',
      origin: input.origin,
      target: input.userId,
      now: input.now,
    });
    await enqueueMail(trx, {
      to: input.email,
      mail: twoFactorChangedMessage({ enabled: true, securityUrl: input.links.securityUrl }),
      now: input.now,
    });
    return codes;
  });
}

/**
 * Checks a second factor inside the caller's transaction and spends it: a TOTP code only for a step later than the
 * last accepted one (a code works once), a recovery code once ever. False when neither matches.
 */
export async function spendSecondFactor(
  trx: Kysely<Database>,
  input: { userId: string; otp?: string; recoveryCode?: string; now: number },
): Promise<boolean> {
  const row = await securityRow(trx, input.userId);
  if (row.totp_secret === null) return false;
  if (input.otp) {
    const step = matchingStep(row.totp_secret, input.otp.trim(), input.now);
    if (step === null) return false;
    // The conditional update is the check: of two requests with one code, only one moves the step.
    const moved = await trx
      .updateTable('user_security')
      .set({ totp_last_step: step })
      .where('user_id', '=', input.userId)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
      .executeTakeFirst();
    return Number(moved.numUpdatedRows) === 1;
  }
  if (input.recoveryCode) {
    const used = await trx
      .updateTable('recovery_codes')
      .set({ used_at: input.now })
      .where('user_id', '=', input.userId)
      .where('code_hash', '=', hashSecret(normalizeRecoveryCode(input.recoveryCode)))
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(used.numUpdatedRows) === 1;
  }
  return false;
}

/** Turning it off needs the password and, while it is on, a code or a recovery code. */
export async function disableTwoFactor(
  db: Db,
  input: {
    userId: string;
    email: string;
    password: string;
    otp?: string;
    recoveryCode?: string;
    origin: AuditOrigin;
    links: SecurityLinks;
    now: number;
  },
): Promise<void> {
  await requireCurrentPassword(db, { userId: input.userId, password: input.password, field: 'password' });
  await inTransaction(db, async (trx) => {
    const row = await securityRow(trx, input.userId);
    if (row.totp_secret === null) {
      await trx
        .updateTable('user_security')
        .set({ totp_pending_secret: null })
        .where('user_id', '=', input.userId)
        .execute();
      return;
    }
    if (!input.otp && !input.recoveryCode)
      throw new AppError('otp_required', 'Enter a code from your authenticator app or a recovery code.');
    if (!(await spendSecondFactor(trx, input)))
      throw new AppError('invalid_request', 'The code is not correct or was used already.', {
        details: [
          { path: input.otp ? 'code' : 'recovery_code', message: 'The code is not correct or was used already.' },
        ],
      });
    await trx
      .updateTable('user_security')
      .set({ totp_secret: null, totp_pending_secret: null, totp_enabled_at: null, totp_last_step: null })
      .where('user_id', '=', input.userId)
      .execute();
    await trx.deleteFrom('recovery_codes').where('user_id', '=', input.userId).execute();
    await recordAudit(trx, {
      accountId: input.userId,
      action: 'user.2fa_disabled',
      origin: input.origin,
      target: input.userId,
      now: input.now,
    });
    await enqueueMail(trx, {
      to: input.email,
      mail: twoFactorChangedMessage({ enabled: false, securityUrl: input.links.securityUrl }),
      now: input.now,
    });
  });
}
