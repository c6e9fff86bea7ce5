/**
 * `npm run worker`: the webhook delivery worker and the asynchronous job runner alone (with the charge-hold sweeper),
 * for deployments that run them apart from the app servers.
 * Several workers and app servers can share one MySQL database; SIGTERM finishes attempts and jobs in flight first.
 * Like every process it also runs the retention job. With METRICS_PORT set it serves GET /metrics on that port
 * (this worker's webhook attempts, plus the database-backed gauges every process reports alike).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Config, loadConfigOrExit } from './env.js';
import type { ImageEngine } from './imaging/engine.js';
import { log } from './observability/logger.js';
import { type MetricsServer, startMetricsServer } from './http/metrics-server.js';
import { giveBuffersHeadroom } from './heap.js';
import { closeOnSignals } from './process-signals.js';
import { isClusterProcess, runClusterPrimary } from './cluster.js';
import { createServices, prepareDatabase, startBackgroundWork } from './services.js';

export interface RunningWorker {
  close(): Promise<void>;
}

/** The app server's services and background work, without HTTP. `engine` replaces the configured engine (tests use a slow one). */
export async function startWorker(config: Config, options: { engine?: ImageEngine } = {}): Promise<RunningWorker> {
  const handle = await createServices(config, options);
  const { services } = handle;
  const background = startBackgroundWork(services, { queues: true });
  let metricsServer: MetricsServer | null = null;
  if (config.metricsPort !== undefined)
    metricsServer = await startMetricsServer({
      metrics: services.metrics,
      token: config.metricsToken,
      port: config.metricsPort,
    });
  log.info(
    { database: services.dialect, runs: ['webhooks', 'jobs'], metrics_port: metricsServer?.port ?? null },
    'Roomstage webhook worker running',
  );
  return {
    async close() {
      await metricsServer?.close();
      await background.stop();
      await handle.close();
    },
  };
}

async function main() {
  giveBuffersHeadroom();
  const config = loadConfigOrExit();
  if (config.workerConcurrency > 1 && !isClusterProcess()) {
    return runClusterPrimary({
      role: 'worker',
      processes: config.workerConcurrency,
      prepare: () => prepareDatabase(config),
    });
  }
  // The signals are taken before the worker says it runs: one that came between that line and the handlers would
  // meet the default action and kill the process without finishing anything.
  const starting = startWorker(config);
  closeOnSignals('deliveries and jobs in flight', async () => (await starting).close());
  await starting;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    log.fatal({ err: error }, 'the worker could not start');
    process.exit(1);
  });
}
