import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { type AuditOrigin, recordAudit } from '../audit/audit.js';

type Executor = Kysely<Database>;

/** `credits.low` fires once each time the balance falls below this. */
export const DEFAULT_LOW_BALANCE_THRESHOLD = 5;
export const MAX_LOW_BALANCE_THRESHOLD = 100_000;

export interface AccountSettings {
  auto_topup: { enabled: boolean; amount: number; threshold: number };
  notifications: NotificationSettings;
}

export interface NotificationSettings {
  low_balance_threshold: number;
}

/** Every setting of the account in one read; auto top-up itself is changed through the billing procedures. */
export async function getSettings(db: Executor, accountId: string): Promise<AccountSettings> {
  const row = await db
    .selectFrom('accounts')
    .select(['auto_topup_enabled', 'auto_topup_amount', 'auto_topup_threshold', 'low_balance_threshold'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return {
    auto_topup: {
      enabled: row.auto_topup_enabled === 1,
      amount: row.auto_topup_amount,
      threshold: row.auto_topup_threshold,
    },
    notifications: { low_balance_threshold: row.low_balance_threshold },
  };
}

export async function getNotificationSettings(db: Executor, accountId: string): Promise<NotificationSettings> {
  return (await getSettings(db, accountId)).notifications;
}

/**
 * A new threshold takes effect from the next balance change: `credits.low` is emitted when a change crosses it, so
 * moving the threshold above the current balance does not emit one by itself.
 */
export async function setNotificationSettings(
  db: Executor,
  accountId: string,
  settings: NotificationSettings,
  audit: { origin: AuditOrigin; now: number },
): Promise<NotificationSettings> {
  await inTransaction(db, async (trx) => {
    await trx
      .updateTable('accounts')
      .set({ low_balance_threshold: settings.low_balance_threshold })
      .where('id', '=', accountId)
      .execute();
    await recordAudit(trx, {
      accountId,
      action: 'settings.updated',
      origin: audit.origin,
      target: 'notifications',
      details: { ...settings },
      now: audit.now,
    });
  });
  return getNotificationSettings(db, accountId);
}
