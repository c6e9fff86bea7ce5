import type { Kysely } from 'kysely';
import type { Db } from '../../../db/client.js';
import type { Database, LedgerReason } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { changeCredits } from '../credits/ledger.js';
import { resolveShortfall, shortfallError } from '../credits/shortfall.js';
import type { ApiCaller } from './deps.js';

export interface Charge {
  caller: ApiCaller;
  credits: number;
  reason: Extract<LedgerReason, 'stage' | 'enhance'>;
  /** Written on the ledger entry and its refund, to tie them to the request (the first image id). */
  reference: string;
}

/**
 * Takes the credits before any processing, in one transaction with `beforeCharge` (which may refuse, e.g. a closed
 * claim, and then nothing is charged). A balance that cannot cover the charge goes to `resolveShortfall`, which
 * either makes room (one more try) or throws the 402. Returns the balance after the charge.
 */
export async function chargeCredits(db: Db, charge: Charge, now: () => number, beforeCharge?: (trx: Kysely<Database>) => Promise<void>): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const result = await inTransaction(db, async (trx) => {
      if (beforeCharge) await beforeCharge(trx);
      return changeCredits(trx, {
        accountId: charge.caller.accountId,
        delta: -charge.credits,
        reason: charge.reason,
        reference: charge.reference,
        apiKeyId: charge.caller.keyId,
        now: now(),
      });
    });
    if (result.ok) return result.balanceAfter;
    const shortfall = { accountId: charge.caller.accountId, required: charge.credits, available: result.available, now: now() };
    // A second refusal right after a top-up made room answers plainly instead of trying again.
    if (attempt > 0) throw shortfallError(shortfall, false);
    await resolveShortfall(db, shortfall);
  }
}

/** Gives back a charge whose request failed afterwards; the ledger keeps both entries (CONTRACT §1). */
export async function refundCredits(db: Db, charge: Charge, now: number): Promise<void> {
  await inTransaction(db, (trx) =>
    changeCredits(trx, {
      accountId: charge.caller.accountId,
      delta: charge.credits,
      reason: 'refund',
      reference: charge.reference,
      apiKeyId: charge.caller.keyId,
      now,
    }),
  );
}
