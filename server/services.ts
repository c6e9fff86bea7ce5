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
import { meteredEngine } from './imaging/metered-engine.js';
import { configureLogging } from './observability/logger.js';
import { createMetrics, type Metrics } from './observability/metrics.js';
import { createAutoTopUp } from './domain/billing/auto-topup.js';
import { openPaymentGateway } from './domain/billing/open.js';
import { type RetentionJob, startRetentionJob } from './retention/job.js';
import { openImageStorage } from './storage/open.js';
import type { ImagingDeps } from './domain/staging/deps.js';
import type { ImageLinks } from './domain/staging/responses.js';
import type { Auth } from './auth/lucia.js';
import type { DialectName } from '../db/client.js';
import type { AutoTopUp } from './domain/billing/auto-topup.js';
import type { PaymentGateway } from './domain/billing/gateway.js';
import { countOutstandingHolds } from './domain/credits/holds.js';
import { countActiveJobs } from './domain/jobs/jobs.js';
import type { ImageEngine } from './imaging/engine.js';
import type { ImageAdmission } from './limits/image-admission.js';
import type { RequestRateLimiter } from './limits/request-rate.js';
import type { WorkGate } from './limits/work-gate.js';
import type { ImageStorage } from './storage/storage.js';

/** Everything long-lived a process builds once and hands to procedures (through their context) and HTTP routes. */
export interface Services {
  config: Config;
  db: Db;
  dialect: DialectName;
  auth: Auth;
  clock: Clock;
  startedAt: number;
  /** Stages, enhances and places products; tests may swap it for a failing one. */
  engine: ImageEngine;
  /** Where output images live: STORAGE_URL, local disk under DATA_DIR/images by default. */
  storage: ImageStorage;
  requestRateLimiter: RequestRateLimiter;
  /** Image requests in flight in this process (IMAGE_WORK_PER_PROCESS). */
  imageWork: WorkGate;
  metrics: Metrics;
  /** Stripe when STRIPE_SECRET_KEY is set, the simulated gateway otherwise. */
  payments: PaymentGateway;
  autoTopUp: AutoTopUp;
}

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
      if (outcome.kind !== 'skipped')
        metrics.autoTopUps.inc({ outcome: outcome.kind === 'succeeded' ? 'succeeded' : outcome.reason });
    },
  });
  return { payments, autoTopUp };
}

/** Opens the database, brings it to the latest migration and wires the long-lived services. */
export async function createServices(
  config: Config,
  options: { clock?: Clock; onQuery?: (sql: string) => void } = {},
): Promise<ServiceHandle> {
  configureLogging(config.logLevel);
  const handle = openDatabase(config.databaseUrl, { onQuery: options.onQuery });
  try {
    await migrateToLatest(handle.db);
    await syncProductCatalog(handle.db, SPONSORED_PRODUCTS);
  } catch (error) {
    await handle.close();
    throw error;
  }
  const clock = options.clock ?? systemClock;
  const storage = openImageStorage(config.storageUrl, config.publicBaseUrl);
  const metrics = createProcessMetrics(handle.db);
  const { payments, autoTopUp } = openPayments(handle.db, config, clock, metrics);
  const services: Services = {
    config,
    db: handle.db,
    dialect: handle.dialect,
    auth: createLucia(handle.db),
    clock,
    startedAt: clock.now(),
    engine: meteredEngine(createEngine(config), metrics),
    storage,
    requestRateLimiter: createRequestRateLimiter(handle.db, { perMinute: config.rateLimitPerMinute }),
    imageWork: createWorkGate(config.imageWorkPerProcess),
    metrics,
    payments,
    autoTopUp,
  };
  const retention = startRetentionJob({
    db: handle.db,
    storage,
    clock,
    policy: config.retention,
    intervalMs: config.retention.intervalMs,
  });
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
  return {
    db,
    engine,
    storage,
    clock,
    network: { allowPrivateNetwork: config.allowPrivateNetwork },
    chargeHoldTimeoutMs: config.chargeHoldTimeoutMs,
    autoTopUp,
    publicBaseUrl: config.publicBaseUrl,
    freeRerenders: config.freeRerenders,
  };
}

/** What turns image rows into their public addresses (responses of claims and galleries). */
export function imageLinks(services: Services): ImageLinks {
  return { storage: services.storage, publicBaseUrl: services.config.publicBaseUrl };
}

/** The limits image work passes, over this process's gate and the database (see limits/image-admission.ts). */
export function imageAdmission(services: Services): ImageAdmission {
  const { imageWork: gate, db, clock, config } = services;
  return { gate, db, clock, perKey: config.rateLimitConcurrent, inFlightElsewhere: countActiveJobs };
}

/** This process's metrics with the gauges that read domain state (the observability layer knows no domain). */
export function createProcessMetrics(db: Db): Metrics {
  const metrics = createMetrics(db);
  metrics.dbGauge(
    'charge_holds_outstanding',
    'Charge holds outstanding: image requests in flight, or dead and not yet refunded (all processes)',
    (reader) => countOutstandingHolds(reader),
  );
  return metrics;
}
