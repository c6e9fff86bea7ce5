import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { isClusterMessage, METRICS_ANSWER, METRICS_REQUEST } from './observability/cluster-metrics.js';
import { log } from './observability/logger.js';
import { closeOnSignals } from './process-signals.js';

/*
 * Several processes behind one port with node:cluster: the primary forks them, replaces one that dies, and on
 * SIGTERM or SIGINT stops them all (each finishes what it has in flight) before it exits. The primary serves no
 * requests and opens nothing but what `prepare` opens once before forking (the migrations).
 */

/** A process that dies sooner than this after starting is replaced only after a pause, so a crash loop cannot spin. */
const EARLY_DEATH_MS = 5_000;
const REFORK_PAUSE_MS = 1_000;
/** How long a stopping process may take to finish its work before it is killed. */
const STOP_GRACE_MS = 30_000;

export interface ClusterOptions {
  /** What the processes do, for log lines: `web` or `worker`. */
  role: string;
  processes: number;
  /** Runs once in the primary before any process is forked (e.g. the migrations). */
  prepare?: () => Promise<void>;
}

/**
 * What the primary adds to the environment of the processes it forks: glibc's malloc held to two arenas, unless the
 * operator set MALLOC_ARENA_MAX.
 *
 * glibc gives each thread that allocates an arena of its own, up to eight per core, and returns to the system only the
 * free memory at the top of each. sharp does its pixel work on the libuv pool's threads, so every image leaves
 * megabytes free but kept in several arenas, and the pieces rarely fit the next image's buffers: in bench:soak the
 * arenas grew from 270 to 400 MB of a 650 MB process in three minutes, and the whole app grew 12 % after minute 2.
 * With two arenas the freed memory is found again: 3.6 and −1.8 % in two runs, 1.0–1.1 GB in all instead of 1.3–1.5,
 * and a lower p99. Node's own documentation names glibc fragmentation as the cause of RSS growth with a stable heap
 * (`process.memoryUsage`).
 * The setting must be in the environment before a process starts, which is why the primary gives it.
 */
export function allocatorEnv(env: Record<string, string | undefined>): Record<string, string> {
  return env.MALLOC_ARENA_MAX ? {} : { MALLOC_ARENA_MAX: '2' };
}

/** True in a process the primary forked: it runs the real work. */
export function isClusterProcess(): boolean {
  return cluster.isWorker;
}

/** The 1-based number of this process in its cluster (a replacement gets a new one), or null outside one. */
export function clusterProcessNumber(): number | null {
  return cluster.isWorker && cluster.worker ? cluster.worker.id : null;
}

/** Runs the primary: forks `processes` copies of this program and keeps that many running until told to stop. */
export async function runClusterPrimary(options: ClusterOptions): Promise<void> {
  await options.prepare?.();
  const aggregator = new AggregatorRegistry();
  let stopping = false;
  let anyListening = false;
  const startedAt = new Map<Worker, number>();

  const fork = () => {
    const worker = cluster.fork(allocatorEnv(process.env));
    startedAt.set(worker, Date.now());
    worker.on('listening', () => {
      anyListening = true;
    });
    // A process's /metrics asks here for the sum over every process of the cluster.
    worker.on('message', (message: unknown) => {
      if (!isClusterMessage(message, METRICS_REQUEST)) return;
      aggregator.clusterMetrics().then(
        (text) => worker.isConnected() && worker.send({ type: METRICS_ANSWER, id: message.id, text }),
        (error: unknown) =>
          worker.isConnected() && worker.send({ type: METRICS_ANSWER, id: message.id, error: String(error) }),
      );
    });
  };

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? 0);
    startedAt.delete(worker);
    if (stopping) return;
    if (!anyListening && options.role === 'web') {
      // Not one process ever served: the next would fail the same way (a port in use, a bad database URL).
      log.fatal({ process: worker.id, code, signal }, `a ${options.role} process failed to start; stopping`);
      stopping = true;
      for (const other of Object.values(cluster.workers ?? {})) other?.kill('SIGTERM');
      process.exitCode = 1;
      return;
    }
    log.error({ process: worker.id, code, signal }, `a ${options.role} process died; starting another`);
    setTimeout(() => stopping || fork(), lived < EARLY_DEATH_MS ? REFORK_PAUSE_MS : 0);
  });

  for (let index = 0; index < options.processes; index += 1) fork();
  log.info(
    { processes: options.processes, role: options.role },
    `started ${options.processes} ${options.role} processes`,
  );

  closeOnSignals(`the ${options.role} processes`, async () => {
    stopping = true;
    const running = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    await Promise.all(running.map((worker) => stopProcess(worker)));
  });
}

function stopProcess(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    if (worker.isDead()) return resolve();
    const timer = setTimeout(() => worker.process.kill('SIGKILL'), STOP_GRACE_MS);
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    worker.process.kill('SIGTERM');
  });
}
