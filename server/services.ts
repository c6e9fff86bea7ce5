import { type Db, openDatabase } from '../db/client.js';
import { migrateToLatest } from '../db/migrate.js';
import { createLucia } from './auth/lucia.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './env.js';
import { createRequestRateLimiter } from './limits/request-rate.js';
import { createWorkGate } from './limits/work-gate.js';
import { syncProductCatalog } from './domain/ads/products.js';
import { SPONSORED_PRODUCTS } from './imaging/catalog-data.js';
import { readUploadedAssetsWith } from './imaging/assets.js';
import { createEngine } from './imaging/engines/index.js';
import { meteredEngine } from './imaging/metered-engine.js';
import { configureLogging } from './observability/logger.js';
import { createMetrics, type Metrics } from './observability/metrics.js';
import { createAutoTopUp } from './domain/billing/auto-topup.js';
import { openPaymentGateway } from './domain/billing/open.js';
import { startRetentionJob } from './retention/job.js';
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
import { createHoldSweeper } from './domain/credits/hold-sweeper.js';
import { createJobRunner } from './domain/jobs/runner.js';
import { createWebhookWorker, type WorkerOptions } from './domain/webhooks/delivery/worker.js';
import { createMailSender, type MailSenderOptions } from './domain/mail/delivery/sender.js';
import { createPasswordResetPreparer } from './domain/security/password-resets.js';
import { createMailTransport } from './domain/mail/delivery/transport.js';
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
  /** What image operations and the job runner need, built once; reads `db`, `engine` and `storage` above when used. */
  imaging: ImagingDeps;
  /** The limits every piece of image work passes (see limits/image-admission.ts). */
  imageAdmission: ImageAdmission;
}

export interface ServiceHandle {
  services: Services;
  /** Waits for auto top-ups in flight, then closes the database. Stop background work first. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  clock?: Clock;
  onQuery?: (sql: string) => void;
  /** Replaces the configured image engine (tests use a slow one). */
  engine?: ImageEngine;
}

/** The payment gateway STRIPE_SECRET_KEY selects and the auto top-up over it, counted in this process's metrics. */
function openPayments(db: Db, config: Config, clock: Clock, metrics: Metrics) {
  const payments = openPaymentGateway(config);
  const autoTopUp = createAutoTopUp({
    db,
    gateway: payments,
    clock,
    billingUrl: `${config.publicBaseUrl}/billing`,
    onOutcome: (outcome) => {
      if (outcome.kind !== 'skipped')
        metrics.autoTopUps.inc({ outcome: outcome.kind === 'succeeded' ? 'succeeded' : outcome.reason });
    },
  });
  return { payments, autoTopUp };
}

/** The latest migration and the house product catalog: idempotent, and safe when several processes start at once. */
async function bringUpToDate(db: Db): Promise<void> {
  await migrateToLatest(db);
  await syncProductCatalog(db, SPONSORED_PRODUCTS);
}

/** Brings the database up to date once, before a cluster forks the processes that will share it. */
export async function prepareDatabase(config: Config): Promise<void> {
  configureLogging(config.logLevel);
  const handle = openDatabase(config.databaseUrl);
  try {
    await bringUpToDate(handle.db);
  } finally {
    await handle.close();
  }
}

/**
 * Opens the database, brings it to the latest migration and wires the long-lived services: the one builder of
 * every process (app server and worker).
 */
export async function createServices(config: Config, options: ServiceOptions = {}): Promise<ServiceHandle> {
  configureLogging(config.logLevel);
  const handle = openDatabase(config.databaseUrl, { onQuery: options.onQuery });
  try {
    await bringUpToDate(handle.db);
  } catch (error) {
    await handle.close();
    throw error;
  }
  const clock = options.clock ?? systemClock;
  const storage = openImageStorage(config.storageUrl, config.publicBaseUrl);
  readUploadedAssetsWith(async (name) => (await storage.get(name))?.data ?? null);
  const metrics = createProcessMetrics(handle.db);
  const { payments, autoTopUp } = openPayments(handle.db, config, clock, metrics);
  const core = {
    config,
    db: handle.db,
    dialect: handle.dialect,
    auth: createLucia(handle.db),
    clock,
    startedAt: clock.now(),
    engine: meteredEngine(options.engine ?? createEngine(config), metrics),
    storage,
    requestRateLimiter: createRequestRateLimiter(handle.db, { perMinute: config.rateLimitPerMinute }),
    imageWork: createWorkGate(config.imageWorkPerProcess),
    metrics,
    payments,
    autoTopUp,
  };
  // The same object gains its views, so a swap on `services` is a swap the views see.
  const services: Services = Object.assign(core, { imaging: imagingDeps(core), imageAdmission: imageAdmission(core) });
  return {
    services,
    close: async () => {
      await autoTopUp.drain();
      await handle.close();
    },
  };
}

// Tests swap `services.db`, `.engine` and `.storage` on a running server; these views read them at each use.
function imagingDeps(services: Omit<Services, 'imaging' | 'imageAdmission'>): ImagingDeps {
  const { clock, config, autoTopUp } = services;
  return {
    get db() {
      return services.db;
    },
    get engine() {
      return services.engine;
    },
    get storage() {
      return services.storage;
    },
    clock,
    network: { allowPrivateNetwork: config.allowPrivateNetwork },
    chargeHoldTimeoutMs: config.chargeHoldTimeoutMs,
    autoTopUp,
    publicBaseUrl: config.publicBaseUrl,
    freeRerenders: config.freeRerenders,
    fidelityMin: config.fidelityMin,
  };
}

function imageAdmission(services: Omit<Services, 'imaging' | 'imageAdmission'>): ImageAdmission {
  const { imageWork: gate, clock, config } = services;
  return {
    gate,
    get db() {
      return services.db;
    },
    clock,
    perKey: config.rateLimitConcurrent,
    inFlightElsewhere: countActiveJobs,
  };
}

export interface BackgroundWorkOptions {
  /**
   * Deliver webhooks and run asynchronous jobs here: app servers with BACKGROUND_WORK=inline, and worker processes.
   * The charge-hold sweeper, the password-reset preparer and the retention job run in every process either way.
   */
  queues: boolean;
  /** Test hooks for the delivery worker (timeouts, poll interval, concurrency). */
  webhookWorker?: Partial<Omit<WorkerOptions, 'db' | 'clock'>>;
  /** Test hooks for the mail sender (retry delays, poll interval). */
  mailSender?: Partial<Pick<MailSenderOptions, 'retryDelaysMs' | 'pollIntervalMs' | 'leaseMs'>>;
  /** Test hooks for the password-reset preparer (how often it looks for requests left by other processes). */
  passwordResets?: { intervalMs?: number; leaseMs?: number };
}

export interface BackgroundWork {
  /** Stops claiming, finishes deliveries, jobs and sweeps in flight. */
  stop(): Promise<void>;
}

/** What turns image rows into their public addresses (responses of claims and galleries). */
export function imageLinks(services: Services): ImageLinks {
  return { storage: services.storage, publicBaseUrl: services.config.publicBaseUrl };
}

/** Starts this process's background work over its services; the app server and `npm run worker` both call it. */
export function startBackgroundWork(services: Services, options: BackgroundWorkOptions): BackgroundWork {
  const { config, db, clock, metrics, storage } = services;
  const webhooks = options.queues
    ? createWebhookWorker({
        retryDelaysMs: config.webhookRetryDelaysMs,
        allowPrivateNetwork: config.allowPrivateNetwork,
        metrics,
        ...options.webhookWorker,
        db,
        clock,
      })
    : null;
  const jobs = options.queues
    ? createJobRunner({
        deps: () => services.imaging,
        leaseMs: config.chargeHoldTimeoutMs,
        concurrency: config.jobsPerProcess,
        metrics,
      })
    : null;
  // E-mail goes out from the outbox wherever webhooks are delivered: the same processes run the background queues.
  const mail = options.queues
    ? createMailSender({
        db,
        clock,
        transport: createMailTransport({ ...config.mail, dataDir: config.dataDir }),
        ...options.mailSender,
      })
    : null;
  // Holds of image requests that died are refunded by every process, whichever ran them, so refunds happen even
  // where no app server runs.
  const sweeper = createHoldSweeper({ db, clock, timeoutMs: config.chargeHoldTimeoutMs });
  // Password resets are prepared by the process that answered them, and any process takes over those a dead one left.
  const passwordResets = createPasswordResetPreparer({
    db,
    clock,
    links: { publicBaseUrl: config.publicBaseUrl },
    ...options.passwordResets,
  });
  webhooks?.start();
  jobs?.start();
  mail?.start();
  sweeper.start();
  passwordResets.start();
  const retention = startRetentionJob({
    db,
    storage,
    clock,
    policy: config.retention,
    intervalMs: config.retention.intervalMs,
  });
  return {
    async stop() {
      await webhooks?.stop();
      await jobs?.stop();
      await mail?.stop();
      await sweeper.stop();
      await passwordResets.stop();
      await retention.stop();
    },
  };
}

/** This process's metrics with the gauges that read domain state (the observability layer knows no domain). */
function createProcessMetrics(db: Db): Metrics {
  const metrics = createMetrics(db);
  metrics.dbGauge(
    'charge_holds_outstanding',
    'Charge holds outstanding: image requests in flight, or dead and not yet refunded (all processes)',
    (reader) => countOutstandingHolds(reader),
  );
  return metrics;
}
