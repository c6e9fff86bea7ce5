import { type Kysely, sql } from 'kysely';
import { isMysql } from '../../../db/client.js';
import type { Database, Payout } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { dayToDate, millicentsToCents } from './money.js';

type Executor = Kysely<Database>;

export const MIN_PAYOUT_CENTS = 1000;

interface Balances {
  available_cents: number;
  requested_cents: number;
  paid_cents: number;
}

/** Earned (in whole cents, rounded down once) less what is requested or paid out; rejected payouts return. */
async function balances(db: Executor, accountId: string): Promise<Balances> {
  const [earned, payouts] = await Promise.all([
    db
      .selectFrom('earnings_daily')
      .select(sql<number>`coalesce(sum(earned_millicents), 0)`.as('earned'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('payouts')
      .select(['status', sql<number>`coalesce(sum(amount_cents), 0)`.as('cents')])
      .where('account_id', '=', accountId)
      .groupBy('status')
      .execute(),
  ]);
  const sumOf = (status: Payout['status']) => Number(payouts.find((row) => row.status === status)?.cents ?? 0);
  const requested = sumOf('requested');
  const paid = sumOf('paid');
  return {
    available_cents: millicentsToCents(Number(earned.earned)) - requested - paid,
    requested_cents: requested,
    paid_cents: paid,
  };
}

export async function earningsReport(
  db: Executor,
  input: { accountId: string; fromDay: number; toDay: number },
): Promise<
  Balances & {
    daily: Array<{ date: string; impressions: number; earned_cents: number }>;
    images: Array<{ image_id: string; impressions: number; earned_cents: number }>;
  }
> {
  const inRange = db
    .selectFrom('earnings_daily')
    .where('account_id', '=', input.accountId)
    .where('day', '>=', input.fromDay)
    .where('day', '<=', input.toDay);
  const [totals, byDay, byImage] = await Promise.all([
    balances(db, input.accountId),
    inRange
      .select([
        'day',
        sql<number>`sum(impressions)`.as('impressions'),
        sql<number>`sum(earned_millicents)`.as('earned'),
      ])
      .groupBy('day')
      .execute(),
    inRange
      .select([
        'image_id',
        sql<number>`sum(impressions)`.as('impressions'),
        sql<number>`sum(earned_millicents)`.as('earned'),
      ])
      .groupBy('image_id')
      .orderBy(sql`sum(earned_millicents)`, 'desc')
      .orderBy('image_id')
      .limit(500)
      .execute(),
  ]);
  const days = new Map(byDay.map((row) => [Number(row.day), row]));
  const daily = [];
  for (let day = input.fromDay; day <= input.toDay; day++) {
    const row = days.get(day);
    daily.push({
      date: dayToDate(day),
      impressions: Number(row?.impressions ?? 0),
      earned_cents: millicentsToCents(Number(row?.earned ?? 0)),
    });
  }
  return {
    ...totals,
    daily,
    images: byImage.map((row) => ({
      image_id: row.image_id,
      impressions: Number(row.impressions),
      earned_cents: millicentsToCents(Number(row.earned)),
    })),
  };
}

export interface PayoutView {
  id: string;
  amount_cents: number;
  status: Payout['status'];
  created_at: string;
  paid_at: string | null;
}

function payoutView(payout: Payout): PayoutView {
  return {
    id: payout.id,
    amount_cents: Number(payout.amount_cents),
    status: payout.status,
    created_at: new Date(payout.created_at).toISOString(),
    paid_at: payout.paid_at === null ? null : new Date(payout.paid_at).toISOString(),
  };
}

/**
 * Asks for a payout of at most what is available. The account's row is locked first (SQLite: the transaction is the
 * lock), so two requests at once cannot both spend the same earnings.
 */
export async function requestPayout(
  db: Executor,
  input: { accountId: string; amountCents: number; now: number },
): Promise<PayoutView> {
  return inTransaction(db, async (trx) => {
    const lock = trx.selectFrom('accounts').select('id').where('id', '=', input.accountId);
    await (isMysql(trx) ? lock.forUpdate() : lock).execute();
    const { available_cents } = await balances(trx, input.accountId);
    if (input.amountCents > available_cents)
      throw new AppError('conflict', `A payout may be at most the available earnings (${available_cents} cents).`, {
        available_cents,
      });
    const payout: Payout = {
      id: newId('payout'),
      account_id: input.accountId,
      amount_cents: input.amountCents,
      status: 'requested',
      reference: null,
      created_at: input.now,
      paid_at: null,
    };
    await trx.insertInto('payouts').values(payout).execute();
    return payoutView(payout);
  });
}

export async function listPayouts(db: Executor, accountId: string): Promise<PayoutView[]> {
  const rows = await db
    .selectFrom('payouts')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(500)
    .execute();
  return rows.map(payoutView);
}
