import { sql } from 'kysely';
import type { Db } from '../../../../db/client.js';
import { inTransaction, retryingDeadlocks } from '../../../../db/transaction.js';
import { iso } from '../../../clock.js';
import type { AttemptResult } from './deliver.js';
import { honourRetryAfter, nextAfterFailure } from './retry-schedule.js';

/** A receiver answering 410 Gone says the endpoint is gone for good: the webhook is switched off, not retried. */
export const GONE_STATUS = 410;

/** A delivery leased by one attempt: `leaseUntil` proves the lease is still ours when the result is written. */
export interface LeasedDelivery {
  id: string;
  keyId: number;
  /** Attempts made before this one. */
  attempts: number;
  leaseUntil: number;
}

export interface FailurePolicy {
  retryDelaysMs: readonly number[];
  random?: () => number;
  /** Record `failed` now, whatever the schedule says (a test ping is not retried by itself). */
  final?: boolean;
}

/**
 * A result that is never written leaves its delivery leased, and it is sent again when the lease ends: so result
 * writes keep retrying as deadlock victims for a few seconds (see retryingDeadlocks) before giving up.
 */
const RESULT_WRITE_ATTEMPTS = 12;

export type RecordedOutcome =
  | { status: 'delivered' }
  | { status: 'pending'; nextAttemptAt: number }
  | { status: 'failed' };

/**
 * Writes one attempt's result, only while the lease is still ours: if it expired and another worker took the
 * delivery over, that worker's result is the one that counts (the receiver dedupes on the event id).
 */
export async function recordAttempt(
  db: Db,
  delivery: LeasedDelivery,
  result: AttemptResult,
  now: number,
  policy: FailurePolicy,
): Promise<RecordedOutcome> {
  const attemptsMade = delivery.attempts + 1;
  const gone = result.statusCode === GONE_STATUS;
  let outcome: RecordedOutcome;
  if (result.delivered) outcome = { status: 'delivered' };
  else {
    const next =
      policy.final || gone
        ? ({ retry: false } as const)
        : honourRetryAfter(nextAfterFailure(attemptsMade, policy.retryDelaysMs, policy.random), result.retryAfterMs);
    outcome = next.retry ? { status: 'pending', nextAttemptAt: now + next.delayMs } : { status: 'failed' };
  }
  const write = (trx: Db) =>
    trx
      .updateTable('webhook_deliveries')
      .set({
        status: outcome.status,
        attempts: sql<number>`attempts + 1`,
        locked_until: null,
        next_attempt_at: outcome.status === 'pending' ? outcome.nextAttemptAt : null,
        last_status_code: result.statusCode,
        last_error: result.error === null ? null : result.error.slice(0, 500),
        delivered_at: outcome.status === 'delivered' ? now : null,
      })
      .where('id', '=', delivery.id)
      .where('locked_until', '=', delivery.leaseUntil)
      .executeTakeFirst();
  if (!gone) {
    await retryingDeadlocks(() => write(db), RESULT_WRITE_ATTEMPTS);
    return outcome;
  }
  // The result and the switch-off commit together, and only while the lease is ours.
  await retryingDeadlocks(
    () =>
      inTransaction(db, async (trx) => {
        const written = await write(trx);
        if (Number(written.numUpdatedRows) === 0) return;
        await trx
          .updateTable('webhooks')
          .set({
            enabled: 0,
            disabled_reason: `The receiver answered 410 Gone on ${iso(now)}, so Roomstage switched this webhook off. Save it enabled to turn it back on.`,
            updated_at: now,
          })
          .where('key_id', '=', delivery.keyId)
          .execute();
      }),
    RESULT_WRITE_ATTEMPTS,
  );
  return outcome;
}

export interface DeliveredItem {
  delivery: LeasedDelivery;
  statusCode: number;
  deliveredAt: number;
}

/** Many successes in one statement: at a thousand deliveries a second, one commit each would be the bottleneck. */
export async function recordDeliveredBatch(db: Db, items: readonly DeliveredItem[]): Promise<void> {
  const byLease = new Map<number, DeliveredItem[]>();
  for (const item of items) {
    const group = byLease.get(item.delivery.leaseUntil) ?? [];
    group.push(item);
    byLease.set(item.delivery.leaseUntil, group);
  }
  for (const [leaseUntil, group] of byLease) {
    const caseOf = (value: (item: DeliveredItem) => number) =>
      sql<number>`CASE id ${sql.join(
        group.map((item) => sql`WHEN ${item.delivery.id} THEN ${value(item)}`),
        sql` `,
      )} END`;
    // A receiver nearly always answers one status (200) for a whole batch: then it is written as one value, which spares
    // building and evaluating a second CASE of a few hundred branches.
    const [onlyStatus, ...otherStatuses] = new Set(group.map((item) => item.statusCode));
    await retryingDeadlocks(
      () =>
        db
          .updateTable('webhook_deliveries')
          .set({
            status: 'delivered',
            attempts: sql<number>`attempts + 1`,
            locked_until: null,
            next_attempt_at: null,
            last_status_code:
              onlyStatus !== undefined && otherStatuses.length === 0 ? onlyStatus : caseOf((item) => item.statusCode),
            last_error: null,
            delivered_at: caseOf((item) => item.deliveredAt),
          })
          .where(
            'id',
            'in',
            group.map((item) => item.delivery.id),
          )
          .where('locked_until', '=', leaseUntil)
          .execute(),
      RESULT_WRITE_ATTEMPTS,
    );
  }
}
