/**
 * `npm run bench:soak`: mixed traffic against Roomstage on MySQL, as many app processes as cores (the default), for
 * SOAK_MINUTES (10) at SOAK_LOAD (0.7) of the maximum it measures first, to find leaks and slow drifts.
 *
 * The mix, per operation: stage (a 1280×960 JPEG, with a webhook on every key), enhance, place products on a staged
 * image, GET /credits, claim preview + redeem by an agent, and serving the images made (placed ones bill
 * impressions). A local receiver takes the webhooks. First a closed loop of SOAK_CALIBRATION_CLIENTS (16) clients
 * for SOAK_CALIBRATION_SECONDS (30) measures the maximum operations/s; then an open loop sends SOAK_LOAD of it.
 *
 * Prints per minute: operations, errors, p50/p99 and the app's peak RSS (the sum of its processes, and each one); at
 * the end the targets of issue 20: RSS growth ≤ 10 % after the first two minutes (the least-squares line through RSS
 * sampled every 5 s, so a collection's swing is not read as growth; the same line for each process, so a rise can be
 * traced to where it happened), p99 flat within 20 % (each minute's p99 after the first two against their median),
 * 0 errors, every webhook delivered, no hold outstanding and credits = Σ ledger for every account. The mix is dealt in
 * a fixed, even order, so every minute carries the same load.
 * Env: SOAK_MINUTES, SOAK_LOAD, SOAK_ACCOUNTS (4), SOAK_CALIBRATION_SECONDS, SOAK_CALIBRATION_CLIENTS,
 * BENCH_MYSQL_URL (mysql://root@127.0.0.1:3306), WEB_CONCURRENCY (the machine's cores).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { emptyRoomImage } from '../server/imaging/synthetic-room.js';
import { openDatabase } from '../db/client.js';
import { inTransaction } from '../db/transaction.js';
import { changeCredits, getBalance, ledgerSum } from '../server/domain/credits/ledger.js';
import { countOutstandingHolds } from '../server/domain/credits/holds.js';
import {
  allocatorOf,
  freshMysqlDatabase,
  postJson,
  processTree,
  quantile,
  readProcFile,
  startChildServer,
  statusMb,
  waitForHealthy,
} from './lib.js';

const MINUTES = numberEnv('SOAK_MINUTES', 10);
const LOAD = numberEnv('SOAK_LOAD', 0.7);
const ACCOUNTS = numberEnv('SOAK_ACCOUNTS', 4);
const CALIBRATION_SECONDS = numberEnv('SOAK_CALIBRATION_SECONDS', 30);
const CALIBRATION_CLIENTS = numberEnv('SOAK_CALIBRATION_CLIENTS', 16);
const MYSQL_BASE = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306';
const PROCESSES = Number(process.env.WEB_CONCURRENCY) || availableParallelism();
/** More requests than this in flight means the server fell behind the open loop; the rest count as errors. */
const MAX_IN_FLIGHT = 256;
const TARGET_RSS_GROWTH = 0.1;
const TARGET_P99_DRIFT = 0.2;

function numberEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number (got "${raw}")`);
  return value;
}

type Operation = 'stage' | 'enhance' | 'place' | 'credits' | 'claim' | 'serve';
/** Relative weights of the mix: reads dominate, as in a real day; every image made is also served and claimed. */
const MIX: [Operation, number][] = [
  ['credits', 30],
  ['serve', 30],
  ['stage', 14],
  ['place', 10],
  ['claim', 12],
  ['enhance', 4],
];
const MIX_TOTAL = MIX.reduce((sum, [, weight]) => sum + weight, 0);
const mixCredit = new Map<Operation, number>(MIX.map(([operation]) => [operation, 0]));

/**
 * The next operation of the mix, by smooth weighted round robin: every run of MIX_TOTAL operations holds each one
 * exactly its weight of times, spread evenly. A random draw would hand one minute five more enhances than the next,
 * and that load swing, not the server, would move the minute's p99.
 */
function pickOperation(): Operation {
  let best: Operation = 'credits';
  for (const [operation, weight] of MIX) {
    const credit = mixCredit.get(operation)! + weight;
    mixCredit.set(operation, credit);
    if (credit > mixCredit.get(best)!) best = operation;
  }
  mixCredit.set(best, mixCredit.get(best)! - MIX_TOTAL);
  return best;
}

interface Company {
  accountId: string;
  key: string;
}

interface World {
  url: string;
  companies: Company[];
  agentToken: string;
  photo: string;
  /** Recent staged images (id and URL) of each company, for place-products and serving. */
  staged: Map<string, { id: string; url: string }[]>;
  servable: string[];
  unclaimed: string[];
}

function remember<T>(list: T[], item: T, limit = 200) {
  list.push(item);
  if (list.length > limit) list.splice(0, list.length - limit);
}

const pick = <T>(list: T[]): T | undefined => list[Math.floor(Math.random() * list.length)];

async function call(url: string, init: RequestInit): Promise<{ ok: boolean; body: Record<string, unknown> | null }> {
  const response = await fetch(url, init);
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('application/json')) {
    const body = (await response.json()) as Record<string, unknown>;
    if (!response.ok) console.error(`${init.method ?? 'GET'} ${url} → ${response.status} ${JSON.stringify(body)}`);
    return { ok: response.ok, body };
  }
  await response.arrayBuffer();
  if (!response.ok) console.error(`${init.method ?? 'GET'} ${url} → ${response.status}`);
  return { ok: response.ok, body: null };
}

const keyHeaders = (company: Company) => ({
  authorization: `Bearer ${company.key}`,
  'content-type': 'application/json',
});

/** Runs one operation of the mix; true when every request in it succeeded. */
async function runOperation(world: World, operation: Operation): Promise<boolean> {
  const company = pick(world.companies)!;
  const staged = world.staged.get(company.accountId)!;
  switch (operation) {
    case 'credits':
      return (await call(`${world.url}/api/v1/credits`, { headers: keyHeaders(company) })).ok;
    case 'stage': {
      const { ok, body } = await call(`${world.url}/api/v1/stage`, {
        method: 'POST',
        headers: { ...keyHeaders(company), 'idempotency-key': randomUUID() },
        body: JSON.stringify({ image: world.photo, style: 'scandinavian', room_type: 'living_room' }),
      });
      if (ok && body) {
        const image = (body.images as { id: string; image_url: string }[])[0]!;
        remember(staged, { id: image.id, url: image.image_url });
        remember(world.servable, image.image_url);
        remember(world.unclaimed, body.claim_code as string, 1000);
      }
      return ok;
    }
    case 'enhance': {
      const { ok, body } = await call(`${world.url}/api/v1/enhance`, {
        method: 'POST',
        headers: keyHeaders(company),
        body: JSON.stringify({ image: world.photo }),
      });
      if (ok && body) remember(world.servable, body.image_url as string);
      return ok;
    }
    case 'place': {
      const image = pick(staged);
      if (!image) return runOperation(world, 'stage');
      const { ok, body } = await call(`${world.url}/api/v1/place-products`, {
        method: 'POST',
        headers: keyHeaders(company),
        body: JSON.stringify({ image_id: image.id, max_products: 2 }),
      });
      if (ok && body) remember(world.servable, body.image_url as string);
      return ok;
    }
    case 'claim': {
      const code = world.unclaimed.shift();
      if (!code) return runOperation(world, 'credits');
      // Agents redeem from many addresses; claim attempts are throttled per address, so each comes from its own.
      const headers = {
        authorization: `Bearer ${world.agentToken}`,
        'content-type': 'application/json',
        'x-forwarded-for': randomIp(),
      };
      const preview = await call(`${world.url}/api/v1/claim/preview`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ code }),
      });
      if (!preview.ok) return false;
      return (await call(`${world.url}/api/v1/claim`, { method: 'POST', headers, body: JSON.stringify({ code }) })).ok;
    }
    case 'serve': {
      const url = pick(world.servable);
      if (!url) return runOperation(world, 'stage');
      // A new viewer each time (a placed image bills one impression per viewer and placement).
      return (await call(new URL(url, world.url).toString(), { headers: { 'x-forwarded-for': randomIp() } })).ok;
    }
  }
}

const randomIp = () => `10.${randomBytes(3).join('.')}`;

interface Minute {
  operations: number;
  errors: number;
  latencies: number[];
  /** The sample of the minute whose sum is the highest. */
  peak: RssSample;
  /** Every 5 s. */
  rssSamples: RssSample[];
}

/** Resident memory of each of the app's processes at one moment, in MB, by pid. */
type RssSample = Map<number, number>;

const totalMb = (sample: RssSample) => [...sample.values()].reduce((sum, mb) => sum + mb, 0);

/**
 * Growth of RSS over the samples, as a share of where it started, from their least-squares line. The app's RSS rises
 * and falls by a few hundred MB with its garbage collections, so any two single readings differ by that swing; the
 * line through five-second samples follows what a leak would change, the level underneath.
 */
function rssTrend(samples: number[]): { growth: number; startMb: number; endMb: number } {
  const n = samples.length;
  const meanX = (n - 1) / 2;
  const meanY = samples.reduce((sum, y) => sum + y, 0) / n;
  let covariance = 0;
  let variance = 0;
  samples.forEach((y, x) => {
    covariance += (x - meanX) * (y - meanY);
    variance += (x - meanX) ** 2;
  });
  const slope = variance === 0 ? 0 : covariance / variance;
  const startMb = meanY - slope * meanX;
  const endMb = meanY + slope * (n - 1 - meanX);
  return { growth: (endMb - startMb) / startMb, startMb, endMb };
}

/**
 * The same line through each process's own samples, so a rise can be traced to the process that made it. A process
 * missing from some samples (it died and was replaced) is named with the number of samples it has.
 */
function processTrends(samples: RssSample[], rootPid: number): string {
  const pids = [...new Set(samples.flatMap((sample) => [...sample.keys()]))];
  return pids
    .map((pid) => {
      const own = samples.flatMap((sample) => sample.get(pid) ?? []);
      const name = pid === rootPid ? 'primary' : String(pid);
      if (own.length < samples.length) return `${name}: in ${own.length} of ${samples.length} samples`;
      const line = rssTrend(own);
      return `${name} ${line.startMb.toFixed(0)} → ${line.endMb.toFixed(0)} MB (${(line.growth * 100).toFixed(1)} %)`;
    })
    .join(', ');
}

/** Resident memory of a process and of every process under it, in MB, from /proc. */
function treeRss(pid: number): RssSample {
  const sample: RssSample = new Map();
  for (const member of processTree(pid).keys()) {
    const mb = statusMb(member, 'VmRSS');
    // NaN: it ended while read.
    if (!Number.isNaN(mb)) sample.set(member, mb);
  }
  return sample;
}

/** The allocator of the Node processes under the primary (not tsx's esbuild service), from their memory maps. */
function allocators(rootPid: number): string {
  const names = new Set<string>();
  for (const member of processTree(rootPid).keys()) {
    if (member === rootPid || readProcFile(member, 'comm')?.trim() !== 'node') continue;
    const name = allocatorOf(member);
    // Undefined: it ended while read.
    if (name !== undefined) names.add(name);
  }
  return [...names].join(' and ') || 'unknown';
}

/** `1240 MB (primary 61, 4242: 590, 4243: 589)`: the sum, then each process; the root is the cluster's primary. */
function describeRss(sample: RssSample, rootPid: number): string {
  const parts = [...sample].map(([pid, mb]) => `${pid === rootPid ? 'primary' : `${pid}:`} ${mb.toFixed(0)}`);
  return `${totalMb(sample).toFixed(0)} MB (${parts.join(', ')})`;
}

async function calibrate(world: World): Promise<number> {
  let operations = 0;
  const deadline = performance.now() + CALIBRATION_SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CALIBRATION_CLIENTS }, async () => {
      while (performance.now() < deadline) {
        await runOperation(world, pickOperation()).catch(() => false);
        operations++;
      }
    }),
  );
  return (operations * 1000) / (performance.now() - started);
}

/** Sends `rate` operations a second, spread evenly, for `minutes`; one Minute of figures per minute. */
async function soak(world: World, rate: number, appPid: number): Promise<Minute[]> {
  const minutes: Minute[] = [];
  let inFlight = 0;
  for (let m = 0; m < MINUTES; m++) {
    const minute: Minute = { operations: 0, errors: 0, latencies: [], peak: new Map(), rssSamples: [] };
    const sampleRss = () => {
      const sample = treeRss(appPid);
      minute.rssSamples.push(sample);
      if (totalMb(sample) > totalMb(minute.peak)) minute.peak = sample;
    };
    minutes.push(minute);
    const end = performance.now() + 60_000;
    const pending = new Set<Promise<void>>();
    let sent = 0;
    const started = performance.now();
    const sampler = setInterval(sampleRss, 5_000);
    while (performance.now() < end) {
      const due = Math.floor(((performance.now() - started) / 1000) * rate);
      while (sent < due) {
        sent++;
        minute.operations++;
        if (inFlight >= MAX_IN_FLIGHT) {
          minute.errors++;
          continue;
        }
        inFlight++;
        const t0 = performance.now();
        const done = runOperation(world, pickOperation())
          .catch((error: unknown) => {
            console.error(error);
            return false;
          })
          .then((ok) => {
            if (ok) minute.latencies.push(performance.now() - t0);
            else minute.errors++;
          })
          .finally(() => {
            inFlight--;
            pending.delete(done);
          });
        pending.add(done);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    clearInterval(sampler);
    sampleRss();
    console.log(
      `minute ${String(m + 1).padStart(2)}: ${minute.operations} operations, ${minute.errors} errors, ` +
        `p50 ${quantile(minute.latencies, 0.5).toFixed(0)} ms, p99 ${quantile(minute.latencies, 0.99).toFixed(0)} ms, ` +
        `RSS ${describeRss(minute.peak, appPid)}`,
    );
    if (m === MINUTES - 1) await Promise.all(pending);
  }
  return minutes;
}

/** A drawn room: staging refuses pictures that are not rooms (422 not_a_room), and random noise is not one. */
async function photo(): Promise<string> {
  const jpeg = await emptyRoomImage(1280, 960);
  return `data:image/jpeg;base64,${jpeg.toString('base64')}`;
}

async function signUp(url: string, label: string): Promise<{ token: string; id: string }> {
  const { token, user } = await postJson<{ token: string; user: { id: string } }>(`${url}/api/v1/auth/signup`, {
    email: `soak-${label}-${Date.now()}@example.com`,
    password: 'soak-password-123',
  });
  return { token, id: user.id };
}

const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

async function main() {
  const dir = await mkdtemp(path.join(tmpdir(), 'roomstage-soak-'));
  const received = { count: 0 };
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.count++;
      res.writeHead(200).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const databaseUrl = await freshMysqlDatabase(MYSQL_BASE, 'roomstage_soak');
  const app = await startChildServer('Roomstage', 'server/main.ts', {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    DATA_DIR: path.join(dir, 'data'),
    WEB_CONCURRENCY: String(PROCESSES),
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_CONCURRENT: '1000',
    IMAGE_WORK_PER_PROCESS: '100',
    ALLOW_PRIVATE_NETWORK: 'true',
    // The load comes from one address; each image serve says it is a new viewer through X-Forwarded-For.
    TRUST_PROXY: 'loopback',
  });
  const handle = openDatabase(databaseUrl, { poolSize: 2 });
  try {
    await waitForHealthy(app, '/api/health');
    const companies: Company[] = [];
    for (let index = 0; index < ACCOUNTS; index++) {
      const { token, id } = await signUp(app.url, `company${index}`);
      const created = await postJson<{ id: string; key: string }>(
        `${app.url}/api/v1/keys`,
        { name: 'soak' },
        { authorization: `Bearer ${token}` },
      );
      const put = await fetch(`${app.url}/api/v1/keys/${created.id}/webhook`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiverUrl, enabled: true }),
      });
      if (!put.ok) throw new Error(`webhook: ${put.status} ${await put.text()}`);
      // Credits for the run, through the one way balances change: a ledger entry.
      await inTransaction(handle.db, (trx) =>
        changeCredits(trx, { accountId: id, delta: 10_000_000, reason: 'purchase', now: Date.now() }),
      );
      companies.push({ accountId: id, key: created.key });
    }
    const agent = await signUp(app.url, 'agent');
    const world: World = {
      url: app.url,
      companies,
      agentToken: agent.token,
      photo: await photo(),
      staged: new Map(companies.map((company) => [company.accountId, []])),
      servable: [],
      unclaimed: [],
    };

    console.log(
      `${PROCESSES} app processes on MySQL (${allocators(app.child.pid!)}); calibrating with ${CALIBRATION_CLIENTS} clients…`,
    );
    const maximum = await calibrate(world);
    const rate = maximum * LOAD;
    console.log(
      `maximum ${maximum.toFixed(1)} operations/s; soaking at ${rate.toFixed(1)}/s (${LOAD * 100} %) for ${MINUTES} min\n`,
    );
    const minutes = await soak(world, rate, app.child.pid!);

    // Let the webhook backlog drain, then check the books.
    let lastCount = -1;
    for (let waited = 0; waited < 120 && received.count !== lastCount; waited += 5) {
      lastCount = received.count;
      await new Promise((resolve) => setTimeout(resolve, 5_000));
    }
    const undelivered = await handle.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '!=', 'delivered')
      .executeTakeFirstOrThrow();
    const holds = await countOutstandingHolds(handle.db);
    const books: string[] = [];
    for (const company of companies) {
      const balance = await getBalance(handle.db, company.accountId);
      const sum = await ledgerSum(handle.db, company.accountId);
      if (balance.credits !== sum) books.push(`${company.accountId}: credits ${balance.credits} ≠ Σ ledger ${sum}`);
    }

    const settled = minutes.slice(Math.min(2, minutes.length - 1));
    const samples = settled.flatMap((m) => m.rssSamples);
    const trend = rssTrend(samples.map(totalMb));
    const peakStart = totalMb(settled[0]!.peak);
    const peakEnd = totalMb(settled.at(-1)!.peak);
    const p99sOfAll = minutes.map((m) => quantile(m.latencies, 0.99));
    const p99s = p99sOfAll.slice(minutes.length - settled.length);
    const median = quantile(p99s, 0.5);
    const drift = Math.max(...p99s.map((p) => Math.abs(p - median) / median));
    const errors = minutes.reduce((sum, m) => sum + m.errors, 0);
    const operations = minutes.reduce((sum, m) => sum + m.operations, 0);
    console.log('');
    console.log(`operations ${operations}, webhooks received ${received.count}`);
    // The lines above were printed as each minute ended; operations still in flight then (the slowest) count too.
    console.log(`p99 per minute, every operation counted: ${p99sOfAll.map((p) => p.toFixed(0)).join(', ')} ms`);
    console.log(
      `RSS growth after minute 2 = ${(trend.growth * 100).toFixed(1)} % (least-squares line through the 5 s samples: ` +
        `${trend.startMb.toFixed(0)} → ${trend.endMb.toFixed(0)} MB)  target ≤ ${TARGET_RSS_GROWTH * 100} %  ` +
        verdict(trend.growth <= TARGET_RSS_GROWTH),
    );
    console.log(
      `  (peak of minute 3 → peak of the last minute: ${peakStart.toFixed(0)} → ${peakEnd.toFixed(0)} MB, ` +
        `${(((peakEnd - peakStart) / peakStart) * 100).toFixed(1)} %; single readings carry the collections' swing)`,
    );
    console.log(`  each process: ${processTrends(samples, app.child.pid!)}`);
    console.log(
      `p99 drift after minute 2 = ${(drift * 100).toFixed(1)} % of the median ${median.toFixed(0)} ms  target ≤ ${TARGET_P99_DRIFT * 100} %  ${verdict(drift <= TARGET_P99_DRIFT)}`,
    );
    console.log(`errors = ${errors}  target 0  ${verdict(errors === 0)}`);
    console.log(
      `webhook deliveries not delivered = ${Number(undelivered.n)}  target 0  ${verdict(Number(undelivered.n) === 0)}`,
    );
    console.log(`holds outstanding = ${holds}  target 0  ${verdict(holds === 0)}`);
    console.log(
      `credits = Σ ledger for every account: ${books.length === 0 ? 'PASS' : `FAIL\n  ${books.join('\n  ')}`}`,
    );
    if (app.child.exitCode !== null) throw new Error(`the app exited during the soak:\n${app.output()}`);
  } finally {
    await handle.close();
    await app.stop();
    receiver.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
