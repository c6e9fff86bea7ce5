import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../db/client.js';
import { countOutstandingHolds } from '../../server/domain/credits/holds.js';
import { ApiClient, signUpWithKey } from '../fixtures/api-client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { expectBooksAgree, readBooks } from '../helpers/holds.js';
import { roomJpeg } from '../fixtures/images.js';
import { freePort, type ServerProcess, spawnServerProcess } from '../helpers/processes.js';

const HOLD_TIMEOUT = '2s';

/** The real server in a process of its own that the test can kill -9; its engine waits `engineDelayMs` per image. */
function spawnServer(options: { databaseUrl: string; dataDir: string; port: number; engineDelayMs: number }) {
  return spawnServerProcess(
    {
      PORT: String(options.port),
      DATABASE_URL: options.databaseUrl,
      DATA_DIR: options.dataDir,
      PUBLIC_BASE_URL: `http://127.0.0.1:${options.port}`,
      CHARGE_HOLD_TIMEOUT: HOLD_TIMEOUT,
      RATE_LIMIT_PER_MINUTE: '100000',
      RATE_LIMIT_CONCURRENT: '100',
    },
    ['--import', 'tsx', 'test/helpers/slow-engine-server.ts', String(options.engineDelayMs)],
  );
}

describeEachDatabase('Charges survive kill -9', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let child: ServerProcess | null = null;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await child?.kill();
    await handle?.close();
    await database?.drop();
  });

  it('gives back exactly the credits of 5 image requests in flight when the server is killed with SIGKILL and restarted', {
    timeout: 120_000,
  }, async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'roomstage-holds-crash-'));
    child = await spawnServer({ databaseUrl: database.url, dataDir, port, engineDelayMs: 60_000 });
    handle = openDatabase(database.url);
    const db = handle.db;
    const api = new ApiClient(`http://127.0.0.1:${port}`);
    const { key, userId } = await signUpWithKey(api);
    const photo = (await roomJpeg(320, 240)).toString('base64');

    // 1 + 2 + 1 + 3 + 1 = 8 of the 10 bonus credits, each request with its own Idempotency-Key.
    const requests = [
      { path: '/api/v1/stage', json: { image: photo } },
      { path: '/api/v1/stage', json: { images: [photo, photo] } },
      { path: '/api/v1/enhance', json: { image: photo } },
      { path: '/api/v1/stage', json: { images: [photo, photo, photo] } },
      { path: '/api/v1/enhance', json: { image: photo } },
    ];
    const send = (request: (typeof requests)[number], index: number) =>
      api.post(request.path, {
        token: key,
        json: request.json,
        headers: { 'Idempotency-Key': `before-crash-${index}` },
      });
    const inFlight = requests.map((request, index) =>
      send(request, index).then(
        (response) => ({ died: false as const, response }),
        () => ({ died: true as const }),
      ),
    );

    await expect.poll(() => countOutstandingHolds(db), { timeout: 30_000, interval: 50 }).toBe(5);
    const held = await readBooks(db, userId);
    expect(held).toMatchObject({ credits: 2, heldCredits: 8, holds: 5, paidImages: 0 });
    expectBooksAgree(held);

    await child.kill();
    child = null;
    expect((await Promise.all(inFlight)).every((outcome) => outcome.died)).toBe(true);
    // Nothing ran in between: the credits are still held by requests that no longer exist.
    expect(await readBooks(db, userId)).toEqual(held);

    child = await spawnServer({ databaseUrl: database.url, dataDir, port, engineDelayMs: 0 });
    await expect.poll(() => countOutstandingHolds(db), { timeout: 30_000, interval: 100 }).toBe(0);
    const after = await readBooks(db, userId);
    expectBooksAgree(after);
    expect(after).toMatchObject({ credits: 10, ledgerSum: 10, chargedNet: 0, paidImages: 0, holds: 0 });
    const ledger = await db
      .selectFrom('credit_ledger')
      .select(['reason', 'delta', 'reference'])
      .where('account_id', '=', userId)
      .orderBy('id')
      .execute();
    const debits = ledger.filter((row) => row.reason === 'stage' || row.reason === 'enhance');
    const refunds = ledger.filter((row) => row.reason === 'refund');
    expect(debits.map((row) => -row.delta).sort()).toEqual([1, 1, 1, 2, 3]);
    expect(
      refunds
        .map((row) => ({ delta: row.delta, reference: row.reference }))
        .sort((a, b) => a.reference!.localeCompare(b.reference!)),
    ).toEqual(
      debits
        .map((row) => ({ delta: -row.delta, reference: row.reference }))
        .sort((a, b) => a.reference!.localeCompare(b.reference!)),
    );

    // Their Idempotency-Keys were freed with the refunds: a retry runs again, and is charged once.
    const retry = await send(requests[1]!, 1);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body.credits_remaining).toBe(8);
    const final = await readBooks(db, userId);
    expectBooksAgree(final);
    expect(final).toMatchObject({ credits: 8, paidImages: 2, holds: 0 });
    // Every image row has its file.
    const images = await db.selectFrom('images').select('storage_name').execute();
    expect(images).toHaveLength(2);
    for (const image of images) expect(existsSync(join(dataDir, 'images', image.storage_name))).toBe(true);
  });
});
