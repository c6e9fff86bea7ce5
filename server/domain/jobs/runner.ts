import { createLeaseLoop, inClaimTransaction, lockedForClaim } from '../../../db/leasing.js';
import type { Job } from '../../../db/schema.js';
import { inTransaction } from '../../../db/transaction.js';
import { AppError, type ErrorBody, toErrorResponse } from '../../errors.js';
import { newId } from '../../ids.js';
import { log as logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import { releaseHold } from '../credits/holds.js';
import { emitEvent } from '../events/outbox.js';
import type { HeldCharge } from '../staging/charge.js';
import type { ApiCaller, ImagingDeps } from '../staging/deps.js';
import { performPrepared, type PreparedOperation } from '../staging/operations/pipeline.js';
import { requestSeed } from '../staging/variations.js';
import { discardJobInputs, JOB_HOLD_LEASE_MS, JOB_WAKE, type JobInput, jobSignal, readJobInputs } from './jobs.js';

/*
 * Runs asynchronous jobs (./jobs.ts) in any server or worker process, leased the outbox's way (db/leasing.ts): a
 * lease with an owner, renewed while the job runs. A job whose worker died is claimed again once its lease ends.
 * The result commits in the transaction that makes the charge final, and only while this worker still owns the
 * lease, so a job succeeds exactly once; a failure refunds the hold and emits `job.failed`.
 */

export interface JobRunnerOptions {
  /** Read at each job, so a process (or a test) may swap its engine. */
  deps: () => ImagingDeps;
  /** How long a claimed job stays ours without renewal; past it, another worker takes it (CHARGE_HOLD_TIMEOUT). */
  leaseMs: number;
  /** Jobs worked on at once in this process (JOBS_PER_PROCESS), besides those waiting at a remote engine's provider. */
  concurrency?: number;
  /** Fallback when no in-process wake-up arrives (a job accepted by another process, a lease that ran out). */
  pollIntervalMs?: number;
  /** A job taken this many times by workers that all died is given up: refunded and failed. */
  maxAttempts?: number;
  metrics?: Pick<Metrics, 'jobOutcomes'>;
}

export interface JobRunner {
  start(): void;
  /** Stops claiming and waits for the jobs in flight to finish. */
  stop(): Promise<void>;
  wake(): void;
}

/** Thrown inside the result transaction when another worker has taken the job: roll back, refund nothing. */
class JobLeaseLost extends Error {
  readonly keepsHold = true;
  constructor(jobId: string) {
    super(`job ${jobId} was taken over by another worker`);
  }
}

type ClaimedJob = Job & { lease_owner: string };

export function createJobRunner(options: JobRunnerOptions): JobRunner {
  const concurrency = options.concurrency ?? 4;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const maxAttempts = options.maxAttempts ?? 3;
  const log = (message: string, error?: unknown) => logger.error({ err: error, component: 'jobs' }, message);
  let inFlight = 0;
  const loop = createLeaseLoop({
    round,
    pollIntervalMs,
    wakeOn: { emitter: jobSignal, event: JOB_WAKE },
    onRoundError: (error) => log('claiming jobs failed; trying again shortly', error),
  });

  /** Leases up to `limit` due jobs in one transaction, each under its own owner. */
  async function claim(limit: number): Promise<ClaimedJob[]> {
    const { db, clock } = options.deps();
    const now = clock.now();
    return inClaimTransaction(db, async (trx) => {
      const due = await lockedForClaim(
        trx,
        trx
          .selectFrom('jobs')
          .selectAll()
          .where('status', 'in', ['queued', 'running'])
          .where('lease_expires_at', '<=', now)
          .orderBy('lease_expires_at')
          .limit(limit),
      ).execute();
      const claimed: ClaimedJob[] = [];
      for (const job of due) {
        const owner = newId('jobLease');
        const attempts = job.attempts + 1;
        await trx
          .updateTable('jobs')
          .set({ status: 'running', lease_owner: owner, lease_expires_at: now + options.leaseMs, attempts })
          .where('id', '=', job.id)
          .execute();
        claimed.push({ ...job, status: 'running' as const, lease_owner: owner, attempts });
      }
      return claimed;
    });
  }

  /** Renews the lease every third of it while the job runs; a process that dies stops renewing. */
  function keepLease(job: ClaimedJob) {
    const { db, clock } = options.deps();
    let renewing: Promise<unknown> | null = null;
    const timer = setInterval(
      () => {
        renewing ??= db
          .updateTable('jobs')
          .set({ lease_expires_at: clock.now() + options.leaseMs })
          .where('id', '=', job.id)
          .where('lease_owner', '=', job.lease_owner)
          .execute()
          .catch((error: unknown) => log(`could not renew the lease of job ${job.id}; trying again`, error))
          .finally(() => (renewing = null));
      },
      Math.max(1, Math.floor(options.leaseMs / 3)),
    );
    timer.unref();
    return async () => {
      clearInterval(timer);
      await renewing;
    };
  }

  async function perform(deps: ImagingDeps, job: ClaimedJob): Promise<void> {
    const input = JSON.parse(job.input) as JobInput;
    const inputs = await readJobInputs(deps, job.id);
    if (!inputs)
      throw new AppError(
        'internal_error',
        'The images of this job are no longer available; its credits were refunded. Send the request again.',
      );
    // A stage job accepted before variations existed has none of their fields: it runs as one unlabelled picture.
    const earlier =
      input.operation === 'stage'
        ? {
            variations: 1,
            seeds: inputs.map((image) => requestSeed(undefined, image)),
            declutter: false,
            label: 'none',
          }
        : {};
    const prepared = { ...earlier, ...input, inputs } as PreparedOperation & { held: HeldCharge | null };
    const caller: ApiCaller = { accountId: job.account_id, keyId: job.key_id, idempotency: null };
    // The hold was taken for as long as the job may wait; running it renews it on that scale, not CHARGE_HOLD_TIMEOUT.
    const jobDeps: ImagingDeps = { ...deps, chargeHoldTimeoutMs: JOB_HOLD_LEASE_MS };
    const succeed = (body: unknown) => async (trx: ImagingDeps['db']) => {
      const updated = await trx
        .updateTable('jobs')
        .set({
          status: 'succeeded',
          result: JSON.stringify(body),
          finished_at: deps.clock.now(),
          lease_owner: null,
          lease_expires_at: null,
        })
        .where('id', '=', job.id)
        .where('lease_owner', '=', job.lease_owner)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) throw new JobLeaseLost(job.id);
    };
    await performPrepared(jobDeps, caller, prepared, prepared.held, (trx, body) => succeed(body)(trx));
  }

  /**
   * Refunds the job's hold (if a failed run has not already) and records the failure with its `job.failed` event,
   * only while this worker owns the job. A refund that fails leaves the job to be claimed again when its lease ends.
   */
  async function fail(deps: ImagingDeps, job: ClaimedJob, error: ErrorBody): Promise<boolean> {
    if (job.hold_id) await releaseHold(deps.db, job.hold_id, { now: deps.clock.now() });
    return inTransaction(deps.db, async (trx) => {
      const now = deps.clock.now();
      const updated = await trx
        .updateTable('jobs')
        .set({
          status: 'failed',
          error: JSON.stringify(error),
          finished_at: now,
          lease_owner: null,
          lease_expires_at: null,
        })
        .where('id', '=', job.id)
        .where('lease_owner', '=', job.lease_owner)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return false;
      await emitEvent(trx, {
        accountId: job.account_id,
        keyId: job.key_id,
        event: 'job.failed',
        data: { job_id: job.id, operation: job.operation, error },
        now,
      });
      return true;
    });
  }

  async function run(job: ClaimedJob): Promise<void> {
    const deps = options.deps();
    const stopLease = keepLease(job);
    let outcome: 'succeeded' | 'failed' | null = null;
    try {
      if (job.attempts > maxAttempts) {
        const body = toErrorResponse(
          new AppError(
            'internal_error',
            `The job was interrupted ${maxAttempts} times and was given up; its credits were refunded. Send the request again.`,
          ),
        ).body;
        if (await fail(deps, job, body)) outcome = 'failed';
        return;
      }
      try {
        await perform(deps, job);
        outcome = 'succeeded';
      } catch (error) {
        if (error instanceof JobLeaseLost) return;
        const { status, body } = toErrorResponse(error);
        if (status >= 500) log(`job ${job.id} failed`, error);
        if (await fail(deps, job, body)) outcome = 'failed';
      }
    } catch (error) {
      log(`job ${job.id} could not be finished; it runs again when its lease ends`, error);
    } finally {
      await stopLease();
      if (outcome) {
        options.metrics?.jobOutcomes.inc({ operation: job.operation, outcome });
        await discardJobInputs(deps, job.id);
      }
    }
  }

  /**
   * How many more jobs this process takes now. JOBS_PER_PROCESS bounds the jobs working here (reading, preparing,
   * fitting, storing); a job whose image is at a remote engine's provider does not count, so while some jobs are
   * finished here every provider slot has the next one. At most the provider's slots more are in flight in all
   * (the slots also serve this process's synchronous requests).
   */
  function room(): number {
    const slots = options.deps().engine.providerSlots;
    if (!slots) return concurrency - inFlight;
    const working = inFlight - Math.min(slots.inUse, inFlight);
    const free = Math.min(concurrency - working, concurrency + slots.size - inFlight);
    // Full: an image leaving for the provider makes room, so that wakes the loop as a finished job does.
    if (free <= 0) slots.onceChanged(loop.wake);
    return free;
  }

  /** Claims as many jobs as there is room for and starts them; a finished job frees its room and wakes the loop. */
  async function round(): Promise<boolean> {
    const free = room();
    if (free <= 0) return false;
    const claimed = await claim(free);
    for (const job of claimed) {
      inFlight += 1;
      void loop.track(
        run(job).finally(() => {
          inFlight -= 1;
          loop.wake();
        }),
      );
    }
    return claimed.length === free;
  }

  return { start: loop.start, stop: loop.stop, wake: loop.wake };
}
