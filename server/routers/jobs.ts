import { z } from 'zod';
import { iso } from '../clock.js';
import { findOwnJob } from '../domain/jobs/jobs.js';
import { AppError, ERROR_CATALOG } from '../errors.js';
import { apiKeyProcedure, router } from '../trpc/index.js';
import {
  declutterOutput,
  enhanceOutput,
  fidelityChangesSchema,
  isoTimestamp,
  nullableTimestamp,
  placeOutput,
  rerenderOutput,
  stageOutput,
} from './schemas.js';

/** A failed job's JSON error body, as the synchronous request would have answered it. */
const jobErrorSchema = z.object({
  error: z.string(),
  code: z.enum(Object.keys(ERROR_CATALOG) as [keyof typeof ERROR_CATALOG, ...Array<keyof typeof ERROR_CATALOG>]),
  message: z.string(),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  credits_required: z.number().int().optional(),
  credits_available: z.number().int().optional(),
  credits_remaining: z.number().int().optional(),
  fidelity: z.number().min(0).max(1).optional(),
  changes: fidelityChangesSchema.unwrap().optional(),
});

export const jobsRouter = router({
  get: apiKeyProcedure
    .meta({
      scope: 'jobs:read',
      openapi: {
        method: 'GET',
        path: '/api/v1/jobs/{id}',
        tags: ['Images'],
        summary: 'An asynchronous request (Prefer: respond-async): its status, then its result or error',
        description:
          'The state of a request made with `Prefer: respond-async` by a key of this account: queued, running, then succeeded with the synchronous answer in `result`, or failed with the error body in `error` and its credits refunded.',
      },
      errors: ['not_found'],
    })
    .input(z.object({ id: z.string().min(1).max(64).meta({ description: 'Job id (job_…), from the 202 answer' }) }))
    .output(
      z.object({
        id: z.string(),
        operation: z.enum(['stage', 'enhance', 'place_products', 'declutter', 'rerender']),
        status: z.enum(['queued', 'running', 'succeeded', 'failed']),
        result: z
          .union([rerenderOutput, stageOutput, declutterOutput, enhanceOutput, placeOutput])
          .nullable()
          .meta({ description: 'When succeeded: the body the synchronous request answers with' }),
        error: jobErrorSchema
          .nullable()
          .meta({ description: 'When failed: the JSON error body; the credits were refunded' }),
        created_at: isoTimestamp,
        finished_at: nullableTimestamp,
      }),
    )
    .query(async ({ ctx, input }) => {
      const job = await findOwnJob(ctx.services.db, ctx.apiKey.accountId, input.id);
      if (!job) throw new AppError('not_found', `No job ${input.id} among this API user's jobs.`);
      return {
        ...job,
        result: job.result as z.infer<typeof stageOutput> | null,
        created_at: iso(job.created_at),
        finished_at: job.finished_at === null ? null : iso(job.finished_at),
      };
    }),
});
