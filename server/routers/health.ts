import { z } from 'zod';
import { databaseAnswers } from '../../db/client.js';
import { publicProcedure, router } from '../trpc/index.js';
import { APP_VERSION } from '../version.js';

const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  version: z.string(),
  database: z.enum(['ok', 'unavailable']),
  uptime_s: z.number().int(),
});

export const healthRouter = router({
  check: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/health',
        tags: ['Operations'],
        summary: 'Health of the service and its database',
        description:
          'Whether the service and its database answer, its version and uptime. A database that does not answer gives 503 with `status: degraded`; no credential is needed, so load balancers can call it.',
        protect: false,
      },
    })
    .input(z.object({}).optional())
    .output(healthSchema)
    .query(async ({ ctx }) => {
      const { db, clock, startedAt } = ctx.services;
      const databaseOk = await databaseAnswers(db);
      if (!databaseOk) ctx.response.setStatus(503);
      return {
        status: databaseOk ? 'ok' : 'degraded',
        version: APP_VERSION,
        database: databaseOk ? 'ok' : 'unavailable',
        uptime_s: Math.floor((clock.now() - startedAt) / 1000),
      } as const;
    }),
});
