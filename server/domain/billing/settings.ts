import type { Db } from '../../../db/client.js';
import { inTransaction } from '../../../db/transaction.js';
import { type AuditOrigin, recordAudit } from '../audit/audit.js';
import { AppError } from '../../errors.js';
import { autoTopUpProblems } from '../../../shared/auto-topup-rules.js';
import { presentAutoTopUp, readBillingRow, type AutoTopUpSettings } from './overview.js';

export type AutoTopUpView = AutoTopUpSettings & { has_payment_method: boolean };

export async function getAutoTopUp(db: Db, accountId: string, now: number): Promise<AutoTopUpView> {
  const row = await readBillingRow(db, accountId);
  return { ...presentAutoTopUp(row, now), has_payment_method: row.payment_method_id !== null };
}

export interface AutoTopUpInput {
  enabled: boolean;
  amount: number;
  threshold: number;
  /** undefined keeps the current cap; null removes it. */
  monthly_limit?: number | null;
}

/**
 * PUT /settings/auto-topup. Enabling needs a card on file (409 `payment_method_required`); saving ends a pause,
 * so the next charge below the threshold tries again.
 */
export async function putAutoTopUp(
  db: Db,
  accountId: string,
  input: AutoTopUpInput,
  now: number,
  origin: AuditOrigin,
): Promise<AutoTopUpView> {
  const monthlyLimit =
    input.monthly_limit !== undefined
      ? input.monthly_limit
      : (await readBillingRow(db, accountId)).auto_topup_monthly_limit;
  const problems = autoTopUpProblems({ ...input, monthly_limit: monthlyLimit });
  if (problems.length > 0)
    throw new AppError('invalid_request', problems.map((p) => p.message).join(' '), { details: problems });
  await inTransaction(db, async (trx) => {
    const update = trx
      .updateTable('accounts')
      .set({
        auto_topup_enabled: input.enabled ? 1 : 0,
        auto_topup_amount: input.amount,
        auto_topup_threshold: input.threshold,
        ...(input.monthly_limit !== undefined ? { auto_topup_monthly_limit: input.monthly_limit } : {}),
        auto_topup_paused_until: null,
        auto_topup_consecutive_failures: 0,
        auto_topup_last_failure_reason: null,
      })
      .where('id', '=', accountId);
    // One conditional statement, so a card removed at the same instant cannot leave auto top-up enabled without one.
    const result = await (input.enabled
      ? update.where('payment_method_id', 'is not', null)
      : update
    ).executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) {
      await readBillingRow(trx, accountId);
      throw new AppError(
        'payment_method_required',
        'Auto top-up needs a card on file. Buy credits once (the card is saved for later) and enable it again.',
      );
    }
    await recordAudit(trx, {
      accountId,
      action: 'settings.updated',
      origin,
      target: 'auto_topup',
      details: { ...input },
      now,
    });
  });
  return getAutoTopUp(db, accountId, now);
}
