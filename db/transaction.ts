import type { Kysely, Transaction } from 'kysely';

const RETRYABLE_MYSQL_ERRORS = new Set([1213 /* ER_LOCK_DEADLOCK */, 1205 /* ER_LOCK_WAIT_TIMEOUT */]);
const MAX_ATTEMPTS = 4;

const afterCommitHooks = new WeakMap<Kysely<any>, Array<() => void>>();

function isRetryable(error: unknown): boolean {
  return RETRYABLE_MYSQL_ERRORS.has((error as { errno?: number })?.errno ?? 0);
}

/**
 * Runs `work` in a transaction, retrying when InnoDB picks it as a deadlock victim (the whole transaction was
 * rolled back, so running it again is safe). Transactions should still lock the account row first to avoid them.
 * Hooks registered with `afterCommit` run once the transaction has committed.
 */
export async function inTransaction<DB, T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const hooks: Array<() => void> = [];
    try {
      const result = await db.transaction().execute((trx) => {
        afterCommitHooks.set(trx, hooks);
        return work(trx);
      });
      for (const hook of hooks) hook();
      return result;
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isRetryable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 10));
    }
  }
}

/** Runs `hook` after the surrounding `inTransaction` commits; outside one, right away (the write is already durable). */
export function afterCommit(trx: Kysely<any>, hook: () => void): void {
  const hooks = afterCommitHooks.get(trx);
  if (hooks) hooks.push(hook);
  else if (!trx.isTransaction) hook();
  // A transaction opened without inTransaction has no hook list: the worker's poll picks the work up instead.
}
