/**
 * `npm run bench:auth`: GET /api/v1/credits with a valid API key against Roomstage on SQLite and on MySQL, and
 * against a bare reference (node:http + better-sqlite3, node:http + mysql2) doing the same key check on the same
 * database and keys, so that each Roomstage row has the least its database and this machine allow beside it.
 * Env: BENCH_SECONDS (15), BENCH_CONNECTIONS (50), BENCH_WARMUP_SECONDS (3),
 * BENCH_MYSQL_URL (mysql://root@127.0.0.1:3306), BENCH_CPU_PROF=<dir> to profile the child servers,
 * BENCH_PROCESSES (the machine's cores): every target runs once as one process and once as that many processes
 * behind one port (Roomstage with WEB_CONCURRENCY, the bare reference with node:cluster); the targets apply to
 * the second pass, the whole machine.
 * BENCH_KEYS (1): how many API keys the requests take in turn. With one, the requests that arrive while that key's
 * check is in flight share the next check (db/shared-reads.ts); with as many keys as connections, almost every
 * request sends a check of its own, which is the cost of many clients each calling now and then.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import {
  formatTable,
  freshMysqlDatabase,
  intEnv,
  type LoadOptions,
  type LoadResult,
  loadOptionsFromEnv,
  measure,
  postJson,
  withChildServer,
} from './lib.js';

const CREDITS_PATH = '/api/v1/credits';
const MYSQL_DATABASE = 'roomstage_bench';
/** Issue 20's targets, on the whole machine (as many processes as cores on both sides). */
const TARGET_RATIO = 0.7;
const TARGET_P99_VS_BARE = 1.5;
const TARGET_SQLITE_VS_MYSQL = 0.6;
const TARGET_SQLITE_P99_MS = 30;
const UNLIMITED = String(1_000_000_000);

interface Measured {
  result: LoadResult;
  apiKeys: string[];
}

const keyCount = intEnv('BENCH_KEYS', 1);
const bearerHeaders = (keys: string[]) => keys.map((key) => ({ authorization: `Bearer ${key}` }));

/** One pass: the four servers, each as `processes` processes behind one port. */
interface Pass {
  processes: number;
  sqlite: LoadResult;
  bareSqlite: LoadResult;
  mysql: LoadResult;
  bare: LoadResult;
}

/** Signs up through the real API and creates BENCH_KEYS API keys with the identity token. */
async function createApiKeys(baseUrl: string): Promise<string[]> {
  const email = `bench-${Date.now()}@example.com`;
  const { token } = await postJson<{ token: string }>(`${baseUrl}/api/v1/auth/signup`, {
    email,
    password: 'bench-password-123',
  });
  const keys: string[] = [];
  for (let index = 0; index < keyCount; index++) {
    const { key } = await postJson<{ key: string }>(
      `${baseUrl}/api/v1/keys`,
      { name: `bench ${index + 1}` },
      { authorization: `Bearer ${token}` },
    );
    keys.push(key);
  }
  return keys;
}

async function benchRoomstage(
  target: string,
  databaseUrl: string,
  dataDir: string,
  processes: number,
  options: LoadOptions,
): Promise<Measured> {
  // The per-key request budget still runs on every request; it is only raised so that no request is refused.
  const env = {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    BACKGROUND_WORK: 'off',
    RATE_LIMIT_PER_MINUTE: UNLIMITED,
    WEB_CONCURRENCY: String(processes),
  };
  return withChildServer(target, 'server/main.ts', env, '/api/health', async (server) => {
    const apiKeys = await createApiKeys(server.url);
    const result = await measure(target, server, CREDITS_PATH, bearerHeaders(apiKeys), options);
    return { result, apiKeys };
  });
}

async function benchBareReference(
  target: string,
  databaseUrl: string,
  apiKeys: string[],
  processes: number,
  options: LoadOptions,
): Promise<LoadResult> {
  const env = { DATABASE_URL: databaseUrl, BARE_PROCESSES: String(processes) };
  return withChildServer(target, 'bench/bare-reference.ts', env, '/health', (server) =>
    measure(target, server, CREDITS_PATH, bearerHeaders(apiKeys), options),
  );
}

async function runPass(processes: number, mysqlBase: string, dataDir: string, options: LoadOptions): Promise<Pass> {
  const label = (what: string) => `${what} ×${processes}`;
  console.log(`${processes} process(es): Roomstage on SQLite…`);
  const sqliteUrl = `sqlite:${dataDir}/bench-${processes}.db`;
  const sqlite = await benchRoomstage(label('Roomstage (SQLite)'), sqliteUrl, dataDir, processes, options);
  console.log(`${processes} process(es): bare reference on SQLite…`);
  const bareSqlite = await benchBareReference(label('bare (SQLite)'), sqliteUrl, sqlite.apiKeys, processes, options);
  console.log(`${processes} process(es): Roomstage on MySQL…`);
  const mysqlUrl = await freshMysqlDatabase(mysqlBase, MYSQL_DATABASE);
  const mysql = await benchRoomstage(label('Roomstage (MySQL)'), mysqlUrl, dataDir, processes, options);
  console.log(`${processes} process(es): bare reference on MySQL…`);
  const bare = await benchBareReference(label('bare (MySQL)'), mysqlUrl, mysql.apiKeys, processes, options);
  return { processes, sqlite: sqlite.result, bareSqlite, mysql: mysql.result, bare };
}

const failures = (r: LoadResult) => r.non2xx + r.errors + r.timeouts;
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

function check(name: string, value: string, target: string, ok: boolean) {
  console.log(`${name} = ${value}  target ${target}  ${verdict(ok)}`);
}

function report(passes: Pass[], options: LoadOptions) {
  console.log(
    `\nGET ${CREDITS_PATH}, ${options.connections} connections, ${keyCount} API key(s) taken in turn, ${options.seconds} s (after ${options.warmupSeconds} s warm-up)\n`,
  );
  console.log(formatTable(passes.flatMap((pass) => [pass.sqlite, pass.bareSqlite, pass.mysql, pass.bare])));
  console.log('');
  for (const pass of passes) {
    const ratio = pass.mysql.requestsPerSecond / pass.bare.requestsPerSecond;
    const p99VsBare = pass.mysql.p99Ms / Math.max(1, pass.bare.p99Ms);
    const sqliteVsMysql = pass.sqlite.requestsPerSecond / pass.mysql.requestsPerSecond;
    const whole = pass === passes.at(-1);
    console.log(`${pass.processes} process(es)${whole ? ' (the whole machine: the targets)' : ' (for comparison)'}:`);
    check('  ratio MySQL / bare', ratio.toFixed(2), `≥ ${TARGET_RATIO}`, ratio >= TARGET_RATIO);
    check('  p99 MySQL / bare', p99VsBare.toFixed(2), `≤ ${TARGET_P99_VS_BARE}`, p99VsBare <= TARGET_P99_VS_BARE);
    check(
      '  SQLite / MySQL req/s',
      sqliteVsMysql.toFixed(2),
      `≥ ${TARGET_SQLITE_VS_MYSQL}`,
      sqliteVsMysql >= TARGET_SQLITE_VS_MYSQL,
    );
    check(
      '  p99 SQLite',
      `${pass.sqlite.p99Ms} ms (bare SQLite: ${pass.bareSqlite.p99Ms} ms)`,
      `≤ ${TARGET_SQLITE_P99_MS} ms`,
      pass.sqlite.p99Ms <= TARGET_SQLITE_P99_MS,
    );
    for (const r of [pass.sqlite, pass.bareSqlite, pass.mysql, pass.bare])
      check(`  non-2xx/errors (${r.target})`, String(failures(r)), '0', failures(r) === 0);
  }
}

async function main() {
  const options = loadOptionsFromEnv();
  const mysqlBase = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306';
  const cores = intEnv('BENCH_PROCESSES', availableParallelism());
  const dataDir = await mkdtemp(path.join(tmpdir(), 'roomstage-bench-'));
  try {
    const passes = [await runPass(1, mysqlBase, dataDir, options)];
    if (cores > 1) passes.push(await runPass(cores, mysqlBase, dataDir, options));
    report(passes, options);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
