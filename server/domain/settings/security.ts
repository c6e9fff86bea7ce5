import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { AppError } from '../../errors.js';
import { type AuditOrigin, recordAudit } from '../audit/audit.js';

type Executor = Kysely<Database>;

/** What the account asks of its members at sign-in. Checked on every Token request in server/trpc/session.ts. */
export interface SecuritySettings {
  require_2fa: boolean;
}

export async function getSecuritySettings(db: Executor, accountId: string): Promise<SecuritySettings> {
  const row = await db
    .selectFrom('accounts')
    .select('require_2fa')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return { require_2fa: row.require_2fa === 1 };
}

const TURN_ON_YOURS_FIRST =
  'Turn on two-factor sign-in for yourself first (the Security page, or POST /api/v1/me/2fa/setup and /enable): requiring it of the members would otherwise lock you out of this account.';

/**
 * Requiring two-factor sign-in takes effect on the next request of every member. Turning it on needs the caller to
 * have it on themselves (409 `conflict`), so nobody locks themselves out with one click. Audited as settings.updated.
 */
export async function setSecuritySettings(
  db: Executor,
  input: { accountId: string; userId: string; settings: SecuritySettings; origin: AuditOrigin; now: number },
): Promise<SecuritySettings> {
  await inTransaction(db, async (trx) => {
    if (input.settings.require_2fa) {
      const own = await trx
        .selectFrom('user_security')
        .select('totp_enabled_at')
        .where('user_id', '=', input.userId)
        .executeTakeFirst();
      if (own?.totp_enabled_at == null) throw new AppError('conflict', TURN_ON_YOURS_FIRST);
    }
    await trx
      .updateTable('accounts')
      .set({ require_2fa: input.settings.require_2fa ? 1 : 0 })
      .where('id', '=', input.accountId)
      .execute();
    await recordAudit(trx, {
      accountId: input.accountId,
      action: 'settings.updated',
      origin: input.origin,
      target: 'security',
      details: { require_2fa: input.settings.require_2fa },
      now: input.now,
    });
  });
  return getSecuritySettings(db, input.accountId);
}
