import { EventEmitter } from 'node:events';
import type { Db } from '../../../db/client.js';
import type { Job, JobOperation, JobStatus } from '../../../db/schema.js';
import { afterCommit } from '../../../db/transaction.js';
import type { ErrorBody } from '../../errors.js';
import { newId } from '../../ids.js';
import { log } from '../../observability/logger.js';
import { newOriginalName } from '../../storage/storage.js';
import type { HeldCharge } from '../staging/charge.js';
import type { ApiCaller, ImagingDeps } from '../staging/deps.js';
import { chargePrepared, type PreparedOperation } from '../staging/operations/pipeline.js';

/*
 * Asynchronous image requests: the request is prepared (read, inspected, checked) and charged as
 * usual, its input images are kept in storage and a job row commits with the hold; a worker (./runner.ts) performs
 * it later. The hold then lasts as long as the job may wait: the job, not the hold sweeper, gives credits back.
 */

/** How long the hold of an accepted job lasts before the sweeper may take it for dead (the job ends far sooner). */
export const JOB_HOLD_LEASE_MS = 24 * 3_600_000;

/** In-process wake-up for the job runner, fired after a job commits. */
export const jobSignal = new EventEmitter();
jobSignal.setMaxListeners(0);
export const JOB_WAKE = 'wake';

type WithoutInputs<T> = T extends unknown ? Omit<T, 'inputs'> : never;

/** What the job row keeps of the prepared request: everything but the images (they are in `job_inputs`). */
export type JobInput = WithoutInputs<PreparedOperation> & { held: HeldCharge | null };

const EXTENSION_BY_FORMAT: Record<string, string> = {
  jpeg: 'jpg',
  png: 'png',
  webp: 'webp',
  avif: 'avif',
  tiff: 'tiff',
};

/**
 * Stores the inputs, then charges and inserts the job in one transaction, so a job exists exactly when its
 * credits are held. A refused charge (402, closed claim) deletes the inputs again: nothing charged, nothing kept.
 */
export async function enqueueJob(deps: ImagingDeps, caller: ApiCaller, prepared: PreparedOperation): Promise<string> {
  const jobId = newId('job');
  const names: string[] = [];
  try {
    // The formats were read when the request was prepared; the inputs are not decoded again here.
    for (const [index, input] of prepared.inputs.entries()) {
      const format = prepared.formats[index] ?? 'jpeg';
      const name = newOriginalName(prepared.ids[index] ?? newId('image'), EXTENSION_BY_FORMAT[format] ?? 'jpg');
      names.push(name);
      await deps.storage.put(name, input, `image/${format}`);
    }
    // The Idempotency-Key is settled by the 202 response itself; a job that fails later must not free it.
    await chargePrepared(deps, { ...caller, idempotency: null }, prepared, {
      leaseMs: JOB_HOLD_LEASE_MS,
      onHeld: async (trx, held) => {
        const now = deps.clock.now();
        const { inputs: _images, ...request } = prepared;
        const input: JobInput = { ...request, held };
        await trx
          .insertInto('jobs')
          .values({
            id: jobId,
            account_id: caller.accountId,
            key_id: caller.keyId,
            operation: prepared.operation,
            status: 'queued',
            input: JSON.stringify(input),
            hold_id: held?.holdId ?? null,
            result: null,
            error: null,
            attempts: 0,
            lease_owner: null,
            lease_expires_at: now,
            created_at: now,
            finished_at: null,
          })
          .execute();
        await trx
          .insertInto('job_inputs')
          .values(names.map((storage_name, position) => ({ storage_name, job_id: jobId, position })))
          .execute();
        afterCommit(trx, () => jobSignal.emit(JOB_WAKE));
      },
    });
  } catch (error) {
    await Promise.allSettled(names.map((name) => deps.storage.delete(name)));
    throw error;
  }
  return jobId;
}

/** The images a job was accepted with, in request order; null when one is missing from storage. */
export async function readJobInputs(
  deps: Pick<ImagingDeps, 'db' | 'storage'>,
  jobId: string,
): Promise<Buffer[] | null> {
  const rows = await deps.db
    .selectFrom('job_inputs')
    .select('storage_name')
    .where('job_id', '=', jobId)
    .orderBy('position')
    .execute();
  const inputs: Buffer[] = [];
  for (const row of rows) {
    const stored = await deps.storage.get(row.storage_name);
    if (!stored) return null;
    inputs.push(stored.data);
  }
  return inputs;
}

/** A finished job's inputs are no longer needed. Best effort: what is left is purged as orphan files by retention. */
export async function discardJobInputs(deps: Pick<ImagingDeps, 'db' | 'storage'>, jobId: string): Promise<void> {
  try {
    const rows = await deps.db.selectFrom('job_inputs').select('storage_name').where('job_id', '=', jobId).execute();
    await deps.db.deleteFrom('job_inputs').where('job_id', '=', jobId).execute();
    await Promise.allSettled(rows.map((row) => deps.storage.delete(row.storage_name)));
  } catch (error) {
    log.warn({ err: error, jobId }, 'the inputs of a finished job could not be removed; retention removes them');
  }
}

export interface JobView {
  id: string;
  operation: JobOperation;
  status: JobStatus;
  result: unknown;
  error: ErrorBody | null;
  created_at: number;
  finished_at: number | null;
}

/** A job of this account, or undefined: other accounts' jobs read as unknown. */
export async function findOwnJob(db: Db, accountId: string, jobId: string): Promise<JobView | undefined> {
  const job: Job | undefined = await db
    .selectFrom('jobs')
    .selectAll()
    .where('id', '=', jobId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!job) return undefined;
  return {
    id: job.id,
    operation: job.operation,
    status: job.status,
    result: job.result === null ? null : JSON.parse(job.result),
    error: job.error === null ? null : (JSON.parse(job.error) as ErrorBody),
    created_at: job.created_at,
    finished_at: job.finished_at,
  };
}

/** Jobs of this key waiting or running: they count against its image operations in flight. */
export async function countActiveJobs(db: Db, keyId: number): Promise<number> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('active'))
    .where('key_id', '=', keyId)
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirstOrThrow();
  return Number(row.active);
}
