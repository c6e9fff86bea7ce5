/**
 * `npm run bench:auth`: GET /api/v1/credits with a valid API key against Roomstage on SQLite and on MySQL, and
 * against a bare node:http + mysql2 reference doing the same key check on the same MySQL database and key.
 * Env: BENCH_SECONDS (15), BENCH_CONNECTIONS (50), BENCH_WARMUP_SECONDS (3),
 * BENCH_MYSQL_URL (mysql://root@127.0.0.1:3306), BENCH_CPU_PROF=<dir> to profile the child servers.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  formatTable,
  freshMysqlDatabase,
  type LoadOptions,
  type LoadResult,
  loadOptionsFromEnv,
  measure,
  postJson,
  withChildServer,
} from './lib.js';

const CREDITS_PATH = '/api/v1/credits';
const MYSQL_DATABASE = 'roomstage_bench';
const TARGET_RATIO = 0.4;
const TARGET_P99_MS = 40;
const UNLIMITED = String(1_000_000_000);

interface Measured {
  result: LoadResult;
  apiKey: string;
}

/** Signs up through the real API and creates an API key with the identity token. */
async function createApiKey(baseUrl: string): Promise<string> {
  const email = `bench-${Date.now()}@example.com`;
  const { token } = await postJson<{ token: string }>(`${baseUrl}/api/v1/auth/signup`, {
    email,
    password: 'bench-password-123',
  });
  const { key } = await postJson<{ key: string }>(
    `${baseUrl}/api/v1/keys`,
    { name: 'bench' },
    { authorization: `Bearer ${token}` },
  );
  return key;
}

async function benchRoomstage(
  target: string,
  databaseUrl: string,
  dataDir: string,
  options: LoadOptions,
): Promise<Measured> {
  // The per-key request budget still runs on every request; it is only raised so that no request is refused.
  const env = {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    BACKGROUND_WORK: 'off',
    RATE_LIMIT_PER_MINUTE: UNLIMITED,
  };
  return withChildServer(target, 'server/main.ts', env, '/api/health', async (server) => {
    const apiKey = await createApiKey(server.url);
    const result = await measure(target, server, CREDITS_PATH, { authorization: `Bearer ${apiKey}` }, options);
    return { result, apiKey };
  });
}

async function benchBareReference(databaseUrl: string, apiKey: string, options: LoadOptions): Promise<LoadResult> {
  const env = { DATABASE_URL: databaseUrl };
  return withChildServer('bare (MySQL)', 'bench/bare-reference.ts', env, '/health', (server) =>
    measure('bare (MySQL)', server, CREDITS_PATH, { authorization: `Bearer ${apiKey}` }, options),
  );
}

const failures = (r: LoadResult) => r.non2xx + r.errors + r.timeouts;
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

function report(sqlite: LoadResult, mysql: LoadResult, bare: LoadResult, options: LoadOptions) {
  const ratio = mysql.requestsPerSecond / bare.requestsPerSecond;
  console.log(
    `\nGET ${CREDITS_PATH}, ${options.connections} connections, ${options.seconds} s (after ${options.warmupSeconds} s warm-up)\n`,
  );
  console.log(formatTable([sqlite, mysql, bare]));
  console.log('');
  console.log(
    `ratio (MySQL) = ${ratio.toFixed(2)}  target ≥ ${TARGET_RATIO.toFixed(2)}  ${verdict(ratio >= TARGET_RATIO)}`,
  );
  console.log(
    `p99 (MySQL) = ${mysql.p99Ms} ms  target ≤ ${TARGET_P99_MS} ms  ${verdict(mysql.p99Ms <= TARGET_P99_MS)}`,
  );
  for (const r of [sqlite, mysql, bare]) {
    console.log(`non-2xx/errors (${r.target}) = ${failures(r)}  target 0  ${verdict(failures(r) === 0)}`);
  }
}

async function main() {
  const options = loadOptionsFromEnv();
  const mysqlBase = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306';
  const dataDir = await mkdtemp(path.join(tmpdir(), 'roomstage-bench-'));
  try {
    console.log('Roomstage on SQLite…');
    const sqlite = await benchRoomstage('Roomstage (SQLite)', `sqlite:${dataDir}/bench.db`, dataDir, options);
    console.log('Roomstage on MySQL…');
    const mysqlUrl = await freshMysqlDatabase(mysqlBase, MYSQL_DATABASE);
    const mysql = await benchRoomstage('Roomstage (MySQL)', mysqlUrl, dataDir, options);
    console.log('Bare reference on MySQL…');
    const bare = await benchBareReference(mysqlUrl, mysql.apiKey, options);
    report(sqlite.result, mysql.result, bare, options);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
