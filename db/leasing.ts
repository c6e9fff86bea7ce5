import type { SelectQueryBuilder } from 'kysely';
import { type Db, isMysql } from './client.js';
import { retryingDeadlocks } from './transaction.js';

/*
 * Claiming work from a table shared by many processes (the webhook outbox, asynchronous jobs): one short transaction
 * reads the due rows with `lockedForClaim` and leases them (an owner and an expiry written on the rows); a worker that
 * dies leaves rows whose lease runs out and that any worker claims again.
 */

/**
 * Runs one claiming transaction. On MySQL it is READ COMMITTED, so InnoDB takes no gap locks that would make
 * concurrent inserts into the table wait, and it is retried when picked as a deadlock victim. SQLite has one writer
 * at a time (BEGIN IMMEDIATE), so a plain transaction is already exclusive.
 */
export function inClaimTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return retryingDeadlocks(() =>
    isMysql(db)
      ? db
          .transaction()
          .setIsolationLevel('read committed')
          .execute((trx) => work(trx))
      : db.transaction().execute((trx) => work(trx)),
  );
}

/** Rows another worker is claiming right now are skipped, not waited for (MySQL: FOR UPDATE SKIP LOCKED). */
export function lockedForClaim<DB, TB extends keyof DB, O>(
  trx: Db,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return isMysql(trx) ? query.forUpdate().skipLocked() : query;
}
