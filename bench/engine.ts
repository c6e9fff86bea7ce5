/**
 * `npm run bench:engine`: BENCH_ENGINE_IMAGES (200) asynchronous stages (`Prefer: respond-async`) against a local
 * server speaking Replicate's protocol that takes BENCH_ENGINE_DELAY_MS (2,000) per prediction, on MySQL, with one
 * app node (BACKGROUND_WORK=off) and BENCH_ENGINE_WORKERS (1) `npm run worker` processes, each sending
 * ENGINE_CONCURRENCY (8) images to the provider at once. A remote engine's throughput is bounded by
 * ENGINE_CONCURRENCY × worker processes ÷ delay; the target is ≥ 90 % of that bound.
 * Prints images/s against the bound, the app node's CPU per accepted image, the workers' CPU per image (preparing
 * the provider's input, fitting its picture back, storing), each process's peak RSS, and checks
 * that every job succeeded once: one stored image and one credit each, the balance equal to the ledger's sum.
 * Env: BENCH_MYSQL_URL (mysql://root@127.0.0.1:3306), BENCH_ENGINE_IMAGES, BENCH_ENGINE_DELAY_MS,
 * BENCH_ENGINE_WORKERS, BENCH_ENGINE_CONCURRENCY.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { openDatabase } from '../db/client.js';
import { inTransaction } from '../db/transaction.js';
import { changeCredits } from '../server/domain/credits/ledger.js';
import { FakeReplicate } from '../test/fixtures/fake-replicate.js';
import {
  type ChildServer,
  freePort,
  freshMysqlDatabase,
  postJson,
  processCpuSeconds,
  startChildServer,
  statusMb,
  waitForHealthy,
  intEnv,
} from './lib.js';

const IMAGES = intEnv('BENCH_ENGINE_IMAGES', 200);
const DELAY_MS = intEnv('BENCH_ENGINE_DELAY_MS', 2_000);
const WORKERS = intEnv('BENCH_ENGINE_WORKERS', 1);
const CONCURRENCY = intEnv('BENCH_ENGINE_CONCURRENCY', 8);
const MYSQL_BASE = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';
const TARGET_SHARE = 0.9;

/** CPU seconds (user + system) and peak RSS (VmHWM, MB) of a process, from /proc. */
function processStats(pid: number | undefined): { cpuSeconds: number; peakRssMb: number } {
  return { cpuSeconds: processCpuSeconds(pid), peakRssMb: statusMb(pid, 'VmHWM') };
}

/** A 2048×1536 room photo: the size class of a phone picture once a staging company has resized it for upload. */
function photo(): Promise<Buffer> {
  return sharp({ create: { width: 2048, height: 1536, channels: 3, background: { r: 205, g: 196, b: 182 } } })
    .composite([
      {
        input: Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="2048" height="1536"><rect y="1000" width="2048" height="536" fill="#8a6f55"/><rect x="700" y="250" width="600" height="500" fill="#b9d4ea"/></svg>',
        ),
      },
    ])
    .jpeg({ quality: 85 })
    .toBuffer();
}

async function main() {
  const provider = await new FakeReplicate().start();
  provider.delayMs = DELAY_MS;
  // The provider draws on its own GPUs: each distinct picture is drawn once, so the fake takes none of the cores measured.
  provider.memoize = true;
  const dataDir = await mkdtemp(path.join(tmpdir(), 'roomstage-bench-engine-'));
  const databaseUrl = await freshMysqlDatabase(MYSQL_BASE, 'roomstage_bench_engine');
  const env = {
    ...provider.env(),
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    ALLOW_PRIVATE_NETWORK: 'true',
    BACKGROUND_WORK: 'off',
    ENGINE_CONCURRENCY: String(CONCURRENCY),
    // JOBS_PER_PROCESS stays at its default: jobs waiting at the provider do not count against it.
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_CONCURRENT: String(IMAGES * 2),
    LOG_LEVEL: 'warn',
  };
  const children: ChildServer[] = [];
  try {
    const app = await startChildServer('app node', 'server/main.ts', env);
    children.push(app);
    await waitForHealthy(app, '/api/health');
    const workers: ChildServer[] = [];
    for (let index = 0; index < WORKERS; index += 1) {
      const metricsPort = await freePort();
      const worker = await startChildServer(`worker ${index + 1}`, 'server/worker-main.ts', {
        ...env,
        METRICS_PORT: String(metricsPort),
      });
      children.push(worker);
      workers.push(worker);
      await waitForHealthy({ ...worker, url: `http://127.0.0.1:${metricsPort}` }, '/metrics');
    }

    const { token, user } = await postJson<{ token: string; user: { id: string } }>(`${app.url}/api/v1/auth/signup`, {
      email: `bench-engine-${Date.now()}@example.com`,
      password: 'bench-password-123',
    });
    const { key } = await postJson<{ key: string }>(
      `${app.url}/api/v1/keys`,
      { name: 'bench' },
      { authorization: `Bearer ${token}` },
    );
    const handle = openDatabase(databaseUrl, { poolSize: 2 });
    const db = handle.db;
    const granted = IMAGES * 10;
    await inTransaction(db, (trx) =>
      changeCredits(trx, { accountId: user.id, delta: granted, reason: 'purchase', now: Date.now() }),
    );
    const before = await db
      .selectFrom('accounts')
      .select('credits')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();

    const body = JSON.stringify({
      image: (await photo()).toString('base64'),
      style: 'modern',
      room_type: 'living_room',
    });
    const appCpuBefore = processStats(app.child.pid).cpuSeconds;
    const workersCpuBefore = workers.map((worker) => processStats(worker.child.pid).cpuSeconds);
    const startedAt = Date.now();
    // Submitted by 16 clients at once, as a staging company's uploader would, each with its own Idempotency-Key.
    let next = 0;
    let refused = 0;
    const submit = async () => {
      while (next < IMAGES) {
        const index = next++;
        const response = await fetch(`${app.url}/api/v1/stage`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            prefer: 'respond-async',
            'idempotency-key': `bench-${index}`,
          },
          body,
        });
        await response.arrayBuffer();
        if (response.status !== 202) refused += 1;
      }
    };
    await Promise.all(Array.from({ length: 16 }, submit));
    const acceptedAt = Date.now();
    const appCpuAccepting = processStats(app.child.pid).cpuSeconds - appCpuBefore;

    // Finished jobs are read from the database, so polling adds no load to the app node being measured.
    let finished = 0;
    const deadline = Date.now() + Math.max(120_000, (IMAGES / ((CONCURRENCY * WORKERS) / (DELAY_MS / 1000))) * 3_000);
    while (Date.now() < deadline) {
      const row = await db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', 'in', ['succeeded', 'failed'])
        .executeTakeFirstOrThrow();
      finished = Number(row.n);
      if (finished >= IMAGES - refused) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const doneAt = Date.now();

    const jobs = await db.selectFrom('jobs').select(['status']).execute();
    const succeeded = jobs.filter((job) => job.status === 'succeeded').length;
    const failed = jobs.filter((job) => job.status === 'failed').length;
    const stored = await db
      .selectFrom('images')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', user.id)
      .executeTakeFirstOrThrow();
    const after = await db.selectFrom('accounts').select('credits').where('id', '=', user.id).executeTakeFirstOrThrow();
    const ledger = await db
      .selectFrom('credit_ledger')
      .select((eb) => eb.fn.sum<number>('delta').as('sum'))
      .where('account_id', '=', user.id)
      .executeTakeFirstOrThrow();
    const appStats = processStats(app.child.pid);
    const workerStats = workers.map((worker) => processStats(worker.child.pid));
    await handle.close();

    const seconds = (doneAt - startedAt) / 1000;
    const rate = succeeded / seconds;
    const bound = (CONCURRENCY * WORKERS) / (DELAY_MS / 1000);
    const spent = before.credits - after.credits;
    const predictions = provider.predictions.size;
    const rows: Array<[string, string]> = [
      ['stages submitted (async)', `${IMAGES} (${refused} refused)`],
      ['accepted in', `${((acceptedAt - startedAt) / 1000).toFixed(1)} s`],
      ['jobs succeeded / failed', `${succeeded} / ${failed}`],
      ['provider predictions', String(predictions)],
      ['images/s', rate.toFixed(2)],
      [
        `bound (${CONCURRENCY} × ${WORKERS} ÷ ${DELAY_MS / 1000} s)`,
        `${bound.toFixed(2)} → ${((rate / bound) * 100).toFixed(1)} % (target ≥ ${TARGET_SHARE * 100} %)`,
      ],
      [
        'app node CPU per accepted image',
        `${((appCpuAccepting * 1000) / Math.max(1, IMAGES - refused)).toFixed(1)} ms`,
      ],
      ['app node CPU, whole run', `${appStats.cpuSeconds.toFixed(1)} s`],
      [
        'worker CPU per image',
        `${((workerStats.reduce((sum, stats, index) => sum + stats.cpuSeconds - workersCpuBefore[index]!, 0) * 1000) / Math.max(1, succeeded)).toFixed(1)} ms`,
      ],
      ['peak RSS: app node', `${appStats.peakRssMb.toFixed(0)} MB`],
      ...workerStats.map((stats, index): [string, string] => [
        `peak RSS: worker ${index + 1}`,
        `${stats.peakRssMb.toFixed(0)} MB`,
      ]),
      ['credits spent / images stored', `${spent} / ${Number(stored.n)}`],
      ['balance = Σ ledger', `${after.credits} = ${Number(ledger.sum)}`],
    ];
    const width = Math.max(...rows.map(([label]) => label.length));
    console.log(`\nbench:engine on MySQL: ${IMAGES} asynchronous stages, a provider taking ${DELAY_MS} ms each\n`);
    for (const [label, value] of rows) console.log(`${label.padEnd(width)}  ${value}`);
    const exact =
      refused === 0 &&
      succeeded === IMAGES &&
      failed === 0 &&
      spent === IMAGES &&
      Number(stored.n) === IMAGES &&
      predictions === IMAGES &&
      after.credits === Number(ledger.sum);
    const fast = rate >= bound * TARGET_SHARE;
    console.log(`\nno job lost or charged twice: ${exact ? 'PASS' : 'FAIL'}; throughput: ${fast ? 'PASS' : 'FAIL'}`);
    if (!exact) process.exitCode = 1;
  } finally {
    for (const child of children.reverse()) await child.stop();
    await provider.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
