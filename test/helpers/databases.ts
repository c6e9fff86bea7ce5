import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { inject } from 'vitest';
import { openDatabase } from '../../db/client.js';
import { migrateToLatest } from '../../db/migrate.js';

export type TestDialect = 'sqlite' | 'mysql';

export const MYSQL_URL = process.env.TEST_MYSQL_URL;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

/** Why the MySQL half is not running, or null when it runs. Under CI it always runs (and fails if MySQL is missing). */
export function mysqlSkipReason(): string | null {
  if (MYSQL_URL || IN_CI) return null;
  return 'TEST_MYSQL_URL is not set (e.g. mysql://root@127.0.0.1:3306/roomstage_test)';
}

export const TEST_DIALECTS: TestDialect[] = ['sqlite', 'mysql'];

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * The migrated databases of this run, made once by the global setup (test/helpers/global-setup.ts): a test file's
 * server starts on a copy instead of running every migration again (on MySQL that took 5–6 s a file).
 */
export interface DatabaseTemplates {
  /** A migrated SQLite file, copied per test file. */
  sqlite: string | null;
  /** A migrated MySQL schema: its tables' CREATE statements and the tables that hold rows (the migrations' log). */
  mysql: { name: string; creates: string[]; tablesWithRows: string[] } | null;
}

function adminUri(): string {
  if (!MYSQL_URL) throw new Error('The MySQL half of the suite needs TEST_MYSQL_URL (CI=true makes it mandatory).');
  const base = new URL(MYSQL_URL);
  return `${base.protocol}//${base.username}:${base.password}@${base.host}/`;
}

function newMysqlName(): string {
  const base = new URL(MYSQL_URL ?? 'mysql://localhost/roomstage_test');
  return `${base.pathname.replace(/^\//, '') || 'roomstage_test'}_${randomBytes(4).toString('hex')}`;
}

function mysqlUrlOf(name: string): string {
  const url = new URL(MYSQL_URL ?? '');
  url.pathname = `/${name}`;
  return url.toString();
}

async function createMysqlDatabase(name: string) {
  const admin = await createConnection({ uri: adminUri() });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await admin.end();
}

async function dropMysqlDatabase(name: string) {
  const conn = await createConnection({ uri: adminUri() });
  await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await conn.end();
}

/** Migrates one database per dialect with the same migrator the server runs at start. */
export async function createDatabaseTemplates(options: { mysql: boolean }): Promise<DatabaseTemplates> {
  const dir = mkdtempSync(join(tmpdir(), 'roomstage-template-'));
  const sqlite = join(dir, 'template.db');
  const handle = openDatabase(`sqlite:${sqlite}`);
  try {
    await migrateToLatest(handle.db);
  } finally {
    await handle.close();
  }
  if (!options.mysql || !MYSQL_URL) return { sqlite, mysql: null };
  const name = `${newMysqlName()}_template`;
  await createMysqlDatabase(name);
  const mysqlHandle = openDatabase(mysqlUrlOf(name));
  try {
    await migrateToLatest(mysqlHandle.db);
  } finally {
    await mysqlHandle.close();
  }
  const conn = await createConnection({ uri: mysqlUrlOf(name) });
  try {
    const [tables] = (await conn.query(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE'",
      [name],
    )) as unknown as [Array<{ name: string }>];
    const creates: string[] = [];
    const tablesWithRows: string[] = [];
    for (const { name: table } of tables) {
      const [[created]] = (await conn.query(`SHOW CREATE TABLE \`${table}\``)) as unknown as [
        Array<{ 'Create Table': string }>,
      ];
      creates.push(created!['Create Table']);
      const [[count]] = (await conn.query(`SELECT COUNT(*) AS n FROM \`${table}\``)) as unknown as [
        Array<{ n: number }>,
      ];
      if (Number(count!.n) > 0) tablesWithRows.push(table);
    }
    return { sqlite, mysql: { name, creates, tablesWithRows } };
  } finally {
    await conn.end();
  }
}

export async function dropDatabaseTemplates(templates: DatabaseTemplates): Promise<void> {
  if (templates.sqlite) rmSync(join(templates.sqlite, '..'), { recursive: true, force: true });
  if (templates.mysql) await dropMysqlDatabase(templates.mysql.name);
}

function templates(): DatabaseTemplates {
  try {
    return inject('databaseTemplates') ?? { sqlite: null, mysql: null };
  } catch {
    // Outside a vitest worker (no global setup): every database starts empty and the server migrates it.
    return { sqlite: null, mysql: null };
  }
}

/**
 * A fresh database of its own for one test file, so files run in parallel without sharing state. Empty unless
 * `migrated`: then a copy of this run's migrated template (the same tables, indexes, keys and migration log the
 * migrator would have written), or empty when there is no template and the server migrates it as it starts.
 */
export async function createTestDatabase(
  dialect: TestDialect,
  options: { migrated?: boolean } = {},
): Promise<TestDatabase> {
  const template = options.migrated ? templates()[dialect] : null;
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'roomstage-test-'));
    if (typeof template === 'string') copyFileSync(template, join(dir, 'test.db'));
    return { url: `sqlite:${join(dir, 'test.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = newMysqlName();
  await createMysqlDatabase(name);
  if (template && typeof template !== 'string') {
    const conn = await createConnection({ uri: mysqlUrlOf(name), multipleStatements: true });
    try {
      const copies = template.tablesWithRows.map(
        (t) => `INSERT INTO \`${t}\` SELECT * FROM \`${template.name}\`.\`${t}\``,
      );
      await conn.query(
        ['SET FOREIGN_KEY_CHECKS = 0', ...template.creates, ...copies, 'SET FOREIGN_KEY_CHECKS = 1'].join(';\n'),
      );
    } finally {
      await conn.end();
    }
  }
  return { url: mysqlUrlOf(name), drop: () => dropMysqlDatabase(name) };
}
