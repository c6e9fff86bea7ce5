import type { Db } from '../../db/client.js';
import type { Clock } from '../clock.js';
import { log } from '../observability/logger.js';
import type { ImageStorage } from '../storage/storage.js';
import { purgeExpired, type RetentionPolicy } from './purge.js';

export interface RetentionJob {
  /** Runs one pass now (tests, and the timer). Passes never overlap within a process. */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Runs the retention pass every `intervalMs` in every process (app nodes and workers). Every step is an idempotent
 * delete, so processes running it at the same time only repeat each other's work; the jitter keeps them apart.
 */
export function startRetentionJob(options: {
  db: Db;
  storage: ImageStorage;
  clock: Clock;
  policy: RetentionPolicy;
  intervalMs: number;
}): RetentionJob {
  let running: Promise<void> | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;

  const runOnce = () =>
    (running ??= purgeExpired(options.db, options.storage, options.policy, options.clock.now())
      .then((report) => log.info({ component: 'retention', ...report }, 'retention pass done'))
      .catch((error: unknown) =>
        log.error({ err: error, component: 'retention' }, 'retention pass failed; retried next interval'),
      )
      .finally(() => {
        running = null;
      }));

  const schedule = (delayMs: number) => {
    if (stopped) return;
    // setTimeout takes at most ~24.8 days.
    timer = setTimeout(
      () => void runOnce().then(() => schedule(options.intervalMs * (0.9 + Math.random() * 0.2))),
      Math.min(delayMs, 2 ** 31 - 1),
    );
    timer.unref();
  };
  // The first pass comes within one interval, at a random moment so a fleet started together does not purge together.
  schedule(options.intervalMs * Math.random());

  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
