import { expect } from 'vitest';
import type { Db } from '../../db/client.js';
import { inTransaction } from '../../db/transaction.js';

export interface Books {
  credits: number;
  ledgerSum: number;
  /** Credits charged for images (stage, enhance) minus credits refunded. */
  chargedNet: number;
  /** Images that cost credits (staged, enhanced; re-renders but the free ones). */
  paidImages: number;
  heldCredits: number;
  holds: number;
}

/** One consistent snapshot of an account's money: balance, ledger, holds and the paid images. */
export async function readBooks(db: Db, accountId: string): Promise<Books> {
  return inTransaction(db, async (trx) => {
    const account = await trx
      .selectFrom('accounts')
      .select('credits')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    const ledger = await trx
      .selectFrom('credit_ledger')
      .select(['delta', 'reason'])
      .where('account_id', '=', accountId)
      .execute();
    const images = await trx
      .selectFrom('images')
      .select(['kind', 'free_rerenders_used'])
      .where('account_id', '=', accountId)
      .execute();
    const freeRerenders = images.reduce((total, image) => total + Number(image.free_rerenders_used), 0);
    const holds = await trx.selectFrom('charge_holds').select('credits').where('account_id', '=', accountId).execute();
    const sum = (rows: Array<{ delta: number }>) => rows.reduce((total, row) => total + Number(row.delta), 0);
    return {
      credits: account.credits,
      ledgerSum: sum(ledger),
      chargedNet:
        0 -
        sum(ledger.filter((row) => row.reason === 'stage' || row.reason === 'enhance')) -
        sum(ledger.filter((row) => row.reason === 'refund')),
      paidImages: images.filter((image) => image.kind !== 'placed').length - freeRerenders,
      heldCredits: holds.reduce((total, hold) => total + hold.credits, 0),
      holds: holds.length,
    };
  });
}

/**
 * credits = Σ ledger, and every credit charged and not refunded is either an image that was stored (1 credit each)
 * or still held by a request in flight: no credit is kept for a result that was never stored.
 */
export function expectBooksAgree(books: Books): void {
  expect(books.credits).toBe(books.ledgerSum);
  expect(books.chargedNet).toBe(books.paidImages + books.heldCredits);
}
