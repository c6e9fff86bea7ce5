import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, UserTokenPurpose } from '../../../db/schema.js';
import { AppError } from '../../errors.js';

export const VERIFY_EMAIL_TTL_MS = 7 * 86_400_000;
export const PASSWORD_RESET_TTL_MS = 3_600_000;

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A fresh single-use link token; only its hash is stored, so the table never holds a working link. */
export async function issueUserToken(
  trx: Kysely<Database>,
  input: { userId: string; purpose: UserTokenPurpose; email: string; ttlMs: number; now: number },
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await trx
    .insertInto('user_tokens')
    .values({
      token_hash: hashSecret(token),
      user_id: input.userId,
      purpose: input.purpose,
      email: input.email,
      expires_at: input.now + input.ttlMs,
      used_at: null,
      created_at: input.now,
    })
    .execute();
  return token;
}

/**
 * Spends a token once: one conditional update claims it, so two requests with one token cannot both succeed.
 * Unknown, used, expired and wrong-purpose tokens all fail alike.
 */
export async function consumeUserToken(
  trx: Kysely<Database>,
  input: { token: string; purpose: UserTokenPurpose; now: number; invalidMessage: string },
): Promise<{ userId: string; email: string }> {
  const tokenHash = hashSecret(input.token);
  const claimed = await trx
    .updateTable('user_tokens')
    .set({ used_at: input.now })
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', input.purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', input.now)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) throw new AppError('invalid_request', input.invalidMessage);
  const row = await trx
    .selectFrom('user_tokens')
    .select(['user_id', 'email'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirstOrThrow();
  return { userId: row.user_id, email: row.email };
}

/** Earlier unused links of the same purpose stop working when a new one is sent or one is used. */
export async function voidUserTokens(
  trx: Kysely<Database>,
  input: { userId: string; purpose: UserTokenPurpose; now: number },
): Promise<void> {
  await trx
    .updateTable('user_tokens')
    .set({ used_at: input.now })
    .where('user_id', '=', input.userId)
    .where('purpose', '=', input.purpose)
    .where('used_at', 'is', null)
    .execute();
}
