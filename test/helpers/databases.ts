import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';

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

/** A fresh, empty database of its own for one test file, so files run in parallel without sharing state. */
export async function createTestDatabase(dialect: TestDialect): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'roomstage-test-'));
    return { url: `sqlite:${join(dir, 'test.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (!MYSQL_URL) throw new Error('The MySQL half of the suite needs TEST_MYSQL_URL (CI=true makes it mandatory).');
  const base = new URL(MYSQL_URL);
  const name = `${base.pathname.replace(/^\//, '') || 'roomstage_test'}_${randomBytes(4).toString('hex')}`;
  const admin = await createConnection({ uri: `${base.protocol}//${base.username}:${base.password}@${base.host}/` });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await admin.end();
  const url = new URL(MYSQL_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const conn = await createConnection({ uri: `${base.protocol}//${base.username}:${base.password}@${base.host}/` });
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.end();
    },
  };
}
