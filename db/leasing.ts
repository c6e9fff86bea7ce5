import type { SelectQueryBuilder } from 'kysely';
import type { EventEmitter } from 'node:events';
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

export interface LeaseLoopOptions {
  /** One claiming round: claims due rows and starts their work (through `track`); true when more may be due now. */
  round(): Promise<boolean>;
  /** How long to sleep when nothing wakes the loop sooner (rows emitted by another process, leases run out). */
  pollIntervalMs: number;
  /** In-process notice that rows fell due: wakes the loop at once. */
  wakeOn?: { emitter: EventEmitter; event: string };
  /** A failed round is reported and the loop sleeps as usual before the next. */
  onRoundError(error: unknown): void;
  /** A pause after each round (ms, 0 for none), e.g. to gather freed slots into one claiming round. */
  pauseAfterRound?(): number;
  /** After the loop stops claiming and before waiting for tracked work: hand back rows claimed but not started. */
  onStop?(): Promise<void>;
  /** Before each wait for tracked work while stopping: write results buffered for a batch. */
  flush?(): Promise<void>;
}

export interface LeaseLoop {
  start(): void;
  /** Stops claiming and waits for every tracked piece of work to finish. */
  stop(): Promise<void>;
  /** Claim now rather than at the next poll. */
  wake(): void;
  /** Work the loop started (an attempt, a job, a batch write); `stop` waits for it. */
  track<T>(work: Promise<T>): Promise<T>;
  readonly running: boolean;
}

/**
 * The polling half of leasing, shared by every worker that claims rows (webhook deliveries, jobs): claim in rounds,
 * sleep until the next poll or a wake, and on stop drain the work in flight, so claimed rows finish or go back.
 */
export function createLeaseLoop(options: LeaseLoopOptions): LeaseLoop {
  let running = false;
  let loopDone: Promise<void> = Promise.resolve();
  let wakePending = false;
  let wakeWaiter: (() => void) | null = null;
  const work = new Set<Promise<unknown>>();

  function wake() {
    wakePending = true;
    wakeWaiter?.();
  }

  function waitForWake(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wakeWaiter = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      wakeWaiter = done;
    });
  }

  async function loop(): Promise<void> {
    while (running) {
      wakePending = false;
      let more = false;
      try {
        more = await options.round();
      } catch (error) {
        options.onRoundError(error);
      }
      if (!running) break;
      if (!more && !wakePending) await waitForWake(options.pollIntervalMs);
      const pauseMs = running ? (options.pauseAfterRound?.() ?? 0) : 0;
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      options.wakeOn?.emitter.on(options.wakeOn.event, wake);
      loopDone = loop();
    },
    async stop() {
      if (!running) return;
      running = false;
      options.wakeOn?.emitter.off(options.wakeOn.event, wake);
      wakeWaiter?.();
      await loopDone;
      await options.onStop?.();
      while (work.size > 0) {
        await options.flush?.();
        await Promise.allSettled([...work]);
      }
    },
    wake,
    track(promise) {
      work.add(promise);
      void promise.finally(() => work.delete(promise)).catch(() => {});
      return promise;
    },
    get running() {
      return running;
    },
  };
}
