import { type Kysely, sql } from 'kysely';
import type { AdFundsEntry, AdFundsReason, Database } from '../../../db/schema.js';
import { iso } from '../../clock.js';
import { AppError } from '../../errors.js';
import { newId } from '../../ids.js';
import { reviveFundedCampaigns } from './campaigns.js';

type Executor = Kysely<Database>;

/**
 * Adds (or, for an adjustment, takes) ad funds with a ledger row in the caller's transaction: the balance is always
 * Σ ledger and never below zero. Added funds revive the campaigns that had stopped for lack of them.
 */
/** An ad funds ledger row as every reader sees it (the API, the operator CLI). */
export function adFundsEntryView(entry: AdFundsEntry) {
  return {
    id: entry.public_id,
    delta_millicents: Number(entry.delta_millicents),
    reason: entry.reason,
    created_at: iso(entry.created_at),
  };
}

export async function changeAdFunds(
  trx: Executor,
  input: {
    accountId: string;
    deltaMillicents: number;
    reason: Exclude<AdFundsReason, 'spend'>;
    reference: string | null;
    now: number;
  },
): Promise<AdFundsEntry> {
  const changed = await trx
    .updateTable('accounts')
    .set({ ad_funds_millicents: sql`ad_funds_millicents + ${input.deltaMillicents}` })
    .where('id', '=', input.accountId)
    .where(sql<boolean>`ad_funds_millicents + ${input.deltaMillicents} >= 0`)
    .executeTakeFirst();
  if (Number(changed.numUpdatedRows) !== 1) throw new AppError('conflict', 'The ad funds cannot go below zero.');
  const publicId = newId('adFunds');
  await trx
    .insertInto('ad_funds_ledger')
    .values({
      public_id: publicId,
      account_id: input.accountId,
      delta_millicents: input.deltaMillicents,
      reason: input.reason,
      reference: input.reference,
      spend_key: null,
      created_at: input.now,
    })
    .execute();
  if (input.deltaMillicents > 0) await reviveFundedCampaigns(trx, input.accountId, input.now);
  return trx.selectFrom('ad_funds_ledger').selectAll().where('public_id', '=', publicId).executeTakeFirstOrThrow();
}

export async function adFundsBalance(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select('ad_funds_millicents')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.ad_funds_millicents);
}

/** One page of the account's ad funds ledger, newest first; `startingAfter` is the last entry of the previous page. */
export async function listAdFunds(
  db: Executor,
  input: { accountId: string; limit: number; startingAfter?: string },
): Promise<{ entries: AdFundsEntry[]; hasMore: boolean }> {
  let query = db
    .selectFrom('ad_funds_ledger')
    .selectAll()
    .where('account_id', '=', input.accountId)
    .orderBy('id', 'desc')
    .limit(input.limit + 1);
  if (input.startingAfter !== undefined) {
    const known = await db
      .selectFrom('ad_funds_ledger')
      .select('id')
      .where('public_id', '=', input.startingAfter)
      .where('account_id', '=', input.accountId)
      .executeTakeFirst();
    if (!known)
      throw new AppError(
        'not_found',
        `No ad funds transaction ${input.startingAfter} in this account: pass the id of the last one of the previous page.`,
      );
    query = query.where('id', '<', known.id);
  }
  const rows = await query.execute();
  return { entries: rows.slice(0, input.limit), hasMore: rows.length > input.limit };
}
