import { z } from 'zod';
import { earningsReport, listPayouts, MIN_PAYOUT_CENTS, requestPayout } from '../domain/ads/earnings.js';
import { resolveRange } from '../domain/usage/report.js';
import { router, sessionProcedure } from '../trpc.js';
import { isoTimestamp, noInput } from './schemas.js';

const cents = z.number().int();
const dateText = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Expected a date written YYYY-MM-DD')
  .meta({ example: '2026-11-23' });

const payoutSchema = z.object({
  id: z.string().meta({ description: 'po_…' }),
  amount_cents: cents,
  status: z.enum(['requested', 'paid', 'rejected']),
  created_at: isoTimestamp,
  paid_at: isoTimestamp.nullable(),
});

export const earningsRouter = router({
  report: sessionProcedure
    .meta({
      permission: 'read_claims',
      openapi: {
        method: 'GET',
        path: '/api/v1/earnings',
        tags: ['Earnings'],
        summary: 'An agent’s ad earnings: balances, per day and per image',
        description:
          'Half of what advertisers paid for the impressions of images in claims this account redeemed. `available_cents` can be paid out; `daily` has every UTC day of the range (default the last 30 days).',
      },
    })
    .input(z.object({ from: dateText.optional(), to: dateText.optional() }).default({}))
    .output(
      z.object({
        available_cents: cents,
        requested_cents: cents,
        paid_cents: cents,
        daily: z.array(z.object({ date: dateText, impressions: cents, earned_cents: cents })),
        images: z.array(z.object({ image_id: z.string(), impressions: cents, earned_cents: cents })),
      }),
    )
    .query(({ ctx, input }) => {
      const range = resolveRange({ from: input.from, to: input.to, now: ctx.services.clock.now() });
      return earningsReport(ctx.services.db, { accountId: ctx.account.id, ...range });
    }),

  requestPayout: sessionProcedure
    .meta({
      permission: 'redeem',
      openapi: {
        method: 'POST',
        path: '/api/v1/earnings/payouts',
        tags: ['Earnings'],
        summary: 'Ask for a payout of available earnings (at least $10)',
        description:
          'Moves amount_cents (≥ 1 000, at most `available_cents`) from available to requested; over the available amount is 409.',
      },
      successStatus: 201,
      errors: ['conflict'],
    })
    .input(z.object({ amount_cents: z.number().int().min(MIN_PAYOUT_CENTS).max(1_000_000_000) }))
    .output(payoutSchema)
    .mutation(async ({ ctx, input }) => {
      const payout = await requestPayout(ctx.services.db, {
        accountId: ctx.account.id,
        amountCents: input.amount_cents,
        now: ctx.services.clock.now(),
      });
      ctx.response.setStatus(201);
      return payout;
    }),

  payouts: sessionProcedure
    .meta({
      permission: 'read_claims',
      openapi: {
        method: 'GET',
        path: '/api/v1/earnings/payouts',
        tags: ['Earnings'],
        summary: 'The account’s payout requests, newest first',
        description: 'Every payout this account asked for, with its status and when it was paid.',
      },
    })
    .input(noInput)
    .output(z.object({ payouts: z.array(payoutSchema) }))
    .query(async ({ ctx }) => ({ payouts: await listPayouts(ctx.services.db, ctx.account.id) })),
});
