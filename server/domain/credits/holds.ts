import type { Kysely } from 'kysely';
import { type Db, isMysql } from '../../../db/client.js';
import type { ChargeHold, Database } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { abandonIdempotentRequest, type IdempotencyClaim } from '../idempotency/requests.js';
import { log as logger } from '../../observability/logger.js';
import { changeCredits } from './ledger.js';

/*
 * Holds make a charge survive crashes. The debit is written when the hold is placed, so the balance
 * and the ledger agree at every moment; the hold row says the credits still wait for a result. The transaction that
 * stores the result deletes the row (final), or the credits come back once with a `refund` row: from the request
 * that failed, or from a sweeper in any process once the hold's lease has run out (the request died).
 * Every path removes the row with a conditional delete, so only one of them ever wins.
 */

type Executor = Kysely<Database>;

export interface HoldRequest {
  accountId: string;
  keyId: number | null;
  credits: number;
  reason: ChargeHold['reason'];
  reference: string;
  /** The request's Idempotency-Key record, freed with a refund so the client can retry it. */
  idempotency: IdempotencyClaim | null;
  now: number;
  /** CHARGE_HOLD_TIMEOUT: the first lease; the request renews it while it works (keepHoldAlive). */
  timeoutMs: number;
}

export type PlacedHold = { ok: true; holdId: string; balanceAfter: number } | { ok: false; available: number };

/** Debits the credits and records the hold, inside the caller's charge transaction. Refused when the balance is short. */
export async function placeHold(trx: Executor, request: HoldRequest): Promise<PlacedHold> {
  const change = await changeCredits(trx, {
    accountId: request.accountId,
    delta: -request.credits,
    reason: request.reason,
    reference: request.reference,
    apiKeyId: request.keyId,
    now: request.now,
  });
  if (!change.ok) return change;
  const holdId = newId('hold');
  await trx
    .insertInto('charge_holds')
    .values({
      id: holdId,
      account_id: request.accountId,
      key_id: request.keyId,
      credits: request.credits,
      reason: request.reason,
      reference: request.reference,
      idempotency_key: request.idempotency?.key ?? null,
      idempotency_started_at: request.idempotency?.startedAt ?? null,
      created_at: request.now,
      lease_expires_at: request.now + request.timeoutMs,
    })
    .execute();
  return { ok: true, holdId, balanceAfter: change.balanceAfter };
}

/**
 * Makes the charge final in the transaction that stores the result; call it first there, so the hold row is locked
 * before anything else. If the hold was refunded meanwhile, this throws and the whole transaction rolls back: no
 * result is ever stored for credits that were given back.
 */
export async function finalizeHold(trx: Executor, holdId: string): Promise<void> {
  const deleted = await trx.deleteFrom('charge_holds').where('id', '=', holdId).executeTakeFirst();
  if (Number(deleted.numDeletedRows) !== 1) {
    throw new AppError(
      'service_unavailable',
      'The request took too long to finish and its credits were refunded; nothing was stored. Retry it.',
    );
  }
}

/**
 * Refunds a hold exactly once: the refund row, the hold's removal and the freeing of its Idempotency-Key commit
 * together, and only if the hold is still there (and, for the sweeper, `leaseEndedBy` has passed its lease).
 * Returns false when another path (the result's transaction, another process's sweeper) got there first.
 */
export async function releaseHold(
  db: Db,
  holdId: string,
  options: { now: number; leaseEndedBy?: number },
): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    let lookup = trx.selectFrom('charge_holds').selectAll().where('id', '=', holdId);
    if (options.leaseEndedBy !== undefined) lookup = lookup.where('lease_expires_at', '<=', options.leaseEndedBy);
    // A hold another transaction is finalizing, renewing or releasing is theirs; on SQLite writers are serial anyway.
    if (isMysql(trx)) lookup = lookup.forUpdate().skipLocked();
    const hold = await lookup.executeTakeFirst();
    if (!hold) return false;
    const deleted = await trx.deleteFrom('charge_holds').where('id', '=', holdId).executeTakeFirst();
    if (Number(deleted.numDeletedRows) !== 1) return false;
    await changeCredits(trx, {
      accountId: hold.account_id,
      delta: hold.credits,
      reason: 'refund',
      reference: hold.reference,
      apiKeyId: hold.key_id,
      now: options.now,
    });
    if (hold.idempotency_key !== null && hold.idempotency_started_at !== null && hold.key_id !== null) {
      await abandonIdempotentRequest(trx, {
        keyId: hold.key_id,
        idempotencyKey: hold.idempotency_key,
        startedAt: hold.idempotency_started_at,
      });
    }
    return true;
  });
}

export interface HoldLease {
  /** Stops renewing and waits for a renewal in flight, so nothing touches the hold afterwards. */
  stop(): Promise<void>;
}

/**
 * Renews the hold's lease every third of the timeout while the request works, so a long request is never taken
 * for a dead one. A renewal that fails is tried again at the next tick; if the process dies, the lease runs out.
 */
export function keepHoldAlive(
  db: Db,
  holdId: string,
  options: { clock: Clock; timeoutMs: number; log?: (message: string, error: unknown) => void },
): HoldLease {
  const log = options.log ?? ((message, error) => logger.error({ err: error }, `holds: ${message}`));
  let renewing: Promise<void> | null = null;
  const renew = async () => {
    try {
      await db
        .updateTable('charge_holds')
        .set({ lease_expires_at: options.clock.now() + options.timeoutMs })
        .where('id', '=', holdId)
        .execute();
    } catch (error) {
      log(`could not renew the lease of hold ${holdId}; trying again`, error);
    }
  };
  const timer = setInterval(
    () => {
      if (!renewing) renewing = renew().finally(() => (renewing = null));
    },
    Math.max(1, Math.floor(options.timeoutMs / 3)),
  );
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await renewing;
    },
  };
}

/** Refunds up to `limit` holds whose lease ended by `now`, oldest first; returns how many this call refunded. */
export async function sweepDeadHolds(db: Db, options: { now: number; limit?: number }): Promise<number> {
  const dead = await db
    .selectFrom('charge_holds')
    .select('id')
    .where('lease_expires_at', '<=', options.now)
    .orderBy('lease_expires_at')
    .limit(options.limit ?? 100)
    .execute();
  let refunded = 0;
  for (const { id } of dead) {
    if (await releaseHold(db, id, { now: options.now, leaseEndedBy: options.now })) refunded += 1;
  }
  return refunded;
}

/** Holds not yet final or refunded, for metrics. */
export async function countOutstandingHolds(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('charge_holds')
    .select((eb) => eb.fn.countAll<number>().as('outstanding'))
    .executeTakeFirstOrThrow();
  return Number(row.outstanding);
}
