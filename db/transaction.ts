import type { Kysely, Transaction } from 'kysely';

const RETRYABLE_MYSQL_ERRORS = new Set([1213 /* ER_LOCK_DEADLOCK */, 1205 /* ER_LOCK_WAIT_TIMEOUT */]);
const MAX_ATTEMPTS = 4;

function isRetryable(error: unknown): boolean {
  return RETRYABLE_MYSQL_ERRORS.has((error as { errno?: number })?.errno ?? 0);
}

/**
 * Runs `work` in a transaction, retrying when InnoDB picks it as a deadlock victim (the whole transaction was
 * rolled back, so running it again is safe). Transactions should still lock the account row first to avoid them.
 */
export async function inTransaction<DB, T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isRetryable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 10));
    }
  }
}
