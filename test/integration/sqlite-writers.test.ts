import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/client.js';
import { migrateToLatest } from '../../db/migrate.js';

const WRITER = fileURLToPath(new URL('../helpers/sqlite-writer.ts', import.meta.url));

function runWriter(url: string, count: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, url, String(count)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('SQLite shared by several processes (server and worker)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'roomstage-sqlite-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('makes read-then-write transactions of two processes wait for each other instead of failing "database is locked"', async () => {
    const url = `sqlite:${join(dir, 'shared.db')}`;
    const handle = openDatabase(url);
    try {
      await migrateToLatest(handle.db);
      await handle.db
        .insertInto('accounts')
        .values({
          id: 'acc_shared',
          email: 'shared@example.test',
          name: 'shared@example.test',
          key_bonus_granted_at: null,
          payment_method_id: null,
          created_at: Date.now(),
        })
        .execute();
      const runs = await Promise.all([runWriter(url, 150), runWriter(url, 150)]);
      expect(runs).toEqual([
        { code: 0, stderr: '' },
        { code: 0, stderr: '' },
      ]);
      const { credits } = await handle.db
        .selectFrom('accounts')
        .select('credits')
        .where('id', '=', 'acc_shared')
        .executeTakeFirstOrThrow();
      expect(credits).toBe(300);
    } finally {
      await handle.close();
    }
  });
});
