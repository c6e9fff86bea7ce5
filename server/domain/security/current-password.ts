import type { Db } from '../../../db/client.js';
import { verifyPassword } from '../../auth/passwords.js';
import { AppError } from '../../errors.js';

/**
 * A change that needs the user's password (a new password, turning two-factor off) checks it here first: a wrong one
 * is 400 `invalid_request` naming the form field it came in, and nothing changes.
 */
export async function requireCurrentPassword(
  db: Db,
  input: { userId: string; password: string; field: 'current_password' | 'password' },
): Promise<void> {
  const account = await db
    .selectFrom('users')
    .select('password_hash')
    .where('id', '=', input.userId)
    .executeTakeFirstOrThrow();
  if (await verifyPassword(account.password_hash, input.password)) return;
  const message =
    input.field === 'current_password' ? 'The current password is not correct.' : 'The password is not correct.';
  throw new AppError('invalid_request', message, { details: [{ path: input.field, message }] });
}
