import { z } from 'zod';
import { earningsReport } from '../domain/payouts/earnings.js';
import { listPayouts, MIN_PAYOUT_CENTS, requestPayout } from '../domain/payouts/request.js';
import { resolveRange } from '../domain/usage/report.js';
import { router, sessionProcedure } from '../trpc/index.js';
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
          'Half of what advertisers paid for the impressions of images in claims this account redeemed. Each impression’s share is held for EARNINGS_HOLD (default 7 days, time to find invalid traffic) as `pending_cents`, then becomes `available_cents`, which can be paid out. Impressions an operator declared invalid traffic are counted apart (`invalid_impressions`) and their share is taken back. `daily` has every UTC day of the range (default the last 30 days).',
      },
    })
    .input(z.object({ from: dateText.optional(), to: dateText.optional() }).default({}))
    .output(
      z.object({
        available_cents: cents,
        pending_cents: cents.meta({ description: 'Earned within the hold period (EARNINGS_HOLD): not payable yet' }),
        requested_cents: cents,
        paid_cents: cents,
        daily: z.array(
          z.object({ date: dateText, impressions: cents, invalid_impressions: cents, earned_cents: cents }),
        ),
        images: z.array(
          z.object({ image_id: z.string(), impressions: cents, invalid_impressions: cents, earned_cents: cents }),
        ),
      }),
    )
    .query(({ ctx, input }) => {
      const range = resolveRange({ from: input.from, to: input.to, now: ctx.services.clock.now() });
      const { clock, config } = ctx.services;
      const hold = { now: clock.now(), holdMs: config.earningsHoldMs };
      return earningsReport(ctx.services.db, { accountId: ctx.account.id, ...range, ...hold });
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
          'Moves amount_cents (≥ 1 000, at most `available_cents`: earnings still in their hold period are not payable) from available to requested; over the available amount is 409. Audited as `payout.requested` with who asked.',
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
        holdMs: ctx.services.config.earningsHoldMs,
        origin: ctx.audit,
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
