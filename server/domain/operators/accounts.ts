import type { Kysely } from 'kysely';
import type { AdFundsEntry, Database, LedgerEntry } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { lockAccount } from '../accounts/accounts.js';
import { AppError, errorResponse } from '../../errors.js';
import { type OperatorChange, recordAudit } from '../audit/audit.js';
import { changeAdFunds } from '../ads/funds.js';
import { releaseHold } from '../credits/holds.js';
import { changeCredits } from '../credits/ledger.js';
import { emitEvent } from '../events/outbox.js';
import { membershipOf } from '../teams/memberships.js';

type Executor = Kysely<Database>;

/** Grants (delta > 0) or deducts credits as an `adjustment`; a deduction below zero changes nothing (409). */
export async function adjustCredits(
  db: Executor,
  input: OperatorChange & { accountId: string; delta: number },
): Promise<{ credits: number; transaction: LedgerEntry }> {
  return inTransaction(db, async (trx) => {
    await lockAccount(trx, input.accountId);
    const change = await changeCredits(trx, {
      accountId: input.accountId,
      delta: input.delta,
      reason: 'adjustment',
      now: input.now,
    });
    if (!change.ok)
      throw new AppError(
        'conflict',
        `The account has ${change.available} credits: a deduction of ${-input.delta} would take it below zero.`,
        { credits_available: change.available },
      );
    const transaction = await trx
      .selectFrom('credit_ledger')
      .selectAll()
      .where('id', '=', change.entryId)
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      accountId: input.accountId,
      action: 'operator.credits_adjusted',
      origin: input.origin,
      target: transaction.public_id,
      details: { delta: input.delta, balance_after: change.balanceAfter, reason: input.reason },
      now: input.now,
    });
    return { credits: change.balanceAfter, transaction };
  });
}

/** Adds or takes ad funds (an `adjustment` in their own ledger); below zero is 409 and changes nothing. */
export async function adjustAdFunds(
  db: Executor,
  input: OperatorChange & { accountId: string; deltaCents: number },
): Promise<{ balanceMillicents: number; transaction: AdFundsEntry }> {
  return inTransaction(db, async (trx) => {
    await lockAccount(trx, input.accountId);
    const transaction = await changeAdFunds(trx, {
      accountId: input.accountId,
      deltaMillicents: input.deltaCents * 1000,
      reason: 'adjustment',
      reference: null,
      now: input.now,
    });
    const { ad_funds_millicents } = await trx
      .selectFrom('accounts')
      .select('ad_funds_millicents')
      .where('id', '=', input.accountId)
      .executeTakeFirstOrThrow();
    await recordAudit(trx, {
      accountId: input.accountId,
      action: 'operator.ad_funds_adjusted',
      origin: input.origin,
      target: transaction.public_id,
      details: { delta_cents: input.deltaCents, reason: input.reason },
      now: input.now,
    });
    return { balanceMillicents: Number(ad_funds_millicents), transaction };
  });
}

const SUSPENDED_JOB_ERROR = errorResponse(
  'account_suspended',
  'The account was suspended before this job ran; its credits were refunded.',
).body;

/**
 * Suspends the account: from the commit on, every key and session of it is refused on every node (the credential
 * checks read `suspended_at`). Its queued jobs then fail and their credits are refunded. An operator may not suspend
 * an account they are a member of (409): another operator decides about it.
 */
export async function suspendAccount(
  db: Executor,
  input: OperatorChange & { accountId: string },
): Promise<{ status: 'suspended'; jobsFailed: number }> {
  await inTransaction(db, async (trx) => {
    const account = await lockAccount(trx, input.accountId);
    if (await membershipOf(trx, input.origin.actor.id, input.accountId))
      throw new AppError(
        'conflict',
        'You are a member of this account, so you may not suspend it: ask another operator to review it.',
      );
    if (account.suspended_at === null)
      await trx.updateTable('accounts').set({ suspended_at: input.now }).where('id', '=', input.accountId).execute();
    await recordAudit(trx, {
      accountId: input.accountId,
      action: 'operator.account_suspended',
      origin: input.origin,
      target: input.accountId,
      details: { reason: input.reason, already_suspended: account.suspended_at !== null },
      now: input.now,
    });
  });
  return { status: 'suspended', jobsFailed: await failQueuedJobs(db, input.accountId, input.now) };
}

/** A job is taken from the queue only while still queued (a worker may claim it first); then its hold is refunded. */
async function failQueuedJobs(db: Executor, accountId: string, now: number): Promise<number> {
  const queued = await db
    .selectFrom('jobs')
    .select(['id', 'key_id', 'operation', 'hold_id'])
    .where('account_id', '=', accountId)
    .where('status', '=', 'queued')
    .execute();
  let failed = 0;
  for (const job of queued) {
    const taken = await inTransaction(db, async (trx) => {
      const updated = await trx
        .updateTable('jobs')
        .set({ status: 'failed', error: JSON.stringify(SUSPENDED_JOB_ERROR), finished_at: now, lease_expires_at: null })
        .where('id', '=', job.id)
        .where('status', '=', 'queued')
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return false;
      await emitEvent(trx, {
        accountId,
        keyId: job.key_id,
        event: 'job.failed',
        data: { job_id: job.id, operation: job.operation, error: SUSPENDED_JOB_ERROR },
        now,
      });
      return true;
    });
    if (!taken) continue;
    failed++;
    // After the job can no longer run; a crash in between leaves the hold to the sweeper, which refunds it too.
    if (job.hold_id) await releaseHold(db, job.hold_id, { now });
  }
  return failed;
}

export async function unsuspendAccount(
  db: Executor,
  input: OperatorChange & { accountId: string },
): Promise<{ status: 'active' }> {
  await inTransaction(db, async (trx) => {
    await lockAccount(trx, input.accountId);
    await trx.updateTable('accounts').set({ suspended_at: null }).where('id', '=', input.accountId).execute();
    await recordAudit(trx, {
      accountId: input.accountId,
      action: 'operator.account_unsuspended',
      origin: input.origin,
      target: input.accountId,
      details: { reason: input.reason },
      now: input.now,
    });
  });
  return { status: 'active' };
}
