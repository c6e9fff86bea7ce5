/**
 * `npm run bench:stage`: POST /api/v1/stage (multipart, one 4000×3000 JPEG) from BENCH_CLIENTS (4) concurrent clients
 * for BENCH_SECONDS (30) against Roomstage in a child process, and the same pipeline as bare engine calls
 * (inspect → stage → the fidelity check against the scene, which every staged image goes through before it is kept →
 * write the output and keep the original with the output's SHA-256, the work the product must do for every image
 * so a staged photo sent back is restaged from its original) with the same concurrency in this
 * process while the server idles. The two alternate in rounds of BENCH_ROUND_SECONDS (5), so load from anything else
 * on the machine hits both alike.
 * Prints images/s, p50/p95/max latency, the server's peak RSS (VmHWM), CPU per image, and the API overhead
 * 1 − (bare time per image / API time per image). The rates are taken over each round's window, while every client
 * has an image in flight (see `loop`), and over whole rounds with the tail where the last images finish.
 * Both halves run on the allocator the cluster primary gives the app processes (jemalloc where the machine has it): the
 * bench runs itself again with that environment (`rerunOnAppAllocator`) and prints which allocator each half mapped.
 * Env: BENCH_SECONDS, BENCH_CLIENTS, BENCH_WARMUP_SECONDS (3), BENCH_DATABASE_URL (default: SQLite in a temp dir),
 * and LD_PRELOAD / MALLOC_ARENA_MAX to choose the allocator as an operator would (`LD_PRELOAD=` keeps glibc's malloc).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import sharp from 'sharp';
import { openDatabase } from '../db/client.js';
import { inTransaction } from '../db/transaction.js';
import { changeCredits } from '../server/domain/credits/ledger.js';
import { scoreFidelity } from '../server/imaging/fidelity/index.js';
import { createImageEngine } from '../server/imaging/sharp-engine.js';
import { newImageName, newOriginalName } from '../server/storage/storage.js';
import { newId } from '../server/ids.js';
import { sha256Hex } from '../server/domain/staging/originals.js';
import {
  allocatorOf,
  intEnv,
  postJson,
  processCpuSeconds,
  quantile,
  rerunOnAppAllocator,
  startChildServer,
  statusMb,
  waitForHealthy,
} from './lib.js';

// Issue 20: the API may add at most 5 % to the bare pipeline.
const TARGET_OVERHEAD = 0.05;
const TARGET_RSS_MB = 1024;
const TARGET_MAX_LATENCY_MS = 5_000;

const seconds = intEnv('BENCH_SECONDS', 30);
const clients = intEnv('BENCH_CLIENTS', 4);
const warmupSeconds = intEnv('BENCH_WARMUP_SECONDS', 3, 0);

/**
 * A photo-like 4000×3000 JPEG: smooth shapes plus fine sensor-like grain, so it weighs what a camera photo does
 * (several MB at quality 90), not what a flat fill would.
 */
async function photo(): Promise<Buffer> {
  const small = { width: 500, height: 375, channels: 3 as const };
  const noise = await sharp(randomBytes(small.width * small.height * 3), { raw: small })
    .blur(1.2)
    .toBuffer();
  const base = await sharp(noise, { raw: small })
    .resize(4000, 3000, { kernel: 'cubic' })
    .linear(0.5, 90)
    .raw()
    .toBuffer();
  const grain = randomBytes(base.length);
  for (let i = 0; i < base.length; i++) base[i] = Math.max(0, Math.min(255, base[i]! + (grain[i]! % 25) - 12));
  return sharp(base, { raw: { width: 4000, height: 3000, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

interface Run {
  images: number;
  failures: number;
  /** The rounds' time, each until its last image finished. */
  elapsedMs: number;
  /** The rounds' windows: while every client has an image in flight. */
  windowMs: number;
  /** Images done inside the windows: an image that straddles a window's end counts for the share of it inside. */
  windowImages: number;
  latencies: number[];
  cpuMs: number;
}

const emptyRun = (): Run => ({
  images: 0,
  failures: 0,
  elapsedMs: 0,
  windowMs: 0,
  windowImages: 0,
  latencies: [],
  cpuMs: 0,
});

function add(total: Run, part: Run): void {
  total.images += part.images;
  total.failures += part.failures;
  total.elapsedMs += part.elapsedMs;
  total.windowMs += part.windowMs;
  total.windowImages += part.windowImages;
  total.latencies.push(...part.latencies);
  total.cpuMs += part.cpuMs;
}

/**
 * `clients` loops calling `once` until `durationMs` has passed; latencies of successful calls, CPU of `cpuMs()`.
 * The images in flight at the deadline are waited for, and while they finish fewer than `clients` run: that tail is
 * as long as an image (seconds) in a round of five, and its length varies with where the last images happen to end.
 * So the rate is also taken over the window alone, with every image counted for the share of its time inside it.
 */
async function loop(durationMs: number, once: () => Promise<boolean>, cpuMs: () => number): Promise<Run> {
  const latencies: number[] = [];
  let failures = 0;
  let windowImages = 0;
  const cpuBefore = cpuMs();
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const ok = await once();
        const t1 = performance.now();
        if (!ok) {
          failures++;
          continue;
        }
        latencies.push(t1 - t0);
        windowImages += (Math.min(t1, deadline) - t0) / (t1 - t0);
      }
    }),
  );
  return {
    images: latencies.length,
    failures,
    elapsedMs: performance.now() - started,
    windowMs: durationMs,
    windowImages,
    latencies,
    cpuMs: cpuMs() - cpuBefore,
  };
}

const ownCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

async function withServer<T>(
  dir: string,
  fn: (url: string, key: string, pid: number | undefined) => Promise<T>,
): Promise<T> {
  const databaseUrl = process.env.BENCH_DATABASE_URL || `sqlite:${path.join(dir, 'bench.db')}`;
  const env = {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    DATA_DIR: path.join(dir, 'data'),
    BACKGROUND_WORK: 'off',
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_CONCURRENT: '1000',
  };
  const server = await startChildServer('Roomstage', 'server/main.ts', env);
  try {
    await waitForHealthy(server, '/api/health');
    const { token, user } = await postJson<{ token: string; user: { id: string } }>(
      `${server.url}/api/v1/auth/signup`,
      {
        email: `bench-${Date.now()}@example.com`,
        password: 'bench-password-123',
      },
    );
    const { key } = await postJson<{ key: string }>(
      `${server.url}/api/v1/keys`,
      { name: 'bench' },
      { authorization: `Bearer ${token}` },
    );
    // Enough credits for the run, bought the only way balances change: a ledger entry through changeCredits.
    const handle = openDatabase(databaseUrl, { poolSize: 1 });
    try {
      await inTransaction(handle.db, (trx) =>
        changeCredits(trx, { accountId: user.id, delta: 1_000_000, reason: 'purchase', now: Date.now() }),
      );
    } finally {
      await handle.close();
    }
    const result = await fn(server.url, key, server.child.pid);
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      throw new Error(
        `The server exited during the run (${server.child.exitCode ?? server.child.signalCode}):\n${server.output()}`,
      );
    }
    return result;
  } finally {
    await server.stop();
  }
}

/** Images a second while every client had one in flight: the rate the overhead target is judged on. */
const perSecond = (run: Run) => (run.windowImages * 1000) / run.windowMs;
/** Images a second over whole rounds, each until its last image finished. */
const perSecondWithTails = (run: Run) => (run.images * 1000) / run.elapsedMs;
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

async function main() {
  // Both halves on the allocator the product's processes get from the cluster primary, so the server runs as it does
  // in production and the bare pipeline carries no allocator the server lacks (or the other way round).
  if (await rerunOnAppAllocator()) return;
  const dir = await mkdtemp(path.join(tmpdir(), 'roomstage-bench-stage-'));
  try {
    const image = await photo();
    const roundSeconds = Math.min(seconds, intEnv('BENCH_ROUND_SECONDS', 5));
    const rounds = Math.max(1, Math.round(seconds / roundSeconds));
    console.log(
      `Input: 4000×3000 JPEG, ${(image.length / 1024 / 1024).toFixed(1)} MB; ${clients} clients; ${rounds} rounds of ${roundSeconds} s API + ${roundSeconds} s bare, after ${warmupSeconds} s warm-up of each`,
    );
    console.log(
      "API = POST /api/v1/stage (multipart) to the server in a child process; bare = engine.inspect + engine.stage + the fidelity check (§15) + writing the output and the original (+ the output's SHA-256) in this process.\n",
    );

    const engine = createImageEngine();
    const bareDir = path.join(dir, 'bare');
    await mkdir(bareDir, { recursive: true });
    const bareOnce = async () => {
      // A fresh copy per image, as each request brings its own bytes: libvips' operation cache must not
      // recognise the same buffer from the previous round.
      const input = Buffer.from(image);
      await engine.inspect(input);
      const staged = await engine.stage(input, { style: 'scandinavian', roomType: 'living_room' });
      // The fidelity check is image work every staged picture gets before it is kept, as the product does it.
      await scoreFidelity(input, staged.data, { allowed: staged.scene?.pieces });
      const id = newId('image');
      await writeFile(path.join(bareDir, newImageName(id, staged.extension)), staged.data);
      // A second header read, as the product does: keepOrigin names the stored original from the picture it keeps,
      // which for a restaged output is its earlier original, not the input that was validated.
      const { format } = await engine.inspect(input);
      await writeFile(path.join(bareDir, newOriginalName(id, format)), input);
      sha256Hex(staged.data);
      return true;
    };

    const { api, bare, clientCpuMs, peakRssMb } = await withServer(dir, async (url, key, pid) => {
      // The form is built once and sent as raw bytes over keep-alive sockets, as a load generator should: the
      // client shares this machine's CPUs with the server, so every millisecond it spends is charged to the API.
      const boundary = `----roomstage-bench-${randomBytes(8).toString('hex')}`;
      const body = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="style"\r\n\r\nscandinavian\r\n`),
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="room.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
        ),
        image,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
      const target = new URL(`${url}/api/v1/stage`);
      const apiOnce = () =>
        new Promise<boolean>((resolve) => {
          const request = http.request(target, {
            method: 'POST',
            agent,
            headers: {
              authorization: `Bearer ${key}`,
              'content-type': `multipart/form-data; boundary=${boundary}`,
              'content-length': body.length,
            },
          });
          request.on('response', (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode === 200));
          });
          request.on('error', () => resolve(false));
          request.end(body);
        });
      console.log(
        `Allocator: ${allocatorOf(pid!)} in the server, ${allocatorOf(process.pid)} in this process (the bare pipeline); ` +
          `LD_PRELOAD=${process.env.LD_PRELOAD || '(none)'} MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? '(unset)'}, as the cluster primary gives its processes.\n`,
      );
      // All the server's threads, libvips' included.
      const serverCpu = () => processCpuSeconds(pid) * 1000;
      await loop(warmupSeconds * 1000, apiOnce, serverCpu);
      await loop(warmupSeconds * 1000, bareOnce, ownCpuMs);
      const api = emptyRun();
      const bare = emptyRun();
      let clientCpuMs = 0;
      for (let round = 0; round < rounds; round++) {
        const clientBefore = ownCpuMs();
        add(api, await loop(roundSeconds * 1000, apiOnce, serverCpu));
        clientCpuMs += ownCpuMs() - clientBefore;
        add(bare, await loop(roundSeconds * 1000, bareOnce, ownCpuMs));
      }
      return { api, bare, clientCpuMs, peakRssMb: statusMb(pid, 'VmHWM') };
    });

    for (const run of [api, bare]) run.latencies.sort((a, b) => a - b);
    const overhead = 1 - perSecond(api) / perSecond(bare);
    const overheadWithTails = 1 - perSecondWithTails(api) / perSecondWithTails(bare);
    const maxLatency = api.latencies.at(-1) ?? NaN;
    const cells = (values: string[]) => values.map((v, i) => (i === 0 ? v.padEnd(6) : v.padStart(10))).join(' ');
    const row = (name: string, run: Run) =>
      cells([
        name,
        perSecond(run).toFixed(2),
        perSecondWithTails(run).toFixed(2),
        quantile(run.latencies, 0.5).toFixed(0),
        quantile(run.latencies, 0.95).toFixed(0),
        (run.latencies.at(-1) ?? NaN).toFixed(0),
        String(run.images),
        String(run.failures),
        (run.cpuMs / Math.max(1, run.images)).toFixed(0),
      ]);
    console.log(
      cells(['target', 'images/s', 'with tails', 'p50 ms', 'p95 ms', 'max ms', 'images', 'failures', 'CPU ms/img']),
    );
    console.log(row('API', api));
    console.log(row('bare', bare));
    console.log(
      "(images/s: in each round's window, while every client had an image in flight; with tails: over whole rounds, each until its last image finished. CPU ms/img: the server process for API, this process for bare; all threads.)",
    );
    const serverCpuOverhead = 1 - bare.cpuMs / Math.max(1, bare.images) / (api.cpuMs / Math.max(1, api.images));
    console.log(
      `The load generator shares the machine: it used ${(clientCpuMs / Math.max(1, api.images)).toFixed(0)} ms CPU per API image; ` +
        `server CPU per image is ${(serverCpuOverhead * 100).toFixed(1)} % above bare.\n`,
    );
    console.log(
      `API overhead = 1 − (bare time / API time) = ${(overhead * 100).toFixed(1)} %  target ≤ ${TARGET_OVERHEAD * 100} %  ${verdict(overhead <= TARGET_OVERHEAD)}` +
        `  (over whole rounds with their tails: ${(overheadWithTails * 100).toFixed(1)} %)`,
    );
    console.log(
      `server peak RSS (VmHWM) = ${peakRssMb.toFixed(0)} MB  target ≤ ${TARGET_RSS_MB} MB  ${verdict(peakRssMb <= TARGET_RSS_MB)}`,
    );
    console.log(
      `max latency (API) = ${maxLatency.toFixed(0)} ms  target < ${TARGET_MAX_LATENCY_MS} ms  ${verdict(maxLatency < TARGET_MAX_LATENCY_MS)}`,
    );
    console.log(`failed requests (API) = ${api.failures}  target 0  ${verdict(api.failures === 0)}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
