/** Shared helpers for the benchmarks: child servers, health waiting, MySQL setup and autocannon runs. */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createConnection } from 'mysql2/promise';
import { allocatorEnv } from '../server/cluster.js';
import type { EventInput } from '../server/domain/events/outbox.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface LoadOptions {
  connections: number;
  seconds: number;
  warmupSeconds: number;
}

export interface LoadResult {
  target: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** CPU time (user + system) the server process spent per request, when /proc is readable. */
  serverCpuMsPerRequest: number | null;
}

/** The nearest-rank quantile `q` (0–1) of `values` (any order): the p99 of 100 values is the 99th smallest. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

/** `header` and `rows` as lines of text, each column left-aligned to its widest cell, two spaces apart. */
export function textColumns(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ');
  return [line(header), ...rows.map(line)];
}

/**
 * An integer setting from the environment, `fallback` when unset; at least `least` (1 unless a count may be 0, such as
 * how many pairs a bench times), or it throws.
 */
export function intEnv(name: string, fallback: number, least = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < least)
    throw new Error(`${name} must be an integer of at least ${least} (got "${raw}")`);
  return value;
}

export function loadOptionsFromEnv(): LoadOptions {
  return {
    connections: intEnv('BENCH_CONNECTIONS', 50),
    seconds: intEnv('BENCH_SECONDS', 15),
    warmupSeconds: intEnv('BENCH_WARMUP_SECONDS', 3),
  };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface ChildServer {
  name: string;
  url: string;
  child: ChildProcess;
  /** Last lines of the child's output, for error messages. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts `node --import tsx <script>` in its own process so the load generator never shares its event loop. */
export async function startChildServer(
  name: string,
  script: string,
  env: Record<string, string>,
): Promise<ChildServer> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', ...nodeFlags(name), script], {
    cwd: ROOT,
    // One process unless the bench asks for a cluster, so figures compare with the bare single-process reference.
    env: { ...process.env, WEB_CONCURRENCY: '1', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    if (lines.length > 40) lines.splice(0, lines.length - 40);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = once(child, 'exit');
  const server: ChildServer = {
    name,
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => lines.join('\n'),
    stop: () => stopChild(child, exited),
  };
  return server;
}

/**
 * `BENCH_CPU_PROF=<dir>` writes V8 CPU profiles of every child server into `<dir>/<target>/`; the tsx loader
 * thread gets its own (small) file, the server's main thread is the largest one.
 */
function nodeFlags(name: string): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  if (!dir) return [];
  return ['--cpu-prof', `--cpu-prof-dir=${path.resolve(dir, name.replace(/\W+/g, '-'))}`];
}

async function stopChild(child: ChildProcess, exited: Promise<unknown[]>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Polls `path` until it answers 200; fails early if the child exits. */
export async function waitForHealthy(server: ChildServer, healthPath: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null)
      throw new Error(`${server.name} exited with ${server.child.exitCode}:\n${server.output()}`);
    try {
      const response = await fetch(server.url + healthPath);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${server.name} did not become healthy within ${timeoutMs} ms:\n${server.output()}`);
}

/** Runs `fn` with a started, healthy child server and always stops it afterwards. */
export async function withChildServer<T>(
  name: string,
  script: string,
  env: Record<string, string>,
  healthPath: string,
  fn: (server: ChildServer) => Promise<T>,
): Promise<T> {
  const server = await startChildServer(name, script, env);
  try {
    await waitForHealthy(server, healthPath);
    return await fn(server);
  } finally {
    await server.stop();
  }
}

export async function postJson<T>(url: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** The n-th `staging.complete` event the webhook benches emit for one account and key. */
export function benchStagingEvent(
  owner: { accountId: string; keyId: number },
  n: number,
  now: number,
): EventInput<'staging.complete'> {
  return {
    accountId: owner.accountId,
    keyId: owner.keyId,
    event: 'staging.complete',
    data: {
      image_url: `https://images.example.test/${n}.jpg`,
      claim_code: 'RS-BENCH234',
      style: 'modern',
      room_type: 'living_room',
      credits_used: 1,
      credits_remaining: 100,
      image_id: `img_${n}`,
    },
    now,
  };
}

/**
 * Drops and recreates `name` on the MySQL/MariaDB server at `baseUrl` (with or without a database of its own, as
 * TEST_MYSQL_URL has); returns the URL of the new database.
 */
export async function freshMysqlDatabase(baseUrl: string, name: string): Promise<string> {
  const url = new URL(baseUrl);
  url.pathname = '/';
  const connection = await createConnection({ uri: url.toString() });
  try {
    await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await connection.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
  } finally {
    await connection.end();
  }
  url.pathname = `/${name}`;
  return url.toString();
}

/** The pids in /proc; none when it cannot be read (not Linux). */
function runningPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number);
  } catch {
    return [];
  }
}

/** The text of `/proc/<pid>/<file>`, or undefined when the process ended while /proc was read. */
export function readProcFile(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** A process's allocator, from its memory maps: jemalloc where its library is mapped; undefined when it is gone. */
export function allocatorOf(pid: number): string | undefined {
  const maps = readProcFile(pid, 'maps');
  if (maps === undefined) return undefined;
  return maps.includes('libjemalloc') ? 'jemalloc' : 'glibc malloc';
}

/**
 * Runs this bench again, in a child with the environment the cluster primary gives the app processes it forks
 * (`allocatorEnv`: jemalloc where the machine has it, glibc's malloc held to two arenas), so that work the bench does in
 * its own process and a server it starts both run on the allocator the product runs on. Resolves true in the parent
 * once the child has finished (its exit code becomes this process's), false where the environment already holds it.
 */
export async function rerunOnAppAllocator(): Promise<boolean> {
  const added = allocatorEnv(process.env);
  if (Object.keys(added).length === 0) return false;
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    env: { ...process.env, ...added },
    stdio: 'inherit',
  });
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  process.exitCode = code ?? (signal ? 1 : 0);
  return true;
}

/** The `/proc/<pid>/stat` fields after the command name, or undefined when the process is gone. */
function statFields(pid: number): string[] | undefined {
  const stat = readProcFile(pid, 'stat');
  return stat === undefined ? undefined : stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** User + system CPU seconds in a process's stat fields: utime and stime, in ticks of USER_HZ = 100. */
const cpuSecondsIn = (fields: string[]) => (Number(fields[11]) + Number(fields[12])) / 100;

/**
 * The `/proc/<pid>/stat` fields (after the command name) of a process and every process under it (a cluster's primary
 * and the processes it forked), by pid; empty when the process is not there or /proc cannot be read (not Linux).
 */
export function processTree(pid: number): Map<number, string[]> {
  const stats = new Map<number, string[]>();
  for (const running of runningPids()) {
    const fields = statFields(running);
    if (fields) stats.set(running, fields);
  }
  const tree = new Map<number, string[]>();
  const root = stats.get(pid);
  if (!root) return tree;
  tree.set(pid, root);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [other, fields] of stats) {
      if (!tree.has(other) && tree.has(Number(fields[1]))) {
        tree.set(other, fields);
        grew = true;
      }
    }
  }
  return tree;
}

/** The pid of a running process by its command name (`/proc/<pid>/comm`), e.g. the local MariaDB server. */
export function pidOf(command: string): number | undefined {
  return runningPids().find((pid) => readProcFile(pid, 'comm')?.trim() === command);
}

/** A memory field of /proc/<pid>/status (`VmRSS`, `VmHWM`, …) in MB; NaN when the process is gone or not on Linux. */
export function statusMb(pid: number | undefined, field: string): number {
  const status = pid === undefined ? undefined : readProcFile(pid, 'status');
  const match = status === undefined ? null : new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** User + system CPU seconds so far of a process and every process under it, from /proc; null elsewhere. */
export function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  const tree = processTree(pid);
  if (tree.size === 0) return null;
  let seconds = 0;
  for (const fields of tree.values()) seconds += cpuSecondsIn(fields);
  return seconds;
}

/** User + system CPU seconds so far of one process (all its threads), from /proc; NaN when it is gone. */
export function processCpuSeconds(pid: number | undefined): number {
  const fields = pid === undefined ? undefined : statFields(pid);
  return fields ? cpuSecondsIn(fields) : Number.NaN;
}

/** Warms up, then measures GET `server.url + path` with the given headers. */
export async function measure(
  target: string,
  server: ChildServer,
  urlPath: string,
  headers: Record<string, string> | Array<Record<string, string>>,
  options: LoadOptions,
): Promise<LoadResult> {
  // Several header sets: each request takes the next one in turn (bench:auth's many keys).
  const headerSets = Array.isArray(headers) ? headers : [headers];
  let turn = 0;
  const base = {
    url: server.url + urlPath,
    connections: options.connections,
    headers: headerSets[0],
    ...(headerSets.length > 1 && {
      requests: [
        {
          setupRequest: (request: autocannon.Request) => {
            turn = (turn + 1) % headerSets.length;
            return { ...request, headers: { ...request.headers, ...headerSets[turn] } };
          },
        },
      ],
    }),
  };
  await autocannon({ ...base, duration: options.warmupSeconds });
  const cpuBefore = cpuSeconds(server.child.pid);
  const result = await autocannon({ ...base, duration: options.seconds });
  const cpuAfter = cpuSeconds(server.child.pid);
  const cpu =
    cpuBefore === null || cpuAfter === null
      ? null
      : ((cpuAfter - cpuBefore) * 1000) / Math.max(1, result.requests.total);
  return {
    target,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    serverCpuMsPerRequest: cpu,
  };
}

export function formatTable(results: LoadResult[]): string {
  const header = ['target', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'non-2xx', 'errors', 'server CPU ms/req'];
  const rows = results.map((r) => [
    r.target,
    r.requestsPerSecond.toFixed(0),
    r.p50Ms.toFixed(0),
    r.p99Ms.toFixed(0),
    String(r.total),
    String(r.non2xx),
    String(r.errors + r.timeouts),
    r.serverCpuMsPerRequest === null ? 'n/a' : r.serverCpuMsPerRequest.toFixed(3),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
