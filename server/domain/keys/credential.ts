import type { Db } from '../../../db/client.js';
import { AppError, AUTH_MESSAGES } from '../../errors.js';
import { type ApiKeyHash, type AuthenticatedKey, authenticateApiKey, type KeyScope, keyAllows } from './api-keys.js';

export const SUSPENDED_MESSAGE =
  'This account is suspended: its keys and sessions do not work. Write to support to have it restored.';

/**
 * The one credential check of an API key, in a fixed order: a key that exists and is not revoked, not expired, of an
 * account that is not suspended, allowed the operation's scope. The image upload pre-check runs it before reading a
 * body, and apiKeyProcedure runs it (or takes the pre-check's answer), so both refuse exactly the same keys.
 * `key` is what authenticateApiKey found (null: unknown or revoked).
 */
export function apiKeyRefusal(key: AuthenticatedKey | null, now: number, scope: KeyScope | undefined): AppError | null {
  if (!key) return new AppError('authentication_required', AUTH_MESSAGES.apiKey);
  if (key.expiresAt !== null && key.expiresAt <= now)
    return new AppError('authentication_required', `This API key expired. ${AUTH_MESSAGES.apiKey}`);
  if (key.suspendedAt !== null) return new AppError('account_suspended', SUSPENDED_MESSAGE);
  if (scope && !keyAllows(key, scope))
    return new AppError(
      'insufficient_scope',
      `This API key may not call this operation: it needs the "${scope}" scope. Create a key with that scope.`,
      { required_scope: scope },
    );
  return null;
}

/** Looks the key up by its hash and runs the check above: the key, or the refusal thrown. */
export async function checkApiKey(
  db: Db,
  keyHash: ApiKeyHash | null,
  now: number,
  scope: KeyScope | undefined,
): Promise<AuthenticatedKey> {
  const key = keyHash ? await authenticateApiKey(db, keyHash, now) : null;
  if (!key) throw apiKeyRefusal(null, now, scope);
  const refusal = apiKeyRefusal(key, now, scope);
  if (refusal) throw refusal;
  return key;
}
