import type { Db } from '../../db/client.js';
import { isMysql } from '../../db/client.js';
import { inTransaction, retryingDeadlocks } from '../../db/transaction.js';
import { randomBase62 } from '../ids.js';
import { log } from '../observability/logger.js';

/** Longer than any image operation may take; a lease left by a crashed process frees itself after this. */
export const LEASE_MS = 120_000;

/** Operations of the key in flight that hold no lease here (its queued and running jobs), counted in the same transaction. */
export type InFlightElsewhere = (trx: Db, keyId: number) => Promise<number>;

/**
 * Takes one of the key's `limit` slots for image operations in flight, across every process sharing the database;
 * the key's queued and running jobs fill slots too.
 * Returns a release function, or null when all slots are taken.
 */
export async function acquireImageSlot(
  db: Db,
  input: { keyId: number; limit: number; now: number; inFlightElsewhere: InFlightElsewhere },
): Promise<(() => Promise<void>) | null> {
  const leaseId = `lse_${randomBase62(20)}`;
  const acquired = await inTransaction(db, async (trx) => {
    // Serialise slot-taking per key on MySQL by locking the key's row; SQLite transactions are already serial.
    if (isMysql(trx)) await trx.selectFrom('api_keys').select('id').where('id', '=', input.keyId).forUpdate().execute();
    await trx
      .deleteFrom('image_operation_leases')
      .where('key_id', '=', input.keyId)
      .where('expires_at', '<=', input.now)
      .execute();
    const { inFlight } = await trx
      .selectFrom('image_operation_leases')
      .select((eb) => eb.fn.countAll<number>().as('inFlight'))
      .where('key_id', '=', input.keyId)
      .executeTakeFirstOrThrow();
    // Asynchronous jobs waiting or running for this key are operations in flight too.
    if (Number(inFlight) + (await input.inFlightElsewhere(trx, input.keyId)) >= input.limit) return false;
    await trx
      .insertInto('image_operation_leases')
      .values({ id: leaseId, key_id: input.keyId, expires_at: input.now + LEASE_MS })
      .execute();
    return true;
  });
  if (!acquired) return null;
  return () => releaseLease(db, leaseId);
}

/**
 * Never fails the request it guards: that request has done its work (and may have charged for it). InnoDB can
 * pick the DELETE as a deadlock victim against another key's slot-taking, so it is retried; if it still fails,
 * the lease frees itself when it expires.
 */
async function releaseLease(db: Db, leaseId: string): Promise<void> {
  try {
    await retryingDeadlocks(() => db.deleteFrom('image_operation_leases').where('id', '=', leaseId).execute());
  } catch (error) {
    log.error({ err: error, leaseId }, `image slot could not be released; it expires within ${LEASE_MS / 1000} s`);
  }
}
