import { AppError } from '../../errors.js';

export interface Shortfall {
  accountId: string;
  /** Credits the request costs. */
  required: number;
  /** Balance seen when the charge was refused. */
  available: number;
  now: number;
}

/** The 402 error for a balance that cannot cover a request. */
export function shortfallError(
  shortfall: Pick<Shortfall, 'required' | 'available'>,
  autoTopUpFailed: boolean,
): AppError {
  if (autoTopUpFailed && shortfall.available === 0) {
    return new AppError(
      'no_credits',
      'You have no credits left and the automatic top-up could not add any. Buy credits or add a working payment method in the dashboard.',
      {
        credits_remaining: 0,
      },
    );
  }
  return new AppError(
    'insufficient_credits',
    `This request costs ${shortfall.required} credit${shortfall.required === 1 ? '' : 's'} and the balance is ${shortfall.available}. Buy credits to continue (one credit is $1).`,
    { credits_required: shortfall.required, credits_available: shortfall.available },
  );
}

/** What resolveShortfall needs of auto top-up (server/domain/billing/auto-topup.ts). */
export interface ShortfallTopUp {
  forShortfall(
    accountId: string,
    seenBalance: number,
  ): Promise<{ kind: 'succeeded' | 'failed' | 'skipped'; why?: string }>;
}

/**
 * Called when a charge was refused for lack of credits, outside any transaction. With auto top-up enabled it tries
 * (or waits for) one top-up and returns 'retry' when credits were added, so the caller charges once more;
 * otherwise it throws the 402 error: `no_credits` at a zero balance when the top-up failed or is paused,
 * `insufficient_credits` otherwise.
 */
export async function resolveShortfall(topUp: ShortfallTopUp, shortfall: Shortfall): Promise<'retry'> {
  const outcome = await topUp.forShortfall(shortfall.accountId, shortfall.available);
  if (outcome.kind === 'succeeded' || (outcome.kind === 'skipped' && outcome.why === 'balance_changed')) return 'retry';
  const autoTopUpFailed = outcome.kind === 'failed' || (outcome.kind === 'skipped' && outcome.why !== 'disabled');
  throw shortfallError(shortfall, autoTopUpFailed);
}
