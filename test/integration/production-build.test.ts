import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, signUpWithKey } from '../fixtures/api-client.js';
import { roomJpeg } from '../fixtures/images.js';
import { type ServerProcess, spawnServerProcess, spawnWorkerProcess } from '../helpers/processes.js';

describe('The production build (npm run build, npm start, npm run worker)', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    // What `npm start` runs first: builds whatever is missing or stale.
    execFileSync(process.execPath, ['scripts/ensure-build.mjs'], { stdio: 'ignore' });
    server = await spawnServerProcess({}, ['dist/server/main.js']);
  }, 300_000);
  afterAll(async () => server?.stop());

  it('serves the API and the dashboard from compiled JavaScript, with migrations loaded from dist/', async () => {
    const api = new ApiClient(server.url);
    expect((await api.get('/api/health')).body).toMatchObject({ status: 'ok', database: 'ok' });
    expect((await api.get('/login')).status).toBe(200);
    const { key } = await signUpWithKey(api);
    // Placing products reads the artwork copied next to the compiled engine.
    const placed = await api.post('/api/v1/place-products', {
      token: key,
      json: { image: (await roomJpeg(500, 400)).toString('base64') },
    });
    expect(placed.status).toBe(200);
    expect(placed.body.placements.length).toBeGreaterThan(0);
  });

  it('runs the webhook worker from compiled JavaScript', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roomstage-worker-'));
    const worker = await spawnWorkerProcess({
      NODE_ENV: 'production',
      DATABASE_URL: `sqlite:${join(dir, 'w.db')}`,
      DATA_DIR: dir,
    });
    const code = await worker.stop();
    expect(worker.output()).toContain('"msg":"Roomstage webhook worker running"');
    expect(code).toBe(0);
  });

  it('keeps test-only packages out of the production dependencies', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    for (const name of ['playwright-core', 'tsx', 'autocannon', 'vitest', '@20minutes/s3rver', 'pino-pretty']) {
      expect(pkg.dependencies[name], name).toBeUndefined();
      expect(pkg.devDependencies[name], name).toBeDefined();
    }
  });
});
