import type { Kysely, Transaction } from 'kysely';
import { isDeadlock } from './errors.js';

const TRANSACTION_ATTEMPTS = 4;

const afterCommitHooks = new WeakMap<Kysely<any>, Array<() => void>>();

/**
 * Runs `work` again when InnoDB picks it as a deadlock victim; `work` must be one statement or one transaction.
 * The pause doubles each time (5 ms, 10 ms, … up to 640 ms) with jitter, so two writers that keep colliding drift
 * apart instead of meeting again a few milliseconds later.
 */
export async function retryingDeadlocks<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isDeadlock(error)) throw error;
      const pauseMs = Math.min(640, 5 * 2 ** (attempt - 1)) * (0.5 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}

/**
 * Runs `work` in a transaction, retrying when InnoDB picks it as a deadlock victim (the whole transaction was
 * rolled back, so running it again is safe). Transactions should still lock the account row first to avoid them.
 * Hooks registered with `afterCommit` run once the transaction has committed.
 */
export async function inTransaction<DB, T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return retryingDeadlocks(async () => {
    const hooks: Array<() => void> = [];
    const result = await db.transaction().execute((trx) => {
      afterCommitHooks.set(trx, hooks);
      return work(trx);
    });
    for (const hook of hooks) hook();
    return result;
  }, TRANSACTION_ATTEMPTS);
}

/** Runs `hook` after the surrounding `inTransaction` commits; outside one, right away (the write is already durable). */
export function afterCommit(trx: Kysely<any>, hook: () => void): void {
  const hooks = afterCommitHooks.get(trx);
  if (hooks) hooks.push(hook);
  else if (!trx.isTransaction) hook();
  // A transaction opened without inTransaction has no hook list: the worker's poll picks the work up instead.
}
