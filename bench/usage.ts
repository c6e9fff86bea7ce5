/**
 * `npm run bench:usage`: GET /api/v1/usage (the last 30 days) and GET /api/v1/billing/transactions (first page and a
 * page deep in the ledger) for one busy account, on SQLite and on MySQL. The database holds 10 000 accounts and
 * 200 000 images; the busy account has 1 000 000 ledger rows spread over the last year, 20 000 of the images and
 * three API keys. Rows are bulk-inserted with multi-row INSERTs (the usage rollup rows computed alongside), then the
 * server starts on that database and autocannon measures it.
 * Each endpoint is measured twice: at BENCH_CONNECTIONS (50) for throughput, where p99 is mostly time spent queued behind
 * the other 49 in one process (50 ÷ req/s), and at BENCH_LATENCY_CONNECTIONS (4, a few dashboards at once) for the
 * latency the ≤ 50 ms target is about.
 * Env: BENCH_SECONDS (15), BENCH_CONNECTIONS (50), BENCH_LATENCY_CONNECTIONS (4), BENCH_WARMUP_SECONDS (3), BENCH_MYSQL_URL or TEST_MYSQL_URL
 * (the server; the bench makes its own database `<name>_bench_usage` there and drops it afterwards),
 * BENCH_USAGE_SCALE (1; e.g. 0.01 for a quick check of the bench itself).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Insertable } from 'kysely';
import { createConnection } from 'mysql2/promise';
import { openDatabase } from '../db/client.js';
import { migrateToLatest } from '../db/migrate.js';
import type { CreditLedgerTable, Database, ImagesTable, LedgerReason, UsageDailyTable } from '../db/schema.js';
import { DUMMY_PASSWORD_HASH, hashPassword } from '../server/auth/passwords.js';
import { DAY_MS } from '../server/clock.js';
import { newId } from '../server/ids.js';
import { IMAGE_COUNTER, ledgerUsage, type UsageCounts, utcDay } from '../server/domain/usage/rollup.js';
import {
  formatTable,
  intEnv,
  type LoadOptions,
  type LoadResult,
  loadOptionsFromEnv,
  measure,
  postJson,
  withChildServer,
} from './lib.js';

/** BENCH_USAGE_SCALE=0.01 shrinks every count, for a quick check of the bench itself. */
const SCALE = Number(process.env.BENCH_USAGE_SCALE || 1);
const scaled = (n: number) => Math.max(1000, Math.round(n * SCALE));
const ACCOUNTS = scaled(10_000);
const IMAGES = scaled(200_000);
const BUSY_LEDGER_ROWS = scaled(1_000_000);
const BUSY_IMAGES = scaled(20_000);
const BUSY_KEYS = 3;
const HISTORY_DAYS = 365;
const TARGET_P99_MS = 50;
const LATENCY_CONNECTIONS = intEnv('BENCH_LATENCY_CONNECTIONS', 4);
const BATCH_ROWS = 1_000;
const BUSY_EMAIL = 'busy@bench.example';
const BUSY_PASSWORD = 'bench-password-123';

type Db = ReturnType<typeof openDatabase>['db'];

/** Multi-row INSERTs of `BATCH_ROWS`, a few batches per transaction. */
async function insertAll<T extends keyof Database>(
  db: Db,
  table: T,
  rows: Insertable<Database[T]>[],
  batchRows = BATCH_ROWS,
): Promise<void> {
  const perTransaction = batchRows * 20;
  for (let start = 0; start < rows.length; start += perTransaction) {
    await db.transaction().execute(async (trx) => {
      for (let offset = start; offset < Math.min(rows.length, start + perTransaction); offset += batchRows) {
        await trx
          .insertInto(table)
          .values(rows.slice(offset, offset + batchRows) as never)
          .execute();
      }
    });
  }
}

class Rollup {
  private rows = new Map<string, Insertable<UsageDailyTable> & UsageCounts>();
  add(accountId: string, keyId: number | null, at: number, counts: Partial<UsageCounts>) {
    const day = utcDay(at);
    const id = `${accountId}|${day}|${keyId ?? 0}`;
    let row = this.rows.get(id);
    if (!row) {
      row = {
        account_id: accountId,
        day,
        key_id: keyId ?? 0,
        images_staged: 0,
        images_enhanced: 0,
        product_placements: 0,
        credits_used: 0,
        credits_purchased: 0,
        claims_issued: 0,
        claims_redeemed: 0,
      };
      this.rows.set(id, row);
    }
    for (const [counter, n] of Object.entries(counts) as Array<[keyof UsageCounts, number]>) row[counter] += n;
  }
  all() {
    return [...this.rows.values()];
  }
}

/** Fills the database; returns nothing but the busy account's e-mail/password to sign in with. */
async function seed(databaseUrl: string): Promise<void> {
  const handle = openDatabase(databaseUrl);
  const { db } = handle;
  const started = Date.now();
  try {
    await migrateToLatest(db);
    const now = Date.now();
    const busyId = 'acc_bench_busy';
    const accounts = Array.from({ length: ACCOUNTS }, (_, i) => ({
      id: i === 0 ? busyId : `acc_bench_${i}`,
      email: i === 0 ? BUSY_EMAIL : `user-${i}@bench.example`,
      name: i === 0 ? BUSY_EMAIL : `user-${i}@bench.example`,
      key_bonus_granted_at: now - HISTORY_DAYS * DAY_MS,
      payment_method_id: null,
      created_at: now - HISTORY_DAYS * DAY_MS,
    }));
    await insertAll(db, 'accounts', accounts, 500);
    // Each account is its user's personal one: same id, the user its owner.
    const busyHash = await hashPassword(BUSY_PASSWORD);
    const users = accounts.map((account, i) => ({
      id: account.id,
      email: account.email,
      password_hash: i === 0 ? busyHash : DUMMY_PASSWORD_HASH,
      created_at: account.created_at,
    }));
    await insertAll(db, 'users', users, 500);
    const memberships = accounts.map((account) => ({
      account_id: account.id,
      user_id: account.id,
      role: 'owner' as const,
      created_at: account.created_at,
    }));
    await insertAll(db, 'memberships', memberships, 500);

    // Keys: three for the busy account (ids 1–3), one for every other account (id = 3 + index).
    const keys = accounts.flatMap((account, i) =>
      Array.from({ length: i === 0 ? BUSY_KEYS : 1 }, (_, k) => ({
        account_id: account.id,
        name: i === 0 ? `Busy key ${k + 1}` : 'Default',
        mode: 'live' as const,
        key_hash: `${String(i).padStart(8, '0')}${String(k).padStart(4, '0')}`.padEnd(64, 'f'),
        prefix: 'sk_live_benc',
        created_at: now - HISTORY_DAYS * DAY_MS,
        last_used_at: now,
        revoked_at: null,
      })),
    );
    await insertAll(db, 'api_keys', keys, 500);
    const keyIdOf = (accountIndex: number, k = 0) => (accountIndex === 0 ? 1 + k : BUSY_KEYS + accountIndex);

    const rollup = new Rollup();
    // The busy account's ledger: a purchase of 1 000 credits, then 999 stages (1 credit each) and so on, spread
    // evenly over the last year so that 30 days hold ~82 000 rows.
    const ledger: Insertable<CreditLedgerTable>[] = [];
    let balance = 0;
    let purchased = 0;
    for (let i = 0; i < BUSY_LEDGER_ROWS; i++) {
      const at = now - HISTORY_DAYS * DAY_MS + Math.floor((i * HISTORY_DAYS * DAY_MS) / BUSY_LEDGER_ROWS);
      const buying = i % 1000 === 0;
      const reason: LedgerReason = buying ? 'purchase' : i % 10 === 5 ? 'enhance' : 'stage';
      const delta = buying ? 1000 : -1;
      const keyId = buying ? null : keyIdOf(0, i % BUSY_KEYS);
      balance += delta;
      if (buying) purchased += delta;
      ledger.push({
        public_id: newId('ledger'),
        account_id: busyId,
        delta,
        reason,
        balance_after: balance,
        reference: buying ? `order_${i}` : `img_${i}`,
        api_key_id: keyId,
        created_at: at,
      });
      rollup.add(busyId, keyId, at, ledgerUsage(reason, delta));
    }
    for (let i = 1; i < ACCOUNTS; i++) {
      ledger.push({
        public_id: newId('ledger'),
        account_id: accounts[i]!.id,
        delta: 10,
        reason: 'signup_bonus',
        balance_after: 10,
        reference: null,
        api_key_id: null,
        created_at: now - HISTORY_DAYS * DAY_MS,
      });
    }
    console.log(`  ${ledger.length} ledger rows…`);
    await insertAll(db, 'credit_ledger', ledger);
    await db
      .updateTable('accounts')
      .set({ credits: balance, total_purchased: purchased, total_used: purchased - balance })
      .where('id', '=', busyId)
      .execute();
    await db.updateTable('accounts').set({ credits: 10 }).where('id', '!=', busyId).execute();

    const images: Insertable<ImagesTable>[] = [];
    const perOther = Math.floor((IMAGES - BUSY_IMAGES) / (ACCOUNTS - 1));
    for (let i = 0; i < ACCOUNTS; i++) {
      const count = i === 0 ? BUSY_IMAGES : perOther + (i <= (IMAGES - BUSY_IMAGES) % (ACCOUNTS - 1) ? 1 : 0);
      for (let n = 0; n < count; n++) {
        const at = now - Math.floor(((n + 0.5) / count) * HISTORY_DAYS * DAY_MS);
        const kind = n % 10 === 5 ? 'enhanced' : n % 10 === 7 ? 'placed' : 'staged';
        const keyId = keyIdOf(i, n % (i === 0 ? BUSY_KEYS : 1));
        const id = `img_b${i}_${n}`;
        images.push({
          id,
          account_id: accounts[i]!.id,
          key_id: keyId,
          claim_code: null,
          kind,
          storage_name: `${id}.jpg`,
          content_type: 'image/jpeg',
          width: 800,
          height: 600,
          style: null,
          room_type: null,
          source_image_id: null,
          created_at: at,
        });
        rollup.add(accounts[i]!.id, keyId, at, { [IMAGE_COUNTER[kind]]: 1 });
      }
    }
    console.log(`  ${images.length} images…`);
    await insertAll(db, 'images', images, 500);
    const rollupRows = rollup.all();
    console.log(`  ${rollupRows.length} usage rollup rows…`);
    await insertAll(db, 'usage_daily', rollupRows, 500);
    console.log(`  seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await handle.close();
  }
}

async function freshDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const base = new URL(baseUrl);
  const name = `${base.pathname.replace(/^\//, '') || 'roomstage'}_bench_usage`;
  const admin = `${base.protocol}//${base.username}${base.password ? `:${base.password}` : ''}@${base.host}/`;
  const run = async (statement: string) => {
    const connection = await createConnection({ uri: admin });
    try {
      await connection.query(statement);
    } finally {
      await connection.end();
    }
  };
  await run(`DROP DATABASE IF EXISTS \`${name}\``);
  await run(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS \`${name}\``) };
}

async function benchTarget(
  label: string,
  databaseUrl: string,
  dataDir: string,
  options: LoadOptions,
): Promise<LoadResult[]> {
  console.log(`Seeding ${label}…`);
  await seed(databaseUrl);
  const env = {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    BACKGROUND_WORK: 'off',
    LOG_LEVEL: 'warn',
  };
  return withChildServer(label, 'server/main.ts', env, '/api/health', async (server) => {
    const { token } = await postJson<{ token: string }>(`${server.url}/api/v1/auth/login`, {
      email: BUSY_EMAIL,
      password: BUSY_PASSWORD,
    });
    const headers = { authorization: `Bearer ${token}` };
    const usage = await (await fetch(`${server.url}/api/v1/usage`, { headers })).json();
    console.log(`  30-day totals: ${JSON.stringify(usage.totals)}`);
    // A cursor half-way down the ledger: paging deep costs the same as the first page.
    const deepCursor = `txn_${Math.floor(BUSY_LEDGER_ROWS / 2)}`;
    const results: LoadResult[] = [];
    for (const [name, urlPath] of [
      ['GET /usage (30 days)', '/api/v1/usage'],
      ['GET /billing/transactions', '/api/v1/billing/transactions'],
      ['GET /billing/transactions (deep page)', `/api/v1/billing/transactions?limit=100&starting_after=${deepCursor}`],
    ] as const) {
      for (const connections of [options.connections, LATENCY_CONNECTIONS]) {
        results.push(
          await measure(`${name} [${label}, ${connections} conn]`, server, urlPath, headers, {
            ...options,
            connections,
          }),
        );
      }
    }
    return results;
  });
}

async function main() {
  const options = loadOptionsFromEnv();
  const mysqlBase =
    process.env.BENCH_MYSQL_URL || process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306/roomstage';
  const dataDir = await mkdtemp(path.join(tmpdir(), 'roomstage-bench-usage-'));
  const mysqlDb = await freshDatabase(mysqlBase);
  try {
    const sqlite = await benchTarget('SQLite', `sqlite:${dataDir}/bench.db`, dataDir, options);
    const mysql = await benchTarget('MySQL', mysqlDb.url, dataDir, options);
    console.log(
      `\n${options.connections} and ${LATENCY_CONNECTIONS} connections, ${options.seconds} s each (after ${options.warmupSeconds} s warm-up)\n`,
    );
    console.log(formatTable([...sqlite, ...mysql]));
    console.log('');
    for (const result of mysql.filter(({ target }) => target.endsWith(`, ${LATENCY_CONNECTIONS} conn]`))) {
      const ok = result.p99Ms <= TARGET_P99_MS && result.non2xx + result.errors + result.timeouts === 0;
      console.log(
        `p99 ${result.target} = ${result.p99Ms} ms  target ≤ ${TARGET_P99_MS} ms, no errors  ${ok ? 'PASS' : 'FAIL'}`,
      );
    }
  } finally {
    await mysqlDb.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
