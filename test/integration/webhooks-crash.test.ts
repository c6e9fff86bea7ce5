import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../db/client.js';
import { ApiClient, signUpWithKey } from '../helpers/api-client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { WebhookReceiver } from '../helpers/receiver.js';
import { emitStagingEvents, independentlyVerified } from '../helpers/webhooks.js';

const EVENTS = 1_000;

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** `npm start` as it runs in production (server + inline worker), in a process of its own that the test can kill -9. */
async function spawnServer(databaseUrl: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'roomstage-crash-')),
      ALLOW_PRIVATE_NETWORK: 'true',
      WEBHOOK_RETRY_DELAYS: '100ms,200ms,300ms',
      BACKGROUND_WORK: 'inline',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
    const healthy = await fetch(`http://127.0.0.1:${port}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (healthy) return child;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start: ${output}`);
}

async function kill9(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

describeEachDatabase('Webhooks survive kill -9', (dialect) => {
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  let child: ChildProcess | null = null;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    if (child) await kill9(child);
    await receiver?.close();
    await database?.drop();
  });

  it(`delivers all ${EVENTS} pending events, each signed, after the server is killed with SIGKILL and restarted`, {
    timeout: 120_000,
  }, async () => {
    const port = await freePort();
    child = await spawnServer(database.url, port);
    const api = new ApiClient(`http://127.0.0.1:${port}`);
    const { token, keyId, userId } = await signUpWithKey(api);
    receiver.mode = { kind: 'hang' };
    const put = await api.put(`/api/v1/keys/${keyId}/webhook`, { token, json: { url: receiver.url, enabled: true } });
    expect(put.status).toBe(200);
    const secret: string = put.body.secret;

    // The app commits 1,000 events (another process on the same database, as a second app server would).
    const handle = openDatabase(database.url);
    let eventIds: string[];
    try {
      eventIds = await emitStagingEvents(handle.db, { accountId: userId, keyId, count: EVENTS, perTransaction: 100 });
      // The server's worker has picked some up and is stuck on them when it dies.
      await receiver.waitFor((requests) => requests.length > 0, 5_000);
      await kill9(child);
      child = null;
      const counts = await handle.db
        .selectFrom('webhook_deliveries')
        .select(['status'])
        .where('key_id', '=', keyId)
        .execute();
      expect(counts).toHaveLength(EVENTS);
      expect(counts.every((row) => row.status === 'pending')).toBe(true);
    } finally {
      await handle.close();
    }
    receiver.dropHanging();
    receiver.mode = { kind: 'ok' };
    const acceptedBefore = receiver.accepted().length;
    expect(acceptedBefore).toBe(0);

    child = await spawnServer(database.url, port);
    // Rows leased by the dead process come back when their lease ends (10 s timeout + 5 s).
    const wanted = new Set(eventIds);
    await receiver.waitFor(
      () => new Set(receiver.accepted().map((r) => String(r.headers['x-webhook-id']))).size >= EVENTS,
      60_000,
    );
    const accepted = receiver.accepted();
    const ids = new Set(accepted.map((r) => String(r.headers['x-webhook-id'])));
    expect([...ids].filter((id) => wanted.has(id))).toHaveLength(EVENTS);
    expect(accepted.every((r) => independentlyVerified(secret, r))).toBe(true);
    expect(accepted.every((r) => receiver.bodyOf(r).id === r.headers['x-webhook-id'])).toBe(true);
    await expect
      .poll(async () =>
        (await api.get(`/api/v1/keys/${keyId}/webhook/deliveries?limit=200`, { token })).body.deliveries.every(
          (d: { status: string }) => d.status === 'delivered',
        ),
      )
      .toBe(true);
  });
});
