/**
 * `npm run worker`: the webhook delivery worker alone (with the charge-hold sweeper), for deployments that run it
 * apart from the app servers.
 * Several workers and app servers can share one MySQL database; SIGTERM finishes attempts in flight first.
 * Like every process it also runs the retention job. With METRICS_PORT set it serves GET /metrics on that port
 * (this worker's webhook attempts, plus the database-backed gauges every process reports alike).
 */
import { openDatabase } from '../../db/client.js';
import { migrateToLatest } from '../../db/migrate.js';
import { createHoldSweeper } from '../domain/credits/hold-sweeper.js';
import { systemClock } from '../clock.js';
import { loadConfigOrExit } from '../env.js';
import { configureLogging, log } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { type MetricsServer, startMetricsServer } from '../observability/metrics-server.js';
import { closeOnSignals } from '../process-signals.js';
import { startRetentionJob } from '../retention/job.js';
import { openImageStorage } from '../storage/open.js';
import { createWebhookWorker } from './worker.js';

async function main() {
  const config = loadConfigOrExit();
  configureLogging(config.logLevel);
  const handle = openDatabase(config.databaseUrl);
  await migrateToLatest(handle.db);
  const metrics = createMetrics(handle.db);
  const worker = createWebhookWorker({ db: handle.db, retryDelaysMs: config.webhookRetryDelaysMs, allowPrivateNetwork: config.allowPrivateNetwork, metrics });
  worker.start();
  // Worker processes sweep dead charge holds too, so refunds happen even when no app server is running.
  const sweeper = createHoldSweeper({ db: handle.db, timeoutMs: config.chargeHoldTimeoutMs });
  sweeper.start();
  const storage = openImageStorage(config.storageUrl, config.publicBaseUrl);
  const retention = startRetentionJob({ db: handle.db, storage, clock: systemClock, policy: config.retention, intervalMs: config.retention.intervalMs });
  let metricsServer: MetricsServer | null = null;
  if (config.metricsPort !== undefined) metricsServer = await startMetricsServer({ metrics, token: config.metricsToken, port: config.metricsPort });
  log.info({ database: handle.dialect, metrics_port: metricsServer?.port ?? null }, 'Roomstage webhook worker running');

  closeOnSignals('deliveries in flight', async () => {
    await metricsServer?.close();
    await worker.stop();
    await sweeper.stop();
    await retention.stop();
    await handle.close();
  });
}

main().catch((error: unknown) => {
  log.fatal({ err: error }, 'the webhook worker could not start');
  process.exit(1);
});
