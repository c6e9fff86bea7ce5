import { log } from './observability/logger.js';

/**
 * Ends the process gracefully on SIGTERM or SIGINT: runs `close` once (finish in-flight work, close the pool), then
 * exits 0, or 1 if closing failed. `forceAfterMs` later, `force` cuts what is still hanging on.
 */
export function closeOnSignals(what: string, close: () => Promise<void>, options: { force?: () => void; forceAfterMs?: number } = {}): void {
  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    log.info(`${signal} received: finishing ${what}…`);
    if (options.force) setTimeout(options.force, options.forceAfterMs ?? 10_000).unref();
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
