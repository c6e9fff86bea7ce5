import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { AppError } from '../../errors.js';

export interface Shortfall {
  accountId: string;
  /** Credits the request costs. */
  required: number;
  /** Balance seen when the charge was refused. */
  available: number;
  now: number;
}

/** The CONTRACT §1 402 for a balance that cannot cover a request. */
export function shortfallError(shortfall: Pick<Shortfall, 'required' | 'available'>, autoTopUpFailed: boolean): AppError {
  if (autoTopUpFailed && shortfall.available === 0) {
    return new AppError('no_credits', 'You have no credits left and the automatic top-up could not add any. Buy credits or add a working payment method in the dashboard.', {
      credits_remaining: 0,
    });
  }
  return new AppError(
    'insufficient_credits',
    `This request costs ${shortfall.required} credit${shortfall.required === 1 ? '' : 's'} and the balance is ${shortfall.available}. Buy credits to continue (one credit is $1).`,
    { credits_required: shortfall.required, credits_available: shortfall.available },
  );
}

/**
 * Called when a charge was refused for lack of credits, outside any transaction. It either makes room for the
 * charge and returns 'retry' (the caller charges once more), or throws the 402 to answer.
 *
 * Today it only answers: auto top-up is not built yet, so with auto top-up enabled no top-up can add credits, which
 * CONTRACT §1 answers as `no_credits` at a zero balance. The billing issue adds the off-session top-up here:
 * when `auto_topup_enabled` and a payment method is on file, charge `auto_topup_amount` credits and return
 * 'retry' on success (emitting auto_topup.success/failed as CONTRACT §8 says).
 */
export async function resolveShortfall(db: Kysely<Database>, shortfall: Shortfall): Promise<'retry'> {
  const account = await db.selectFrom('accounts').select(['auto_topup_enabled']).where('id', '=', shortfall.accountId).executeTakeFirst();
  const autoTopUpEnabled = account?.auto_topup_enabled === 1;
  throw shortfallError(shortfall, autoTopUpEnabled);
}
