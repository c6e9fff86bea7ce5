import { type Kysely, sql } from 'kysely';
import type { Database, Payout } from '../../../db/schema.js';
import { millicentsToCents } from '../ads/money.js';

type Executor = Kysely<Database>;

/** An agent's earnings as payouts see them, in milli-cents: held ones are not payable yet. */
export interface EarningsMillicents {
  earned: number;
  /** The agent's share of impressions counted within the hold (EARNINGS_HOLD), not declared invalid. */
  pending: number;
  /** Asked for (requested) or paid out, in milli-cents: no longer the agent's to lose. */
  committed: number;
  requestedCents: number;
  paidCents: number;
}

export interface EarningsBalances {
  available_cents: number;
  pending_cents: number;
  requested_cents: number;
  paid_cents: number;
}

/** The milli-cent figures every balance is made of, read in the caller's transaction. */
export async function earningsMillicents(
  db: Executor,
  input: { accountId: string; now: number; holdMs: number },
): Promise<EarningsMillicents> {
  const [earned, pending, payouts] = await Promise.all([
    db
      .selectFrom('earnings_daily')
      .select(sql<number>`coalesce(sum(earned_millicents), 0)`.as('earned'))
      .where('account_id', '=', input.accountId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('impression_charges')
      .select(sql<number>`coalesce(sum(agent_millicents), 0)`.as('pending'))
      .where('agent_id', '=', input.accountId)
      .where('counted_at', '>', input.now - input.holdMs)
      .where('invalid_traffic_id', 'is', null)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('payouts')
      .select(['status', sql<number>`coalesce(sum(amount_cents), 0)`.as('cents')])
      .where('account_id', '=', input.accountId)
      .groupBy('status')
      .execute(),
  ]);
  const sumOf = (status: Payout['status']) => Number(payouts.find((row) => row.status === status)?.cents ?? 0);
  const requestedCents = sumOf('requested');
  const paidCents = sumOf('paid');
  return {
    earned: Number(earned.earned),
    pending: Number(pending.pending),
    committed: (requestedCents + paidCents) * 1000,
    requestedCents,
    paidCents,
  };
}

/**
 * Earned (in whole cents, rounded down once) split into pending (still held) and available (matured, less what is
 * requested or paid out; rejected payouts return): available + pending + requested + paid = earned.
 */
export async function earningsBalances(
  db: Executor,
  input: { accountId: string; now: number; holdMs: number },
): Promise<EarningsBalances> {
  const figures = await earningsMillicents(db, input);
  const earnedCents = millicentsToCents(figures.earned);
  const maturedCents = millicentsToCents(figures.earned - figures.pending);
  return {
    available_cents: maturedCents - figures.requestedCents - figures.paidCents,
    pending_cents: earnedCents - maturedCents,
    requested_cents: figures.requestedCents,
    paid_cents: figures.paidCents,
  };
}
