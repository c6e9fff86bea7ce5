import type { Db } from '../../../db/client.js';
import { type Clock, systemClock } from '../../clock.js';
import { log as logger } from '../../observability/logger.js';
import { sweepDeadHolds } from './holds.js';

export interface HoldSweeper {
  start(): void;
  /** Stops sweeping and waits for a sweep in progress to finish. */
  stop(): Promise<void>;
}

/**
 * Runs in every server and worker process: refunds the holds of requests that died, a quarter of
 * CHARGE_HOLD_TIMEOUT apart (at most 30 s). Many sweepers can share one database; each hold is refunded once.
 * A sweep that fails (database away) is logged and simply runs again next time: nothing is lost, the holds stay.
 */
export function createHoldSweeper(options: {
  db: Db;
  timeoutMs: number;
  clock?: Clock;
  intervalMs?: number;
  log?: (message: string, error: unknown) => void;
}): HoldSweeper {
  const clock = options.clock ?? systemClock;
  const intervalMs = options.intervalMs ?? Math.max(50, Math.min(30_000, Math.floor(options.timeoutMs / 4)));
  const log = options.log ?? ((message, error) => logger.error({ err: error }, `holds: ${message}`));
  let running = false;
  let timer: NodeJS.Timeout | null = null;
  let sweeping: Promise<void> = Promise.resolve();

  async function sweepAll() {
    try {
      // Batches until no dead hold is left, so a restart after a crash refunds everything in one round.
      while (running && (await sweepDeadHolds(options.db, { now: clock.now() })) > 0);
    } catch (error) {
      log('sweeping dead holds failed; trying again at the next round', error);
    }
  }

  function schedule() {
    timer = setTimeout(() => {
      sweeping = sweepAll().finally(() => {
        if (running) schedule();
      });
    }, intervalMs);
    timer.unref();
  }

  return {
    start() {
      if (running) return;
      running = true;
      sweeping = sweepAll().finally(() => {
        if (running) schedule();
      });
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      await sweeping;
    },
  };
}
