import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allocatorEnv, JEMALLOC_LIBRARIES } from '../../server/cluster.js';
import { ApiClient, signUpWithKey } from '../fixtures/api-client.js';
import { dataUrl, roomJpeg } from '../fixtures/images.js';
import { type ServerProcess, spawnServerProcess, spawnWorkerProcess } from '../helpers/processes.js';

/** Whether anything still accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const listeningLines = (server: ServerProcess) =>
  server.logLines().filter((line) => String(line.msg).startsWith('Roomstage listening'));

// The compiled server as `npm start` runs it, on the embedded SQLite default: two app processes behind one port.
describe('cluster mode (WEB_CONCURRENCY=2) on the embedded SQLite database', () => {
  let server: ServerProcess;
  let api: ApiClient;
  const databaseFile = join(mkdtempSync(join(tmpdir(), 'roomstage-cluster-')), 'roomstage.db');

  beforeAll(async () => {
    server = await spawnServerProcess(
      {
        WEB_CONCURRENCY: '2',
        NODE_ENV: 'production',
        LOG_LEVEL: 'info',
        DATABASE_URL: `sqlite:${databaseFile}`,
        RATE_LIMIT_CONCURRENT: '50',
        RATE_LIMIT_PER_MINUTE: '10000',
      },
      ['dist/server/main.js'],
    );
    api = new ApiClient(server.url);
    // The port answers once the first process listens; both have started once each has said so.
    const deadline = Date.now() + 30_000;
    while (listeningLines(server).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('serves from both processes, and every log line names its process', async () => {
    for (let i = 0; i < 20; i += 1) {
      const response = await api.get('/api/health', { headers: { connection: 'close' } });
      expect(response.status).toBe(200);
    }
    const numbers = new Set(listeningLines(server).map((line) => line.cluster_process));
    expect(numbers.size).toBe(2);
    const served = server.logLines().filter((line) => line.msg === 'request' && line.route === '/api/health');
    const servingPids = new Set(served.map((line) => line.pid));
    expect(servingPids.size).toBe(2);
    expect(servingPids.has(server.child.pid)).toBe(false);
  });

  it('starts its app processes on jemalloc where the machine has it, and glibc held to two arenas', () => {
    const jemalloc = JEMALLOC_LIBRARIES.find((file) => existsSync(file));
    if (!jemalloc) console.log('no libjemalloc.so.2 on this machine: checking only that the app runs on glibc malloc');
    const pids = new Set(listeningLines(server).map((line) => Number(line.pid)));
    expect(pids.size).toBe(2);
    for (const pid of pids) {
      const environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      expect(environment).toContain('MALLOC_ARENA_MAX=2');
      // Loaded, not only named: the library is mapped into the process.
      const mapped = readFileSync(`/proc/${pid}/maps`, 'utf8').includes('libjemalloc');
      expect(mapped).toBe(jemalloc !== undefined);
      if (jemalloc) expect(environment).toContain(`LD_PRELOAD=${jemalloc}`);
    }
    const started = server.logLines().find((line) => String(line.msg).startsWith('started 2 web processes'));
    expect(started?.allocator).toBe(jemalloc ? 'jemalloc' : 'malloc with MALLOC_ARENA_MAX=2');
    // An operator's own settings are left as they are; an empty LD_PRELOAD keeps glibc's malloc.
    const present = () => true;
    expect(allocatorEnv({ MALLOC_ARENA_MAX: '4', LD_PRELOAD: '' }, present)).toEqual({});
    expect(allocatorEnv({ LD_PRELOAD: '/opt/lib/libtcmalloc.so' }, present)).toEqual({ MALLOC_ARENA_MAX: '2' });
    expect(allocatorEnv({}, () => false)).toEqual({ MALLOC_ARENA_MAX: '2' });
    expect(allocatorEnv({}, (file) => file === '/usr/lib64/libjemalloc.so.2')).toEqual({
      LD_PRELOAD: '/usr/lib64/libjemalloc.so.2',
      MALLOC_ARENA_MAX: '2',
    });
  });

  it('spends each credit once when the two processes race for the last ones', async () => {
    const account = await signUpWithKey(api);
    const image = dataUrl(await roomJpeg(320, 240));
    const responses = await Promise.all(
      Array.from({ length: 14 }, () =>
        api.post('/api/v1/stage', {
          token: account.key,
          headers: { connection: 'close' },
          json: { image, style: 'modern', room_type: 'living_room' },
        }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 402)).toHaveLength(4);
    const db = new Database(databaseFile, { readonly: true });
    try {
      const balance = db.prepare('SELECT credits FROM accounts WHERE id = ?').get(account.userId) as {
        credits: number;
      };
      const ledger = db
        .prepare('SELECT SUM(delta) AS total FROM credit_ledger WHERE account_id = ?')
        .get(account.userId) as { total: number };
      expect(balance.credits).toBe(0);
      expect(ledger.total).toBe(0);
    } finally {
      db.close();
    }
  });

  it('answers /metrics with the sum over every process', async () => {
    const before = await healthCount();
    for (let i = 0; i < 12; i += 1) await api.get('/api/health', { headers: { connection: 'close' } });
    // Whichever process answers, it reports the requests both served (each is counted once its response closes).
    await expect.poll(healthCount, { timeout: 5_000 }).toBe(before + 12);
    expect(await healthCount()).toBe(before + 12);
  });

  async function healthCount(): Promise<number> {
    const response = await api.get('/metrics', { headers: { connection: 'close' } });
    expect(response.status).toBe(200);
    const lines = response.text.split('\n').filter((line) => line.startsWith('http_requests_total{'));
    return lines
      .filter((line) => line.includes('route="/api/health"'))
      .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  }

  it('replaces a process that dies, and keeps serving meanwhile', async () => {
    const victim = Number(listeningLines(server)[0]?.pid);
    process.kill(victim, 'SIGKILL');
    await expect.poll(() => listeningLines(server).length, { timeout: 30_000 }).toBe(3);
    const pids = new Set(listeningLines(server).map((line) => line.pid));
    expect(pids.size).toBe(3);
    expect((await api.get('/api/health')).status).toBe(200);
  });

  it('stops every process on one SIGTERM to the primary and frees the port', async () => {
    const pids = listeningLines(server).map((line) => Number(line.pid));
    const port = Number(new URL(server.url).port);
    await server.stop();
    expect(server.child.exitCode).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    expect(await listening(port)).toBe(false);
  });
});

describe('npm run worker with WORKER_CONCURRENCY=2', () => {
  it('runs two worker processes and stops both on one SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roomstage-cluster-worker-'));
    const worker = await spawnWorkerProcess({
      WORKER_CONCURRENCY: '2',
      DATABASE_URL: `sqlite:${join(dir, 'roomstage.db')}`,
      DATA_DIR: dir,
    });
    const running = () =>
      worker
        .output()
        .split('\n')
        .filter((line) => line.includes('"msg":"Roomstage webhook worker running"'));
    await expect.poll(() => running().length, { timeout: 30_000 }).toBe(2);
    const pids = running().map((line) => Number((JSON.parse(line) as { pid: number }).pid));
    expect(new Set(pids).size).toBe(2);
    expect(await worker.stop()).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  });
});
