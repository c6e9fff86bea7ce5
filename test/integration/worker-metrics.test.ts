import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signUpWithKey } from '../fixtures/api-client.js';
import { describeEachDatabase } from '../helpers/each-database.js';
import { freePort, spawnWorkerProcess, type WorkerProcess } from '../helpers/processes.js';
import { WebhookReceiver } from '../helpers/receiver.js';
import { useTestServer } from '../helpers/server.js';
import { emitStagingEvents } from '../helpers/webhooks.js';

const EVENTS = 25;

/** The value of one sample line (`name{labels} value`) of a Prometheus text page, or null when it is absent. */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

describeEachDatabase('The separate webhook worker (npm run worker) serves GET /metrics on METRICS_PORT', (dialect) => {
  // The app node leaves deliveries to the worker process, as a scaled-out deployment does.
  const server = useTestServer(dialect, { env: { BACKGROUND_WORK: 'off' } });
  let receiver: WebhookReceiver;
  let worker: WorkerProcess | null = null;
  let metricsUrl: string;
  beforeAll(async () => {
    // What `npm run worker` runs first: builds whatever is missing or stale.
    execFileSync(process.execPath, ['scripts/ensure-build.mjs'], { stdio: 'ignore' });
    receiver = await WebhookReceiver.start();
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    worker = await spawnWorkerProcess({
      DATABASE_URL: server.databaseUrl,
      METRICS_PORT: String(port),
      METRICS_TOKEN: 'worker-scrape-secret',
      WEBHOOK_RETRY_DELAYS: '100ms,200ms,300ms',
      RETENTION_INTERVAL: '1000d',
    });
  }, 300_000);
  afterAll(async () => {
    await worker?.kill();
    await receiver?.close();
  });

  it('refuses a scrape without the METRICS_TOKEN bearer and answers other paths with a JSON 404', async () => {
    const anonymous = await fetch(metricsUrl);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: 'authentication_required' });
    expect((await fetch(metricsUrl, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const elsewhere = await fetch(metricsUrl.replace('/metrics', '/api/health'));
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toMatchObject({ code: 'not_found' });
  });

  it('counts the deliveries this worker made and reports the shared queue, deliveries and holds from the database', async () => {
    const { token, keyId, userId } = await signUpWithKey(server.api);
    expect(
      (await server.api.put(`/api/v1/keys/${keyId}/webhook`, { token, json: { url: receiver.url, enabled: true } }))
        .status,
    ).toBe(200);
    const ids = await emitStagingEvents(server.services.db, { accountId: userId, keyId, count: EVENTS });
    await receiver.waitFor(
      () => new Set(receiver.accepted().map((r) => String(r.headers['webhook-id']))).size >= EVENTS,
      30_000,
    );
    expect(new Set(receiver.accepted().map((r) => String(r.headers['webhook-id'])))).toEqual(new Set(ids));

    const scrape = async () => {
      const response = await fetch(metricsUrl, { headers: { authorization: 'Bearer worker-scrape-secret' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/plain');
      return response.text();
    };
    // The delivered rows are written a few milliseconds after the receiver answers.
    await expect
      .poll(async () => sample(await scrape(), 'webhook_deliveries{status="delivered"}'), { timeout: 10_000 })
      .toBe(EVENTS);
    const text = await scrape();
    expect(sample(text, 'webhook_attempts_total{outcome="delivered"}')).toBe(receiver.accepted().length);
    expect(sample(text, 'webhook_queue_depth')).toBe(0);
    expect(sample(text, 'webhook_deliveries{status="pending"}')).toBe(0);
    expect(sample(text, 'charge_holds_outstanding')).toBe(0);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    // The app node made no attempts: its own page counts none, while its database gauges agree with the worker's.
    const appPage = (await server.api.get('/metrics')).text;
    expect(sample(appPage, 'webhook_attempts_total{outcome="delivered"}')).toBeNull();
    expect(sample(appPage, 'webhook_deliveries{status="delivered"}')).toBe(EVENTS);
  });
});
