import type { Kysely } from 'kysely';
import type { Database, LedgerEntry } from '../../../db/schema.js';
import { AppError } from '../../errors.js';
import { ID_PREFIXES } from '../../ids.js';

type Executor = Kysely<Database>;

const PREFIX = `${ID_PREFIXES.ledger}_`;

/** A ledger entry's public id: `txn_` + its row id, which orders entries by the time they were written. */
export function transactionId(entryId: number): string {
  return `${PREFIX}${entryId}`;
}

function entryIdOf(transactionIdText: string): number | null {
  if (!transactionIdText.startsWith(PREFIX)) return null;
  const digits = transactionIdText.slice(PREFIX.length);
  return /^[1-9]\d{0,15}$/.test(digits) ? Number(digits) : null;
}

export interface TransactionPage {
  entries: LedgerEntry[];
  hasMore: boolean;
}

/**
 * One page of the account's ledger, newest first, by the index on (account_id, id). `startingAfter` is the last
 * transaction of the previous page; one that is unknown or another account's is 404, like any id (CONTRACT §1).
 */
export async function listTransactions(db: Executor, input: { accountId: string; limit: number; startingAfter?: string }): Promise<TransactionPage> {
  let page = db.selectFrom('credit_ledger').selectAll().where('account_id', '=', input.accountId);
  if (input.startingAfter !== undefined) {
    const cursor = entryIdOf(input.startingAfter);
    const known =
      cursor !== null &&
      (await db.selectFrom('credit_ledger').select('id').where('id', '=', cursor).where('account_id', '=', input.accountId).executeTakeFirst());
    if (!known) throw new AppError('not_found', `No transaction ${input.startingAfter} in this account: pass the id of the last transaction of the previous page.`);
    page = page.where('id', '<', cursor);
  }
  // One extra row tells whether another page follows.
  const rows = await page.orderBy('id', 'desc').limit(input.limit + 1).execute();
  return { entries: rows.slice(0, input.limit), hasMore: rows.length > input.limit };
}
