import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../../db/client.js';
import { clusterMetricsReader } from './cluster-metrics.js';
import { log } from './logger.js';

/**
 * Prometheus metrics of one process. Counters and histograms are per process; gauges read from the
 * database (`dbGauge`) show the state every process shares, so any node answers them alike.
 */
export interface Metrics {
  registry: Registry;
  /** The exposition text: this process's metrics, or in a cluster the sum over its processes. */
  render(): Promise<string>;
  requests: Counter<'method' | 'route' | 'status'>;
  requestSeconds: Histogram<'method' | 'route'>;
  imageOperations: Counter<'operation' | 'outcome'>;
  /** How long the image engine took per call (one image or variation), by engine and operation. */
  engineSeconds: Histogram<'engine' | 'operation'>;
  /** Engine calls by engine, operation and outcome (`ok` or the error code). */
  engineOperations: Counter<'engine' | 'operation' | 'outcome'>;
  webhookAttempts: Counter<'outcome'>;
  /** Asynchronous jobs finished by this process, by operation and outcome (succeeded, failed). */
  jobOutcomes: Counter<'operation' | 'outcome'>;
  /** Auto top-ups tried by this process: `succeeded` or the failure reason. */
  autoTopUps: Counter<'outcome'>;
  /** A gauge whose value is read from the database at each scrape: one call per new gauge. */
  dbGauge(
    name: string,
    help: string,
    read: (db: Db) => Promise<number | Record<string, number>>,
    labelName?: string,
  ): void;
}

export function createMetrics(db: Db): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const clusterRead = clusterMetricsReader(registry);
  const metrics: Metrics = {
    registry,
    render: clusterRead ?? (() => registry.metrics()),
    requests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    requestSeconds: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    imageOperations: new Counter({
      name: 'image_operations_total',
      help: 'Image operations (stage, enhance, place) by outcome',
      labelNames: ['operation', 'outcome'],
      registers: [registry],
    }),
    engineSeconds: new Histogram({
      name: 'engine_duration_seconds',
      help: 'Image engine latency per call, by engine and operation',
      labelNames: ['engine', 'operation'],
      // Remote engines take seconds to minutes; the built-in one well under a second.
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120],
      registers: [registry],
    }),
    engineOperations: new Counter({
      name: 'engine_operations_total',
      help: 'Image engine calls by engine, operation and outcome (ok or the error code)',
      labelNames: ['engine', 'operation', 'outcome'],
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'webhook_attempts_total',
      help: 'Webhook delivery attempts made by this process, by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    jobOutcomes: new Counter({
      name: 'jobs_finished_total',
      help: 'Asynchronous jobs finished by this process, by operation and outcome',
      labelNames: ['operation', 'outcome'],
      registers: [registry],
    }),
    autoTopUps: new Counter({
      name: 'auto_topups_total',
      help: 'Auto top-ups tried by this process, by outcome (succeeded or the failure reason)',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    dbGauge(name, help, read, labelName) {
      new Gauge({
        name,
        help,
        labelNames: labelName ? [labelName] : [],
        registers: [registry],
        // Every process reads the same database value: a cluster reports it once, not summed.
        aggregator: 'first',
        async collect() {
          try {
            const value = await read(db);
            this.reset();
            if (typeof value === 'number') this.set(value);
            else for (const [label, count] of Object.entries(value)) this.set({ [labelName ?? 'label']: label }, count);
          } catch (error) {
            log.warn({ err: error, metric: name }, 'metric could not be read from the database');
          }
        },
      });
    },
  };

  metrics.dbGauge('webhook_queue_depth', 'Webhook deliveries waiting to be attempted (all processes)', async (db) => {
    const row = await db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  });
  metrics.dbGauge(
    'webhook_deliveries',
    'Webhook deliveries kept in the database, by status (all processes)',
    async (db) => {
      const rows = await db
        .selectFrom('webhook_deliveries')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('status')
        .execute();
      const counts: Record<string, number> = { pending: 0, delivered: 0, failed: 0 };
      for (const row of rows) counts[row.status] = Number(row.n);
      return counts;
    },
    'status',
  );
  metrics.dbGauge(
    'jobs_active',
    'Asynchronous jobs queued or running (all processes), by status',
    async (db) => {
      const rows = await db
        .selectFrom('jobs')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('status', 'in', ['queued', 'running'])
        .groupBy('status')
        .execute();
      const counts: Record<string, number> = { queued: 0, running: 0 };
      for (const row of rows) counts[row.status] = Number(row.n);
      return counts;
    },
    'status',
  );
  return metrics;
}
