import cluster from 'node:cluster';
import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';

export type { Logger };

/** Pretty lines for a person at a terminal, when pino-pretty (a dev dependency) is installed; JSON otherwise. */
function prettyTransport(): pino.TransportSingleOptions | undefined {
  if (!process.stdout.isTTY) return undefined;
  try {
    createRequire(import.meta.url).resolve('pino-pretty');
    return {
      target: 'pino-pretty',
      options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' },
    };
  } catch {
    return undefined;
  }
}

/** Every line says which process wrote it; in a cluster also its number (`cluster_process`). */
function processLabels(): Record<string, number> {
  const number = cluster.isWorker ? cluster.worker?.id : undefined;
  return number === undefined ? { pid: process.pid } : { pid: process.pid, cluster_process: number };
}

function build(level: string): Logger {
  const transport = prettyTransport();
  return pino({ level, base: processLabels(), ...(transport ? { transport } : {}) });
}

function initialLevel(): string {
  return process.env.LOG_LEVEL || (process.env.NODE_ENV === 'test' ? 'silent' : 'info');
}

/**
 * The process's one logger. Modules log through it (`log.error({ err }, 'what failed')`); entry points call
 * `configureLogging` with the parsed LOG_LEVEL. Errors go under `err`, so the full stack lands in the log line.
 */
export const log: Logger = build(initialLevel());

export function configureLogging(level: string): void {
  if (log.level !== level) log.level = level;
}
