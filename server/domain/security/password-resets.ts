/**
 * Password-reset requests, durable from the answer on. The answer must not tell a registered address from an unknown
 * one, by its body or by its time: so the request is only recorded before the answer (one row, whatever the address),
 * and prepared after it (identity.ts: a token and a message for a registered address, nothing otherwise). A process
 * that dies between the two leaves the row; any process prepares it once its lease (or none) runs out, and the
 * preparation commits with the row's removal, so each request is prepared once.
 */
import { EventEmitter } from 'node:events';
import type { Db } from '../../../db/client.js';
import { createLeaseLoop, inClaimTransaction, lockedForClaim } from '../../../db/leasing.js';
import { inTransaction } from '../../../db/transaction.js';
import type { Clock } from '../../clock.js';
import { newId } from '../../ids.js';
import { log as logger } from '../../observability/logger.js';
import { type IdentityLinks, preparePasswordReset } from './identity.js';

/** In-process wake-up for the preparer, fired when a request is recorded. */
const requested = new EventEmitter();
requested.setMaxListeners(0);
const WAKE = 'wake';

/** A request claimed by a process that died is due again after this. */
const PASSWORD_RESET_LEASE_MS = 60_000;
const BATCH = 20;

/** Records a reset asked for `email` (normalized when prepared): the same one write whatever the address. */
export async function recordPasswordResetRequest(db: Db, input: { email: string; now: number }): Promise<void> {
  await db
    .insertInto('password_reset_requests')
    .values({ id: newId('passwordReset'), email: input.email, requested_at: input.now, claimed_until: input.now })
    .execute();
  // The preparer wakes once the answer is on its way: SQLite's calls would hold it back otherwise, and a registered
  // address would answer later than an unknown one.
  setImmediate(() => requested.emit(WAKE));
}

/**
 * Prepares the requests due at `now`, a batch at a time: claims them (a lease of `leaseMs`), then prepares each in a
 * transaction that also removes it, unless another process took it over after the lease ran out. Returns how many it
 * claimed.
 */
export async function preparePasswordResets(
  db: Db,
  input: { links: IdentityLinks; now: number; leaseMs?: number },
): Promise<number> {
  const leaseUntil = input.now + (input.leaseMs ?? PASSWORD_RESET_LEASE_MS);
  const claimed = await inClaimTransaction(db, async (trx) => {
    const due = await lockedForClaim(
      trx,
      trx
        .selectFrom('password_reset_requests')
        .select(['id', 'email'])
        .where('claimed_until', '<=', input.now)
        .orderBy('claimed_until')
        .limit(BATCH),
    ).execute();
    if (due.length > 0)
      await trx
        .updateTable('password_reset_requests')
        .set({ claimed_until: leaseUntil })
        .where(
          'id',
          'in',
          due.map((row) => row.id),
        )
        .execute();
    return due;
  });
  for (const row of claimed)
    await inTransaction(db, async (trx) => {
      const removed = await trx
        .deleteFrom('password_reset_requests')
        .where('id', '=', row.id)
        .where('claimed_until', '=', leaseUntil)
        .executeTakeFirst();
      if (Number(removed.numDeletedRows) !== 1) return;
      await preparePasswordReset(trx, { email: row.email, links: input.links, now: input.now });
    });
  return claimed.length;
}

export interface PasswordResetPreparer {
  start(): void;
  /** Stops preparing and waits for a round in progress to finish. */
  stop(): Promise<void>;
}

/**
 * Runs in every process (db/leasing.ts's claiming loop): prepares the requests this process records right after its
 * answer, and every `intervalMs` those another process recorded or left behind when it died.
 */
export function createPasswordResetPreparer(options: {
  db: Db;
  clock: Clock;
  links: IdentityLinks;
  intervalMs?: number;
  leaseMs?: number;
}): PasswordResetPreparer {
  const { db, clock, links, leaseMs } = options;
  const loop = createLeaseLoop({
    round: async () => (await preparePasswordResets(db, { links, leaseMs, now: clock.now() })) > 0,
    pollIntervalMs: options.intervalMs ?? 5_000,
    wakeOn: { emitter: requested, event: WAKE },
    onRoundError: (error) =>
      logger.error({ err: error }, 'password resets could not be prepared; trying again at the next round'),
  });
  return { start: loop.start, stop: loop.stop };
}
