import { z } from 'zod';
import { checkoutStatus, startCheckout, type BillingDeps } from '../domain/billing/checkout.js';
import { getBillingOverview } from '../domain/billing/overview.js';
import { removePaymentMethod } from '../domain/billing/payment-methods.js';
import { getAutoTopUp, putAutoTopUp } from '../domain/billing/settings.js';
import type { Services } from '../services.js';
import { router, sessionProcedure } from '../trpc/index.js';
import { nullableTimestamp, noInput, strictBoolean } from './schemas.js';

const paymentMethodSchema = z.object({
  brand: z.string().meta({ description: 'Card brand, e.g. visa' }),
  last4: z.string(),
  exp_month: z.number().int(),
  exp_year: z.number().int(),
  simulated: z.boolean().meta({ description: 'A card of the built-in simulated gateway (no Stripe key configured)' }),
});

const autoTopUpReason = z.enum([
  'card_declined',
  'authentication_required',
  'payment_method_missing',
  'monthly_limit_reached',
  'processing_error',
]);

export const autoTopUpStateSchema = z.object({
  enabled: z.boolean(),
  amount: z.number().int(),
  threshold: z.number().int(),
  monthly_limit: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'Credits auto top-up may buy per calendar month (UTC); null = no cap' }),
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

const autoTopUpViewSchema = autoTopUpStateSchema.extend({ has_payment_method: z.boolean() });

const checkoutStatusSchema = z.object({
  session_id: z.string(),
  status: z.enum(['open', 'complete', 'expired']),
  credits: z.number().int(),
  purpose: z
    .enum(['credits', 'ad_funds'])
    .meta({ description: 'What the purchase buys: credits or advertising funds' }),
  amount_cents: z.number().int().meta({ description: 'Advertising funds it adds, in cents (0 for credits)' }),
});

function billingDeps(services: Services): BillingDeps {
  return {
    db: services.db,
    gateway: services.payments,
    publicBaseUrl: services.config.publicBaseUrl,
    now: () => services.clock.now(),
  };
}

export const billingRouter = router({
  overview: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/billing',
        tags: ['Billing'],
        summary: 'Balance, card on file and auto top-up state (the dashboard’s balance)',
        description:
          'The balance and totals of the signed-in account, its auto top-up settings and state (cap, pause after a failed charge), and the card on file.',
      },
    })
    .input(noInput)
    .output(billingOverviewSchema)
    .query(
      ({ ctx }) =>
        getBillingOverview(ctx.services.db, ctx.account.id, ctx.services.clock.now()) as Promise<
          z.infer<typeof billingOverviewSchema>
        >,
    ),

  checkout: sessionProcedure
    .meta({
      permission: 'billing',
      openapi: {
        method: 'POST',
        path: '/api/v1/billing/checkout',
        tags: ['Billing'],
        summary: 'Start a Stripe Checkout for credits ($1 each); the card is saved for auto top-up',
        description:
          'Opens a Stripe Checkout Session for 1–10 000 credits at $1 each and answers its url. The card is saved for later off-session auto top-ups; the credits are added once the payment completes and a receipt is e-mailed. Needs a confirmed e-mail address.',
      },
      errors: ['email_unverified'],
    })
    .input(
      z.object({
        credits: z.number().int().min(1).max(10_000).meta({ description: 'Credits to buy, 1–10 000 ($1 each)' }),
      }),
    )
    .output(
      z.object({
        checkout_url: z.string().meta({ description: 'Send the customer here to pay' }),
        session_id: z.string(),
      }),
    )
    .mutation(({ ctx, input }) =>
      startCheckout(billingDeps(ctx.services), {
        accountId: ctx.account.id,
        buyerId: ctx.user.id,
        credits: input.credits,
      }),
    ),

  checkoutStatus: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/billing/checkout/{session_id}',
        tags: ['Billing'],
        summary: 'State of a Checkout Session; a paid one is credited (once) if the Stripe event has not arrived yet',
        description:
          'Whether a Checkout Session of this account is open, complete or expired. A paid session is credited here, exactly once, if Stripe’s event has not arrived yet.',
      },
      errors: ['not_found'],
    })
    .input(z.object({ session_id: z.string().min(1).max(255) }))
    .output(checkoutStatusSchema)
    .query(({ ctx, input }) =>
      checkoutStatus(billingDeps(ctx.services), { accountId: ctx.account.id, sessionId: input.session_id }),
    ),

  removePaymentMethod: sessionProcedure
    .meta({
      permission: 'billing',
      openapi: {
        method: 'DELETE',
        path: '/api/v1/billing/payment-method',
        tags: ['Billing'],
        summary: 'Remove the card on file; auto top-up is switched off with it',
        description:
          'Removes the card on file from the account and from the payment gateway; auto top-up is switched off with it.',
      },
    })
    .input(noInput)
    .output(z.object({ has_payment_method: z.literal(false) }))
    .mutation(async ({ ctx }) => {
      await removePaymentMethod(
        ctx.services.db,
        ctx.services.payments,
        ctx.account.id,
        ctx.audit,
        ctx.services.clock.now(),
      );
      return { has_payment_method: false as const };
    }),

  getAutoTopUp: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/settings/auto-topup',
        tags: ['Settings'],
        summary: 'Auto top-up settings, cap and pause state',
        description:
          'Whether auto top-up is on, how many credits it buys below which balance, its monthly cap, whether it is paused after a failed charge and why, and whether a card is on file.',
      },
    })
    .input(noInput)
    .output(autoTopUpViewSchema)
    .query(
      ({ ctx }) =>
        getAutoTopUp(ctx.services.db, ctx.account.id, ctx.services.clock.now()) as Promise<
          z.infer<typeof autoTopUpViewSchema>
        >,
    ),

  putAutoTopUp: sessionProcedure
    .meta({
      permission: 'billing',
      openapi: {
        method: 'PUT',
        path: '/api/v1/settings/auto-topup',
        tags: ['Settings'],
        summary: 'Save auto top-up settings (enabling needs a card on file); saving ends a pause',
        description:
          'Saves amount (10–10 000), threshold (0–100 000), the monthly cap and whether auto top-up is on. Enabling it needs a card on file; saving ends a pause after a failed charge.',
      },
      errors: ['payment_method_required'],
    })
    .input(
      z.object({
        enabled: strictBoolean,
        amount: z.number().int().min(10).max(10_000).meta({ description: 'Credits bought per top-up, 10–10 000' }),
        threshold: z
          .number()
          .int()
          .min(0)
          .max(100_000)
          .meta({ description: 'Top up when a charge leaves the balance below this, 0–100 000' }),
        monthly_limit: z.number().int().min(1).max(1_000_000).nullable().optional().meta({
          description: 'Credits auto top-up may buy per calendar month (UTC); null = no cap; omitted = unchanged',
        }),
      }),
    )
    .output(autoTopUpViewSchema)
    .mutation(
      ({ ctx, input }) =>
        putAutoTopUp(ctx.services.db, ctx.account.id, input, ctx.services.clock.now(), ctx.audit) as Promise<
          z.infer<typeof autoTopUpViewSchema>
        >,
    ),
});
