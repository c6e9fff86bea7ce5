import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../db/client.js';
import { ApiClient, signUpWithKey } from '../fixtures/api-client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { expectBooksAgree, readBooks } from '../helpers/holds.js';
import { roomJpeg } from '../fixtures/images.js';
import {
  type ServerProcess,
  spawnServerProcess,
  spawnWorkerProcess,
  type WorkerProcess,
} from '../helpers/processes.js';

/** A job's lease is CHARGE_HOLD_TIMEOUT: a worker killed mid-job leaves it to another after this long. */
const LEASE = '2s';

/** `npm run worker` in a process of its own, with an engine that waits `engineDelayMs` per image. */
function spawnWorker(env: Record<string, string>, engineDelayMs: number) {
  return spawnWorkerProcess(env, ['--import', 'tsx', 'test/helpers/slow-engine-worker.ts', String(engineDelayMs)]);
}

describeEachDatabase('Asynchronous jobs survive a worker killed with SIGKILL', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let server: ServerProcess | null = null;
  const workers: WorkerProcess[] = [];
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    handle = openDatabase(database.url);
  });
  afterAll(async () => {
    for (const worker of workers) await worker.kill();
    await server?.stop();
    await handle?.close();
    await database?.drop();
  });

  it('finishes a job exactly once on another worker when the first is killed in the middle of it', {
    timeout: 180_000,
  }, async () => {
    const env = {
      DATABASE_URL: database.url,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'roomstage-jobs-crash-')),
      CHARGE_HOLD_TIMEOUT: LEASE,
      BACKGROUND_WORK: 'off',
      RATE_LIMIT_PER_MINUTE: '100000',
      RATE_LIMIT_CONCURRENT: '100',
    };
    // The app node accepts jobs and never runs them (BACKGROUND_WORK=off); workers run them.
    server = await spawnServerProcess(env);
    const db = handle.db;
    const api = new ApiClient(server.url);
    const { key, userId } = await signUpWithKey(api);
    const photo = (await roomJpeg(320, 240)).toString('base64');

    workers.push(await spawnWorker(env, 120_000));
    const accepted = await api.post('/api/v1/stage', {
      token: key,
      json: { images: [photo, photo] },
      headers: { Prefer: 'respond-async' },
    });
    expect(accepted.status).toBe(202);
    const jobId = accepted.body.job_id as string;
    const jobRow = () => db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();

    // The first worker has the job and sits in the engine.
    await expect.poll(async () => (await jobRow()).status, { timeout: 30_000, interval: 100 }).toBe('running');
    const held = await readBooks(db, userId);
    expect(held).toMatchObject({ credits: 8, heldCredits: 2, holds: 1, paidImages: 0 });
    expectBooksAgree(held);

    await workers[0]!.kill();
    expect((await api.get(`/api/v1/jobs/${jobId}`, { token: key })).body.status).toBe('running');
    // Nothing was refunded by the death: the job, not the request, owns the credits.
    expect(await readBooks(db, userId)).toEqual(held);

    workers.push(await spawnWorker(env, 0));
    let job: Record<string, any> = {};
    await expect
      .poll(
        async () => {
          job = (await api.get(`/api/v1/jobs/${jobId}`, { token: key })).body;
          return job.status;
        },
        { timeout: 60_000, interval: 200 },
      )
      .toBe('succeeded');
    expect(job.result).toMatchObject({ success: true, credits_used: 2, credits_remaining: 8 });
    expect((await jobRow()).attempts).toBe(2);

    // Exactly once: two images, one debit and no refund, one staging.complete per image, nothing held.
    const images = await db.selectFrom('images').select('id').where('account_id', '=', userId).execute();
    expect(images.map((image) => image.id).sort()).toEqual(
      job.result.images.map((image: { id: string }) => image.id).sort(),
    );
    const ledger = await db
      .selectFrom('credit_ledger')
      .select(['reason', 'delta'])
      .where('account_id', '=', userId)
      .orderBy('id')
      .execute();
    expect(ledger.map((row) => `${row.reason} ${row.delta}`)).toEqual(['signup_bonus 10', 'stage -2']);
    const events = await db.selectFrom('webhook_events').select('event').where('account_id', '=', userId).execute();
    expect(events.filter((row) => row.event === 'staging.complete')).toHaveLength(2);
    expect(events.filter((row) => row.event === 'job.failed')).toHaveLength(0);
    const books = await readBooks(db, userId);
    expect(books).toMatchObject({ credits: 8, ledgerSum: 8, holds: 0, paidImages: 2 });
    expectBooksAgree(books);
    // The runner discards the inputs just after it records the job as finished.
    await expect
      .poll(() => db.selectFrom('job_inputs').select('storage_name').where('job_id', '=', jobId).execute(), {
        timeout: 5_000,
        interval: 50,
      })
      .toEqual([]);
  });
});
