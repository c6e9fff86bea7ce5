import { type Db, openDatabase } from '../db/client.js';
import { migrateToLatest } from '../db/migrate.js';
import { createLucia } from './auth/lucia.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './env.js';
import { createRequestRateLimiter } from './limits/request-rate.js';
import { createWorkGate } from './limits/work-gate.js';
import { syncProductCatalog } from './domain/ads/products.js';
import { SPONSORED_PRODUCTS } from './imaging/catalog-data.js';
import { createEngine } from './imaging/engines/index.js';
import { configureLogging } from './observability/logger.js';
import { createMetrics, type Metrics } from './observability/metrics.js';
import { createAutoTopUp } from './domain/billing/auto-topup.js';
import { openPaymentGateway } from './domain/billing/open.js';
import { type RetentionJob, startRetentionJob } from './retention/job.js';
import { openImageStorage } from './storage/open.js';
import type { ImagingDeps } from './domain/staging/deps.js';
import type { Services } from './trpc.js';

export interface ServiceHandle {
  services: Services;
  retention: RetentionJob;
  close(): Promise<void>;
}

/** The payment gateway CONTRACT §10 selects and the auto top-up over it, counted in this process's metrics. */
export function openPayments(db: Db, config: Config, clock: Clock, metrics: Metrics) {
  const payments = openPaymentGateway(config);
  const autoTopUp = createAutoTopUp({
    db,
    gateway: payments,
    clock,
    onOutcome: (outcome) => {
      if (outcome.kind !== 'skipped') metrics.autoTopUps.inc({ outcome: outcome.kind === 'succeeded' ? 'succeeded' : outcome.reason });
    },
  });
  return { payments, autoTopUp };
}

/** Opens the database, brings it to the latest migration and wires the long-lived services. */
export async function createServices(config: Config, options: { clock?: Clock } = {}): Promise<ServiceHandle> {
  configureLogging(config.logLevel);
  const handle = openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(handle.db);
    await syncProductCatalog(handle.db, SPONSORED_PRODUCTS);
  } catch (error) {
    await handle.close();
    throw error;
  }
  const clock = options.clock ?? systemClock;
  const storage = openImageStorage(config.storageUrl, config.publicBaseUrl);
  const metrics = createMetrics(handle.db);
  const { payments, autoTopUp } = openPayments(handle.db, config, clock, metrics);
  const services: Services = {
    config,
    db: handle.db,
    dialect: handle.dialect,
    auth: createLucia(handle.db),
    clock,
    startedAt: clock.now(),
    engine: createEngine(config),
    storage,
    requestRateLimiter: createRequestRateLimiter(handle.db, { perMinute: config.rateLimitPerMinute }),
    imageWork: createWorkGate(config.imageWorkPerProcess),
    metrics,
    payments,
    autoTopUp,
  };
  const retention = startRetentionJob({ db: handle.db, storage, clock, policy: config.retention, intervalMs: config.retention.intervalMs });
  return {
    services,
    retention,
    close: async () => {
      await retention.stop();
      await autoTopUp.drain();
      await handle.close();
    },
  };
}

/** What the image operations (and the job runner) need from the process's services. */
export function imagingDeps(services: Services): ImagingDeps {
  const { db, engine, storage, clock, config, autoTopUp } = services;
  return { db, engine, storage, clock, network: { allowPrivateNetwork: config.allowPrivateNetwork }, chargeHoldTimeoutMs: config.chargeHoldTimeoutMs, autoTopUp };
}
