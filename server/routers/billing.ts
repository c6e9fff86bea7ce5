import { z } from 'zod';
import { getBillingOverview } from '../domain/billing/overview.js';
import { router, sessionProcedure } from '../trpc.js';
import { nullableTimestamp, noInput } from './schemas.js';

const paymentMethodSchema = z.object({
  brand: z.string().meta({ description: 'Card brand, e.g. visa' }),
  last4: z.string(),
  exp_month: z.number().int(),
  exp_year: z.number().int(),
  simulated: z.boolean().meta({ description: 'A card of the built-in simulated gateway (no Stripe key configured)' }),
});

const autoTopUpReason = z.enum(['card_declined', 'authentication_required', 'payment_method_missing', 'monthly_limit_reached', 'processing_error']);

export const autoTopUpStateSchema = z.object({
  enabled: z.boolean(),
  amount: z.number().int(),
  threshold: z.number().int(),
  monthly_limit: z.number().int().nullable().meta({ description: 'Credits auto top-up may buy per calendar month (UTC); null = no cap' }),
  paused_until: nullableTimestamp.meta({ description: 'No top-up is tried before this time (after a failed charge)' }),
  last_failure_reason: autoTopUpReason.nullable(),
});

export const billingOverviewSchema = z.object({
  credits: z.number().int(),
  has_payment_method: z.boolean(),
  total_purchased: z.number().int(),
  total_used: z.number().int(),
  auto_topup: autoTopUpStateSchema,
  payment_method: paymentMethodSchema.nullable(),
});

export const billingRouter = router({
  overview: sessionProcedure
    .meta({ openapi: { method: 'GET', path: '/api/v1/billing', tags: ['Billing'], summary: 'Balance, card on file and auto top-up state (the dashboard’s balance)' } })
    .input(noInput)
    .output(billingOverviewSchema)
    .query(({ ctx }) => getBillingOverview(ctx.services.db, ctx.account.id, ctx.services.clock.now()) as Promise<z.infer<typeof billingOverviewSchema>>),
});
