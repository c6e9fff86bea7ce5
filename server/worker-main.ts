/**
 * `npm run worker`: the webhook delivery worker and the asynchronous job runner alone (with the charge-hold sweeper),
 * for deployments that run them apart from the app servers.
 * Several workers and app servers can share one MySQL database; SIGTERM finishes attempts and jobs in flight first.
 * Like every process it also runs the retention job. With METRICS_PORT set it serves GET /metrics on that port
 * (this worker's webhook attempts, plus the database-backed gauges every process reports alike).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../db/client.js';
import { migrateToLatest } from '../db/migrate.js';
import { createHoldSweeper } from './domain/credits/hold-sweeper.js';
import { createJobRunner } from './domain/jobs/runner.js';
import type { ImagingDeps } from './domain/staging/deps.js';
import { systemClock } from './clock.js';
import { type Config, loadConfigOrExit } from './env.js';
import type { ImageEngine } from './imaging/engine.js';
import { createEngine } from './imaging/engines/index.js';
import { meteredEngine } from './imaging/metered-engine.js';
import { configureLogging, log } from './observability/logger.js';
import { type MetricsServer, startMetricsServer } from './http/metrics-server.js';
import { closeOnSignals } from './process-signals.js';
import { startRetentionJob } from './retention/job.js';
import { openImageStorage } from './storage/open.js';
import { createProcessMetrics, openPayments } from './services.js';
import { createWebhookWorker } from './webhooks/worker.js';

export interface RunningWorker {
  close(): Promise<void>;
}

/** `engine` replaces the configured engine (tests use a slow one). */
export async function startWorker(config: Config, options: { engine?: ImageEngine } = {}): Promise<RunningWorker> {
  configureLogging(config.logLevel);
  const handle = openDatabase(config.databaseUrl);
  await migrateToLatest(handle.db);
  const metrics = createProcessMetrics(handle.db);
  const worker = createWebhookWorker({
    db: handle.db,
    retryDelaysMs: config.webhookRetryDelaysMs,
    allowPrivateNetwork: config.allowPrivateNetwork,
    metrics,
  });
  worker.start();
  const storage = openImageStorage(config.storageUrl, config.publicBaseUrl);
  const deps: ImagingDeps = {
    db: handle.db,
    engine: meteredEngine(options.engine ?? createEngine(config), metrics),
    storage,
    clock: systemClock,
    network: { allowPrivateNetwork: config.allowPrivateNetwork },
    chargeHoldTimeoutMs: config.chargeHoldTimeoutMs,
    publicBaseUrl: config.publicBaseUrl,
    freeRerenders: config.freeRerenders,
    // Jobs are charged when accepted; a top-up a job's charge might start belongs to the process that took it.
    autoTopUp: openPayments(handle.db, config, systemClock, metrics).autoTopUp,
  };
  const jobs = createJobRunner({
    deps: () => deps,
    leaseMs: config.chargeHoldTimeoutMs,
    concurrency: config.jobsPerProcess,
    metrics,
  });
  jobs.start();
  // Worker processes sweep dead charge holds too, so refunds happen even when no app server is running.
  const sweeper = createHoldSweeper({ db: handle.db, timeoutMs: config.chargeHoldTimeoutMs });
  sweeper.start();
  const retention = startRetentionJob({
    db: handle.db,
    storage,
    clock: systemClock,
    policy: config.retention,
    intervalMs: config.retention.intervalMs,
  });
  let metricsServer: MetricsServer | null = null;
  if (config.metricsPort !== undefined)
    metricsServer = await startMetricsServer({ metrics, token: config.metricsToken, port: config.metricsPort });
  log.info(
    { database: handle.dialect, runs: ['webhooks', 'jobs'], metrics_port: metricsServer?.port ?? null },
    'Roomstage webhook worker running',
  );
  return {
    async close() {
      await metricsServer?.close();
      await worker.stop();
      await jobs.stop();
      await sweeper.stop();
      await retention.stop();
      await handle.close();
    },
  };
}

async function main() {
  const running = await startWorker(loadConfigOrExit());
  closeOnSignals('deliveries and jobs in flight', running.close);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    log.fatal({ err: error }, 'the worker could not start');
    process.exit(1);
  });
}
