import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../db/client.js';
import { ApiClient, signUpWithKey } from '../fixtures/api-client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { WebhookReceiver } from '../helpers/receiver.js';
import { emitStagingEvents, independentlyVerified } from '../helpers/webhooks.js';
import { freePort, type ServerProcess, spawnServerProcess } from '../helpers/processes.js';

const EVENTS = 1_000;

/** `npm start` as it runs in production (server + inline worker), in a process of its own that the test can kill -9. */
function spawnServer(databaseUrl: string, port: number) {
  return spawnServerProcess({
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    WEBHOOK_RETRY_DELAYS: '100ms,200ms,300ms',
    BACKGROUND_WORK: 'inline',
  });
}

describeEachDatabase('Webhooks survive kill -9', (dialect) => {
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  let child: ServerProcess | null = null;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await child?.kill();
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
      await child.kill();
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
