import { z } from 'zod';
import { ledgerEntryView } from '../domain/credits/ledger.js';
import { MAX_REPORT_DAYS, resolveRange, usageReport } from '../domain/usage/report.js';
import { listTransactions } from '../domain/usage/transactions.js';
import { router, sessionProcedure } from '../trpc/index.js';
import { isoTimestamp, keyIdParam, pageQuery, transactionSchema } from './schemas.js';

const count = z.number().int();
const dateText = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Expected a date written YYYY-MM-DD')
  .meta({ example: '2026-11-23' });

const usageSchema = z.object({
  from: dateText,
  to: dateText,
  totals: z.object({
    images_staged: count,
    images_enhanced: count,
    product_placements: count.meta({ description: 'Images made by place-products' }),
    credits_used: count.meta({ description: 'Credits spent by stage and enhance, net of refunds' }),
    credits_purchased: count.meta({ description: 'Credits bought (purchases and auto top-ups)' }),
    claims_issued: count,
    claims_redeemed: count.meta({ description: 'Claims you issued that an agent redeemed in the range' }),
  }),
  daily: z
    .array(
      z.object({
        date: dateText,
        images_staged: count,
        images_enhanced: count,
        product_placements: count,
        credits_used: count,
      }),
    )
    .meta({ description: 'One row for every day of the range (UTC), oldest first, zeros included' }),
  keys: z.array(
    z.object({
      key_id: z.number().int(),
      name: z.string(),
      prefix: z.string().meta({ description: 'The start of the key, as the key list shows it (`sk_live_…`)' }),
      credits_used: count,
      last_used_at: isoTimestamp.nullable(),
    }),
  ),
  ad_revenue: z
    .object({
      impressions: count,
      gross_cents: count,
      earned_cents: count.meta({ description: 'Your 50 % share, in US cents' }),
    })
    .meta({ description: 'All-time ad revenue of the images in claims you redeemed (as an agent)' }),
});

export const usageRouter = router({
  transactions: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/billing/transactions',
        tags: ['Billing'],
        summary: 'Credit ledger of the account, newest first, in pages',
        description:
          'Every change to the balance (bonus, purchase, auto top-up, stage, enhance, refund) with the balance after it, newest first. Pass the last id of a page as `starting_after` for the next page.',
      },
      errors: ['not_found'],
    })
    .input(pageQuery('transaction'))
    .output(z.object({ transactions: z.array(transactionSchema), has_more: z.boolean() }))
    .query(async ({ ctx, input }) => {
      const page = await listTransactions(ctx.services.db, {
        accountId: ctx.account.id,
        limit: input.limit,
        startingAfter: input.starting_after,
      });
      return {
        transactions: page.entries.map(ledgerEntryView),
        has_more: page.hasMore,
      };
    }),

  report: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/usage',
        tags: ['Usage'],
        summary: `Usage between two dates (UTC, inclusive; default the last 30 days, at most ${MAX_REPORT_DAYS}), optionally of one API key`,
        description:
          'Images staged, enhanced and placed, credits used and bought, claims issued and redeemed, per day and per API key, and the ad revenue earned as an agent. `from` and `to` are dates (YYYY-MM-DD, UTC).',
      },
      errors: ['not_found'],
    })
    .input(
      z
        .object({
          from: dateText.optional(),
          to: dateText.optional(),
          key_id: keyIdParam.optional(),
        })
        .default({}),
    )
    .output(usageSchema)
    .query(({ ctx, input }) => {
      const range = resolveRange({ from: input.from, to: input.to, now: ctx.services.clock.now() });
      return usageReport(ctx.services.db, { accountId: ctx.account.id, ...range, keyId: input.key_id });
    }),
});
