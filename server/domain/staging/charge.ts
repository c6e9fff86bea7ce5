import type { Kysely } from 'kysely';
import type { Db } from '../../../db/client.js';
import type { Database, LedgerReason } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { placeHold } from '../credits/holds.js';
import { resolveShortfall, shortfallError, type ShortfallTopUp } from '../credits/shortfall.js';
import type { ApiCaller } from './deps.js';

export interface Charge {
  caller: ApiCaller;
  credits: number;
  reason: Extract<LedgerReason, 'stage' | 'enhance'>;
  /** Written on the ledger entry and its refund, to tie them to the request (the first image id). */
  reference: string;
}

export interface HeldCharge {
  holdId: string;
  /** The balance right after the charge. */
  balanceAfter: number;
}

/**
 * Takes the credits as a hold before any processing (server/domain/credits/holds.ts), in one transaction with
 * `beforeCharge` (which may refuse, e.g. a closed claim, and then nothing is charged) and `hold.onHeld` (what must
 * commit with the charge, e.g. the job that will use it). A balance that cannot cover
 * the charge goes to `resolveShortfall`, which either makes room (one more try) or throws the 402.
 */
export async function chargeCredits(
  db: Db,
  charge: Charge,
  hold: {
    now: () => number;
    timeoutMs: number;
    topUp: ShortfallTopUp & { afterCharge(accountId: string): void };
    onHeld?: (trx: Kysely<Database>, held: HeldCharge) => Promise<void>;
  },
  beforeCharge?: (trx: Kysely<Database>) => Promise<void>,
): Promise<HeldCharge> {
  for (let attempt = 0; ; attempt++) {
    const result = await inTransaction(db, async (trx) => {
      if (beforeCharge) await beforeCharge(trx);
      const placed = await placeHold(trx, {
        accountId: charge.caller.accountId,
        keyId: charge.caller.keyId,
        credits: charge.credits,
        reason: charge.reason,
        reference: charge.reference,
        idempotency: charge.caller.idempotency ?? null,
        now: hold.now(),
        timeoutMs: hold.timeoutMs,
      });
      if (placed.ok && hold.onHeld)
        await hold.onHeld(trx, { holdId: placed.holdId, balanceAfter: placed.balanceAfter });
      return placed;
    });
    if (result.ok) {
      // Outside the charge's transaction: a balance left below the threshold starts one top-up in the background.
      hold.topUp.afterCharge(charge.caller.accountId);
      return { holdId: result.holdId, balanceAfter: result.balanceAfter };
    }
    const shortfall = {
      accountId: charge.caller.accountId,
      required: charge.credits,
      available: result.available,
      now: hold.now(),
    };
    // A second refusal right after a top-up made room answers plainly instead of trying again.
    if (attempt > 0) throw shortfallError(shortfall, false);
    await resolveShortfall(hold.topUp, shortfall);
  }
}
