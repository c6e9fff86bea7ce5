import { sql } from 'kysely';
import type { Db } from '../../../db/client.js';
import { isUniqueViolation } from '../../../db/errors.js';
import type { TopUpAttempt } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { enqueueMail } from '../mail/outbox.js';
import { autoTopUpFailedMessage } from '../mail/messages.js';
import type { Clock } from '../../clock.js';
import { newId } from '../../ids.js';
import { log } from '../../observability/logger.js';
import { changeCredits } from '../credits/ledger.js';
import { emitEvent } from '../events/outbox.js';
import type { OffSessionCharge, PaymentGateway } from './gateway.js';

export type TopUpFailureReason =
  | 'card_declined'
  | 'authentication_required'
  | 'payment_method_missing'
  | 'monthly_limit_reached'
  | 'processing_error';

export type TopUpOutcome =
  | { kind: 'succeeded'; balance: number }
  | { kind: 'failed'; reason: TopUpFailureReason }
  /** Nothing was charged: auto top-up is off or paused, the balance is above the threshold, or it changed meanwhile. */
  | { kind: 'skipped'; why: 'disabled' | 'paused' | 'above_threshold' | 'balance_changed' | 'in_progress' };

/** After consecutive failed off-session charges: 1 h, then 6 h, then 24 h. */
export const PAUSES_MS = [3_600_000, 6 * 3_600_000, 24 * 3_600_000] as const;

export interface AutoTopUpDeps {
  db: Db;
  gateway: PaymentGateway;
  clock: Clock;
  /** How long a pending attempt may run before another process may finish it (same idempotency key). */
  leaseMs?: number;
  /** How long a request short of credits waits for a top-up another request started. */
  waitMs?: number;
  onOutcome?: (outcome: TopUpOutcome) => void;
  /** The dashboard's billing page, linked from the e-mail about a failed top-up. */
  billingUrl: string;
}

const DEFAULT_LEASE_MS = 120_000;

function startOfMonthUtc(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

function startOfNextMonthUtc(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readAccount(db: Db, accountId: string) {
  return db
    .selectFrom('accounts')
    .select([
      'credits',
      'auto_topup_enabled',
      'auto_topup_amount',
      'auto_topup_threshold',
      'auto_topup_monthly_limit',
      'auto_topup_paused_until',
      'auto_topup_consecutive_failures',
      'payment_method_id',
      'stripe_customer_id',
    ])
    .where('id', '=', accountId)
    .executeTakeFirst();
}

type AccountState = NonNullable<Awaited<ReturnType<typeof readAccount>>>;

export type Trigger = { kind: 'threshold' } | { kind: 'shortfall'; seenBalance: number };

/** Why no top-up is needed now, or null when one is. */
function notNeeded(
  account: AccountState | undefined,
  trigger: Trigger,
  now: number,
): Extract<TopUpOutcome, { kind: 'skipped' }>['why'] | null {
  if (account?.auto_topup_enabled !== 1) return 'disabled';
  if (account.auto_topup_paused_until !== null && account.auto_topup_paused_until > now) return 'paused';
  if (trigger.kind === 'threshold' && account.credits >= account.auto_topup_threshold) return 'above_threshold';
  if (trigger.kind === 'shortfall' && account.credits > trigger.seenBalance) return 'balance_changed';
  return null;
}

/**
 * The account's one pending attempt, claimed by this process: a new row (its unique `in_flight_account_id` admits
 * one per account across every process), or a pending attempt whose process died (lease passed), resumed with its
 * own id so Stripe's idempotency key makes the retry charge at most once. null: another top-up is running.
 */
async function claimAttempt(
  db: Db,
  accountId: string,
  amount: number,
  now: number,
  leaseMs: number,
): Promise<{ attempt: Pick<TopUpAttempt, 'id' | 'amount'>; fresh: boolean } | null> {
  const id = newId('topUp');
  try {
    await db
      .insertInto('topup_attempts')
      .values({
        id,
        account_id: accountId,
        in_flight_account_id: accountId,
        amount,
        status: 'pending',
        reason: null,
        payment_id: null,
        created_at: now,
        lease_expires_at: now + leaseMs,
        finished_at: null,
      })
      .execute();
    return { attempt: { id, amount }, fresh: true };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  const running = await db
    .selectFrom('topup_attempts')
    .select(['id', 'amount', 'lease_expires_at'])
    .where('in_flight_account_id', '=', accountId)
    .executeTakeFirst();
  if (!running || running.lease_expires_at >= now) return null;
  const taken = await db
    .updateTable('topup_attempts')
    .set({ lease_expires_at: now + leaseMs })
    .where('id', '=', running.id)
    .where('lease_expires_at', '=', running.lease_expires_at)
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1
    ? { attempt: { id: running.id, amount: running.amount }, fresh: false }
    : null;
}

async function creditsBoughtThisMonth(db: Db, accountId: string, now: number): Promise<number> {
  const row = await db
    .selectFrom('topup_attempts')
    .select(sql<number>`coalesce(sum(amount), 0)`.as('total'))
    .where('account_id', '=', accountId)
    .where('status', '=', 'succeeded')
    .where('created_at', '>=', startOfMonthUtc(now))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** Settles the attempt, the balance, the pause and the event in one transaction; false if it was settled already. */
async function settle(
  db: Db,
  input: {
    accountId: string;
    attemptId: string;
    amount: number;
    result: OffSessionCharge | { ok: false; reason: TopUpFailureReason };
    now: number;
    billingUrl: string;
  },
): Promise<TopUpOutcome | null> {
  const { accountId, attemptId, amount, result, now } = input;
  return inTransaction(db, async (trx) => {
    const finished = await trx
      .updateTable('topup_attempts')
      .set({
        status: result.ok ? 'succeeded' : 'failed',
        reason: result.ok ? null : result.reason,
        payment_id: result.ok ? result.paymentId : null,
        in_flight_account_id: null,
        finished_at: now,
      })
      .where('id', '=', attemptId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(finished.numUpdatedRows) !== 1) return null;
    if (result.ok) {
      const change = await changeCredits(trx, {
        accountId,
        delta: amount,
        reason: 'auto_topup',
        reference: result.paymentId,
        now,
      });
      const balance = change.ok ? change.balanceAfter : 0;
      await trx
        .updateTable('accounts')
        .set({
          auto_topup_paused_until: null,
          auto_topup_consecutive_failures: 0,
          auto_topup_last_failure_reason: null,
        })
        .where('id', '=', accountId)
        .execute();
      await emitEvent(trx, {
        accountId,
        keyId: null,
        event: 'auto_topup.success',
        data: { amount, new_balance: balance, payment_id: result.paymentId },
        now,
      });
      return { kind: 'succeeded', balance };
    }
    const account = await trx
      .selectFrom('accounts')
      .select(['credits', 'email', 'auto_topup_consecutive_failures'])
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    // The monthly cap pauses until the month turns; a failed charge pauses longer after each consecutive failure.
    const capped = result.reason === 'monthly_limit_reached';
    const failures = capped ? account.auto_topup_consecutive_failures : account.auto_topup_consecutive_failures + 1;
    const pausedUntil = capped
      ? startOfNextMonthUtc(now)
      : now + (PAUSES_MS[Math.min(failures, PAUSES_MS.length) - 1] ?? PAUSES_MS[0]);
    await trx
      .updateTable('accounts')
      .set({
        auto_topup_paused_until: pausedUntil,
        auto_topup_consecutive_failures: failures,
        auto_topup_last_failure_reason: result.reason,
      })
      .where('id', '=', accountId)
      .execute();
    await emitEvent(trx, {
      accountId,
      keyId: null,
      event: 'auto_topup.failed',
      data: { amount, current_balance: account.credits, reason: result.reason },
      now,
    });
    await enqueueMail(trx, {
      to: account.email,
      mail: autoTopUpFailedMessage({
        amount,
        reason: result.reason,
        balance: account.credits,
        billingUrl: input.billingUrl,
      }),
      now,
    });
    return { kind: 'failed', reason: result.reason };
  });
}

/** Waits for the account's running top-up to settle and reports how it ended. */
async function awaitRunning(deps: AutoTopUpDeps, accountId: string): Promise<TopUpOutcome> {
  const deadline = Date.now() + (deps.waitMs ?? 15_000);
  while (Date.now() < deadline) {
    await sleep(50);
    const running = await deps.db
      .selectFrom('topup_attempts')
      .select('id')
      .where('in_flight_account_id', '=', accountId)
      .executeTakeFirst();
    if (running) continue;
    const last = await deps.db
      .selectFrom('topup_attempts')
      .select(['status', 'reason'])
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .executeTakeFirst();
    if (last?.status === 'succeeded') {
      const account = await readAccount(deps.db, accountId);
      return { kind: 'succeeded', balance: account?.credits ?? 0 };
    }
    return { kind: 'failed', reason: (last?.reason as TopUpFailureReason | null) ?? 'processing_error' };
  }
  return { kind: 'skipped', why: 'in_progress' };
}

/** One auto top-up try for the account, if one is needed. Never throws for a card problem. */
async function runAutoTopUp(deps: AutoTopUpDeps, accountId: string, trigger: Trigger): Promise<TopUpOutcome> {
  const { db, gateway, clock } = deps;
  const before = await readAccount(db, accountId);
  const skip = notNeeded(before, trigger, clock.now());
  if (skip || !before) return { kind: 'skipped', why: skip ?? 'disabled' };
  const claimed = await claimAttempt(
    db,
    accountId,
    before.auto_topup_amount,
    clock.now(),
    deps.leaseMs ?? DEFAULT_LEASE_MS,
  );
  if (!claimed)
    return trigger.kind === 'shortfall' ? awaitRunning(deps, accountId) : { kind: 'skipped', why: 'in_progress' };
  const { attempt } = claimed;
  // Read again now that this process holds the account's one attempt: a top-up that just ended may have made room.
  const account = await readAccount(db, accountId);
  const stillSkip = claimed.fresh ? notNeeded(account, trigger, clock.now()) : null;
  if (stillSkip || !account) {
    await db.deleteFrom('topup_attempts').where('id', '=', attempt.id).where('status', '=', 'pending').execute();
    return { kind: 'skipped', why: stillSkip ?? 'disabled' };
  }
  let result: OffSessionCharge | { ok: false; reason: TopUpFailureReason };
  const limit = account.auto_topup_monthly_limit;
  if (limit !== null && (await creditsBoughtThisMonth(db, accountId, clock.now())) + attempt.amount > limit) {
    result = { ok: false, reason: 'monthly_limit_reached' };
  } else if (!account.payment_method_id) {
    result = { ok: false, reason: 'payment_method_missing' };
  } else {
    const charge = await gateway
      .chargeOffSession({
        customerId: account.stripe_customer_id,
        paymentMethodId: account.payment_method_id,
        credits: attempt.amount,
        accountId,
        idempotencyKey: `roomstage-topup-${attempt.id}`,
      })
      .catch((error: unknown): OffSessionCharge => ({ ok: false, reason: 'processing_error', message: String(error) }));
    if (!charge.ok)
      log.warn(
        { accountId, attemptId: attempt.id, reason: charge.reason, detail: charge.message },
        'auto top-up charge failed',
      );
    result = charge;
  }
  const outcome =
    (await settle(db, {
      accountId,
      attemptId: attempt.id,
      amount: attempt.amount,
      result,
      now: clock.now(),
      billingUrl: deps.billingUrl,
    })) ?? (await awaitRunning(deps, accountId));
  deps.onOutcome?.(outcome);
  return outcome;
}

export interface AutoTopUp {
  /** After a charge: tops up in the background when the balance fell below the threshold. */
  afterCharge(accountId: string): void;
  /** A request the balance cannot cover: tries (or waits for) a top-up before the 402. */
  forShortfall(accountId: string, seenBalance: number): Promise<TopUpOutcome>;
  /** Waits for background top-ups (shutdown, tests). */
  drain(): Promise<void>;
}

export function createAutoTopUp(deps: AutoTopUpDeps): AutoTopUp {
  const running = new Set<Promise<unknown>>();
  return {
    afterCharge(accountId) {
      const work = runAutoTopUp(deps, accountId, { kind: 'threshold' })
        .catch((error: unknown) =>
          log.error(
            { err: error, accountId },
            'auto top-up could not run; the next charge below the threshold tries again',
          ),
        )
        .finally(() => running.delete(work));
      running.add(work);
    },
    forShortfall(accountId, seenBalance) {
      return runAutoTopUp(deps, accountId, { kind: 'shortfall', seenBalance });
    },
    async drain() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
