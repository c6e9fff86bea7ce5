import cluster, { type Worker } from 'node:cluster';
import { existsSync } from 'node:fs';
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
 * Where Linux distributions put jemalloc's shared library: Debian and Ubuntu (package libjemalloc2, per architecture),
 * Fedora and RHEL (jemalloc), Alpine and Arch (jemalloc).
 */
export const JEMALLOC_LIBRARIES = [
  '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2',
  '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2',
  '/usr/lib64/libjemalloc.so.2',
  '/usr/lib/libjemalloc.so.2',
];

/**
 * What the primary adds to the environment of the processes it forks: jemalloc as their allocator when the machine has
 * it, and glibc's malloc held to two arenas. An operator's own LD_PRELOAD (even an empty one) or MALLOC_ARENA_MAX is
 * left as it is.
 *
 * glibc gives each thread that allocates an arena of its own, up to eight per core, and returns to the system only the
 * free memory at the top of each. sharp does its pixel work on the libuv pool's threads, so every image leaves
 * megabytes free but kept in several arenas, and the pieces rarely fit the next image's buffers: in bench:soak the
 * arenas grew from 270 to 400 MB of a 650 MB process in three minutes, and the whole app grew 12 % after minute 2.
 * Two arenas find most of that memory again, but a process still swung by ±80 MB within seconds and the soak's RSS
 * line read −16 % to +25 % from run to run. jemalloc, which sharp's documentation recommends on glibc systems, hands
 * freed pages back on its own: on one machine the soak's RSS line read 4.0 % with it against 25.1 % without. And sharp
 * runs libvips on one thread per operation under glibc's malloc but on every core under jemalloc, so the same machine
 * took 44 % more operations/s (10.2 against 7.1). MALLOC_ARENA_MAX is given too: it means nothing to jemalloc and keeps
 * glibc in hand where the library is missing. Both must be in the environment before a process starts, which is why
 * the primary gives them.
 */
export function allocatorEnv(
  env: Record<string, string | undefined>,
  exists: (file: string) => boolean = existsSync,
): Record<string, string> {
  const added: Record<string, string> = {};
  const jemalloc = process.platform === 'linux' ? JEMALLOC_LIBRARIES.find((file) => exists(file)) : undefined;
  if (env.LD_PRELOAD === undefined && jemalloc) added.LD_PRELOAD = jemalloc;
  if (env.MALLOC_ARENA_MAX === undefined) added.MALLOC_ARENA_MAX = '2';
  return added;
}

/** The allocator of processes started with this environment, for the start-up log line. */
function allocatorName(env: Record<string, string | undefined>): string {
  const preload = env.LD_PRELOAD ?? '';
  if (preload.includes('jemalloc')) return 'jemalloc';
  if (preload) return `LD_PRELOAD=${preload}`;
  return `malloc with MALLOC_ARENA_MAX=${env.MALLOC_ARENA_MAX}`;
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

  const allocator = allocatorEnv(process.env);
  const fork = () => {
    const worker = cluster.fork(allocator);
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

  // As in every process, the signals are taken before the start-up line says the processes run.
  closeOnSignals(`the ${options.role} processes`, async () => {
    stopping = true;
    const running = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    await Promise.all(running.map((worker) => stopProcess(worker)));
  });
  for (let index = 0; index < options.processes; index += 1) fork();
  log.info(
    { processes: options.processes, role: options.role, allocator: allocatorName({ ...process.env, ...allocator }) },
    `started ${options.processes} ${options.role} processes`,
  );
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
