import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';

const migrationFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Like Kysely's FileMigrationProvider, but the import runs from our own module so that the TypeScript loader in
 * use (tsx at run time, vitest in tests) handles the `.ts` migration files.
 */
const folderProvider: MigrationProvider = {
  async getMigrations() {
    const files = (await readdir(migrationFolder))
      .filter((f) => /^\d{4}_\d\d_\d\d_\d{4}_.+\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'))
      .sort();
    const migrations: Record<string, Migration> = {};
    for (const file of files) {
      migrations[file.replace(/\.(ts|js)$/, '')] = (await import(
        pathToFileURL(path.join(migrationFolder, file)).href
      )) as Migration;
    }
    return migrations;
  },
};

/** Brings the database to the newest migration; Kysely's lock table keeps concurrent starters safe. */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: folderProvider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
