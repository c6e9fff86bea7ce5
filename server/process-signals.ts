import { log } from './observability/logger.js';

/**
 * Ends the process gracefully on SIGTERM or SIGINT: runs `close` once (finish in-flight work, close the pool), then
 * exits 0, or 1 if closing failed. `forceAfterMs` later, `force` cuts what is still hanging on.
 */
export function closeOnSignals(
  what: string,
  close: () => Promise<void>,
  options: { force?: () => void; forceAfterMs?: number } = {},
): void {
  let closing = false;
  const shutdown = (why: string) => {
    if (closing) return;
    closing = true;
    log.info(`${why}: finishing ${what}…`);
    if (options.force) setTimeout(options.force, options.forceAfterMs ?? 10_000).unref();
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM received'));
  process.once('SIGINT', () => shutdown('SIGINT received'));
  watchParent(() => shutdown('The parent process ended'));
}

/**
 * A process manager may signal only the PID it started (npm, or a shell) and not us. When that parent dies we are
 * re-parented, so a changed ppid means nobody is left to stop us: shut down as if told to.
 */
function watchParent(orphaned: () => void, everyMs = 1000): void {
  const parent = process.ppid;
  if (parent <= 1) return;
  setInterval(() => {
    if (process.ppid !== parent) orphaned();
  }, everyMs).unref();
}
