import type { Kysely } from 'kysely';
import { tableOptions } from '../migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  // Asynchronous image requests: charged (a hold) when accepted, run by any
  // worker that claims them with a lease. `lease_expires_at` is also when a queued job falls due (its creation), so
  // one index serves claiming both new jobs and jobs whose worker died.
  await tableOptions(
    db,
    db.schema
      .createTable('jobs')
      .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
      .addColumn('account_id', 'varchar(40)', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('key_id', 'bigint', (col) => col.notNull())
      .addColumn('operation', 'varchar(32)', (col) => col.notNull())
      .addColumn('status', 'varchar(16)', (col) => col.notNull())
      .addColumn('input', 'text', (col) => col.notNull())
      .addColumn('hold_id', 'varchar(40)')
      .addColumn('result', 'text')
      .addColumn('error', 'text')
      .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('lease_owner', 'varchar(40)')
      .addColumn('lease_expires_at', 'bigint')
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('finished_at', 'bigint'),
  ).execute();
  await db.schema.createIndex('jobs_claim').on('jobs').columns(['status', 'lease_expires_at']).execute();
  await db.schema.createIndex('jobs_key_status').on('jobs').columns(['key_id', 'status']).execute();
  await db.schema.createIndex('jobs_finished').on('jobs').columns(['finished_at']).execute();

  // Input images of a job, kept in image storage under never-served names until the job finishes; retention knows
  // them by this table, so it never takes them for orphans.
  await tableOptions(
    db,
    db.schema
      .createTable('job_inputs')
      .addColumn('storage_name', 'varchar(128)', (col) => col.primaryKey())
      .addColumn('job_id', 'varchar(40)', (col) => col.notNull().references('jobs.id').onDelete('cascade'))
      .addColumn('position', 'integer', (col) => col.notNull()),
  ).execute();
  await db.schema.createIndex('job_inputs_job').on('job_inputs').columns(['job_id', 'position']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('job_inputs').execute();
  await db.schema.dropTable('jobs').execute();
}
