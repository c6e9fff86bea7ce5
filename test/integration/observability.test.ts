import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, signUpWithKey } from '../fixtures/api-client.js';
import { imageForm, roomJpeg } from '../fixtures/images.js';
import { freePort, type ServerProcess, spawnServerProcess } from '../helpers/processes.js';
import { S3RVER_CREDENTIALS } from '../helpers/s3-server.js';
import { useImagingServer } from '../helpers/staging.js';

/** An S3 endpoint where nothing listens: every image store fails, a fault of ours, not of the client. */
async function unreachableStorage(): Promise<Record<string, string>> {
  const port = await freePort();
  return {
    ...S3RVER_CREDENTIALS,
    STORAGE_URL: `s3://nowhere/images?endpoint=http://127.0.0.1:${port}&force_path_style=true`,
  };
}

const waitForLog = async (server: ServerProcess, match: (line: Record<string, unknown>) => boolean) => {
  for (let i = 0; i < 50; i++) {
    const line = server.logLines().find(match);
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no such log line in:\n${server.stdout()}`);
};

describe('Structured logs (a server process with LOG_LEVEL=info)', () => {
  let server: ServerProcess;
  let api: ApiClient;
  beforeAll(async () => {
    server = await spawnServerProcess({ LOG_LEVEL: 'info', ...(await unreachableStorage()) });
    api = new ApiClient(server.url);
  });
  afterAll(async () => server?.stop());

  it('sends an X-Request-Id on every response and keeps a well-formed one the client sent', async () => {
    const own = await api.get('/api/health', { headers: { 'X-Request-Id': 'trace-abc.123' } });
    expect(own.headers.get('x-request-id')).toBe('trace-abc.123');
    const made = await api.get('/api/health');
    expect(made.headers.get('x-request-id')).toMatch(/^req_[\w-]{16}$/);
    const hostile = await api.get('/api/health', { headers: { 'X-Request-Id': 'a b\tc' } });
    expect(hostile.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('writes one JSON line per request with method, route, status, duration, account and request id', async () => {
    const { key, userId } = await signUpWithKey(api);
    await api.get('/api/v1/credits', { token: key, headers: { 'X-Request-Id': 'credits-call-1' } });
    const line = await waitForLog(server, (l) => l.req_id === 'credits-call-1');
    expect(line).toMatchObject({
      level: 30,
      msg: 'request',
      method: 'GET',
      route: '/api/v1/credits',
      status: 200,
      account: userId,
    });
    expect(typeof line.duration_ms).toBe('number');
    expect(server.logLines().filter((l) => l.req_id === 'credits-call-1')).toHaveLength(1);
  });

  it('answers a server fault without a stack trace and logs the full one under the request id', async () => {
    const { key } = await signUpWithKey(api);
    const response = await api.post('/api/v1/stage', {
      token: key,
      body: imageForm([{ data: await roomJpeg(400, 300) }]),
      headers: { 'X-Request-Id': 'stage-fault-1' },
    });
    expect(response.status).toBe(500);
    expect(Object.keys(response.body).sort()).toEqual(['code', 'error', 'message']);
    expect(response.text).not.toMatch(/\bat .+:\d+/);
    const fault = await waitForLog(server, (l) => l.req_id === 'stage-fault-1' && l.msg === 'request failed');
    expect((fault.err as { stack: string }).stack).toMatch(/\n\s+at /);
    expect(await waitForLog(server, (l) => l.req_id === 'stage-fault-1' && l.msg === 'request')).toMatchObject({
      level: 50,
      status: 500,
      route: '/api/v1/stage',
    });
  });
});

describe('Quiet tests', () => {
  it('prints nothing for an expected server fault under NODE_ENV=test without LOG_LEVEL', async () => {
    const server = await spawnServerProcess({ LOG_LEVEL: '', ...(await unreachableStorage()) });
    try {
      const api = new ApiClient(server.url);
      const { key } = await signUpWithKey(api);
      const response = await api.post('/api/v1/stage', {
        token: key,
        body: imageForm([{ data: await roomJpeg(400, 300) }]),
      });
      expect(response.status).toBe(500);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(server.stdout()).toBe('');
    } finally {
      await server.stop();
    }
  });
});

describe('GET /metrics', () => {
  const server = useImagingServer('sqlite', { env: { METRICS_TOKEN: 'scrape-secret' } });

  it('wants the bearer METRICS_TOKEN when one is set', async () => {
    expect((await server.api.get('/metrics')).status).toBe(401);
    expect((await server.api.get('/metrics', { token: 'wrong' })).status).toBe(401);
    expect((await server.api.get('/metrics', { token: 'scrape-secret' })).status).toBe(200);
  });

  it('reports requests by route and status, latency histograms, image and engine operations and the webhook queue', async () => {
    const { key } = await signUpWithKey(server.api);
    await server.api.post('/api/v1/stage', { token: key, body: imageForm([{ data: await roomJpeg(400, 300) }]) });
    await server.api.get('/api/v1/keys/999999', { token: key });
    await server.api.get('/api/v1/nothing-here');
    const text = (await server.api.get('/metrics', { token: 'scrape-secret' })).text;
    expect(text).toMatch(/http_requests_total\{method="POST",route="\/api\/v1\/stage",status="200"\} 1/);
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/api\/\(unknown\)",status="404"\} 1/);
    expect(text).toMatch(
      /http_request_duration_seconds_bucket\{le="[\d.]+",method="POST",route="\/api\/v1\/stage"\} \d/,
    );
    expect(text).toMatch(/image_operations_total\{operation="staging.stage",outcome="ok"\} 1/);
    expect(text).toMatch(/engine_operations_total\{engine="builtin",operation="stage",outcome="ok"\} 1/);
    expect(text).toMatch(/engine_duration_seconds_count\{engine="builtin",operation="stage"\} 1/);
    expect(text).toMatch(/^webhook_queue_depth \d+$/m);
    // The stage above finished: its hold was made final, so none is outstanding.
    expect(text).toMatch(/^charge_holds_outstanding 0$/m);
    expect(text).toMatch(/webhook_deliveries\{status="delivered"\} \d+/);
  });

  it('labels the Stripe webhook by its route, not as an unknown API path', async () => {
    await server.api.post('/api/stripe/webhook', { json: {} });
    const text = (await server.api.get('/metrics', { token: 'scrape-secret' })).text;
    expect(text).toMatch(/http_requests_total\{method="POST",route="\/api\/stripe\/webhook",status="\d+"\} 1/);
  });
});

/** An address of this machine that is not loopback: a connection to it comes from "elsewhere" as far as a server sees. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;

describe('GET /metrics without METRICS_TOKEN', () => {
  const server = useImagingServer('sqlite');

  it('answers a scraper on this machine', async () => {
    expect((await server.api.get('/metrics')).status).toBe(200);
  });

  it.skipIf(!outsideAddress)(
    `refuses a connection from another address (403)${outsideAddress ? '' : ' [skipped: no non-loopback interface]'}`,
    async () => {
      const response = await new ApiClient(`http://${outsideAddress}:${server.port}`).get('/metrics');
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('forbidden');
    },
  );
});
