import { z } from 'zod';
import type { AuditOrigin } from '../domain/audit/audit.js';
import { productView } from '../domain/ads/advertiser-products.js';
import { adFundsEntryView } from '../domain/ads/funds.js';
import { millicentsToCents } from '../domain/ads/money.js';
import { ledgerEntryView } from '../domain/credits/ledger.js';
import { adjustAdFunds, adjustCredits, suspendAccount, unsuspendAccount } from '../domain/operators/accounts.js';
import { reviewProduct } from '../domain/operators/products.js';
import { listAllPayouts, settlePayout } from '../domain/payouts/settle.js';
import { accountDetail } from '../domain/operators/detail.js';
import { fleetReport } from '../domain/operators/fleet.js';
import { declareInvalidTraffic } from '../domain/operators/invalid-traffic.js';
import { operatorInputs } from '../domain/operators/inputs.js';
import { refundPurchase } from '../domain/operators/purchases.js';
import { searchAccounts } from '../domain/operators/search.js';
import { operatorProcedure, router } from '../trpc/index.js';
import {
  adFundsTransactionSchema,
  auditEntrySchema,
  campaignSchema,
  isoTimestamp,
  productSchema,
  transactionSchema,
} from './schemas.js';

const TAGS = ['Operators'];
const int = z.number().int();

const accountSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  owner_email: z.string(),
  credits: int,
  status: z.enum(['active', 'suspended']),
  created_at: isoTimestamp,
});

const payoutSchema = z.object({
  id: z.string(),
  account_id: z.string(),
  email: z.string(),
  amount_cents: int,
  status: z.enum(['requested', 'paid', 'rejected']),
  reference: z.string().nullable(),
  created_at: isoTimestamp,
  paid_at: isoTimestamp.nullable(),
});

/** Who acts (the operator), why, and when: what every operator change carries into its audit entry. */
function change(ctx: { audit: AuditOrigin; services: { clock: { now(): number } } }, why: string) {
  return { origin: ctx.audit, reason: why, now: ctx.services.clock.now() };
}

export const adminRouter = router({
  search: operatorProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/admin/search',
        tags: TAGS,
        summary: 'Find accounts by e-mail, account id, key, claim code, image or job',
        description:
          '`q` is an e-mail (or part of one), `acc_…`, an API key or its prefix, a claim code, `img_…` or `job_…`. At most 50 accounts.',
      },
    })
    .input(operatorInputs.search)
    .output(z.object({ accounts: z.array(accountSummarySchema) }))
    .query(async ({ ctx, input }) => ({ accounts: await searchAccounts(ctx.services.db, input.q) })),

  account: operatorProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/admin/accounts/{id}',
        tags: TAGS,
        summary: 'One account as an operator sees it',
        description:
          'Balance and the latest ledger entries, the purchases (to refund), members, keys, recent jobs and the number failed, each webhook’s delivery failure rate, ad funds and their ledger, campaigns, products, earnings and payouts, and the latest audit log entries.',
      },
      errors: ['not_found'],
    })
    .input(operatorInputs.account)
    .output(
      accountSummarySchema.extend({
        members: z.array(
          z.object({
            user_id: z.string(),
            email: z.string(),
            role: z.enum(['owner', 'admin', 'developer', 'billing', 'agent', 'viewer']),
            email_verified: z.boolean(),
          }),
        ),
        keys: z.array(
          z.object({
            id: int,
            name: z.string(),
            prefix: z.string(),
            mode: z.enum(['live', 'test']),
            created_at: isoTimestamp,
            last_used_at: isoTimestamp.nullable(),
            revoked_at: isoTimestamp.nullable(),
          }),
        ),
        recent_jobs: z.array(
          z.object({
            id: z.string(),
            operation: z.string(),
            status: z.string(),
            error_code: z.string().nullable(),
            created_at: isoTimestamp,
            finished_at: isoTimestamp.nullable(),
          }),
        ),
        failed_jobs: int,
        webhooks: z.array(z.object({ key_id: int, deliveries: int, failure_rate: z.number().min(0).max(1) })),
        ledger: z.array(transactionSchema).meta({ description: 'The latest 20 credit ledger entries, newest first' }),
        purchases: z
          .array(transactionSchema.extend({ refunded: z.boolean() }))
          .meta({ description: 'The latest 20 credit purchases (`purchase`, `auto_topup`): what can be refunded' }),
        ad_funds_cents: int,
        ad_funds_ledger: z.array(adFundsTransactionSchema).meta({ description: 'The latest 20, newest first' }),
        campaigns: z.array(campaignSchema),
        products: z.array(
          z.object({
            id: z.string(),
            name: z.string(),
            brand: z.string(),
            status: z.enum(['active', 'paused', 'rejected', 'archived']),
            created_at: isoTimestamp,
          }),
        ),
        earnings: z.object({ available_cents: int, pending_cents: int, requested_cents: int, paid_cents: int }),
        payouts: z.array(
          z.object({
            id: z.string(),
            amount_cents: int,
            status: z.enum(['requested', 'paid', 'rejected']),
            created_at: isoTimestamp,
            paid_at: isoTimestamp.nullable(),
          }),
        ),
        audit_log: z.array(auditEntrySchema).meta({ description: 'The latest 20 entries, newest first' }),
      }),
    )
    .query(({ ctx, input }) =>
      accountDetail(ctx.services.db, input.id, ctx.services.clock.now(), {
        earningsHoldMs: ctx.services.config.earningsHoldMs,
      }),
    ),

  adjustCredits: operatorProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/accounts/{id}/credits',
        tags: TAGS,
        summary: 'Grant or deduct credits',
        description:
          'Adds (`delta` > 0) or takes credits with a ledger entry of reason `adjustment`. A deduction below zero is 409 and changes nothing.',
      },
      errors: ['not_found', 'conflict'],
    })
    .input(operatorInputs.adjustCredits)
    .output(z.object({ credits: int, transaction: transactionSchema }))
    .mutation(async ({ ctx, input }) => {
      const result = await adjustCredits(ctx.services.db, {
        ...change(ctx, input.reason),
        accountId: input.id,
        delta: input.delta,
      });
      return { credits: result.credits, transaction: ledgerEntryView(result.transaction) };
    }),

  adjustAdFunds: operatorProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/accounts/{id}/ad-funds',
        tags: TAGS,
        summary: 'Add or take ad funds',
        description: 'An `adjustment` in the ad funds ledger; below zero is 409 and changes nothing.',
      },
      errors: ['not_found', 'conflict'],
    })
    .input(operatorInputs.adjustAdFunds)
    .output(
      z.object({
        balance_cents: int,
        transaction: adFundsTransactionSchema,
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const result = await adjustAdFunds(ctx.services.db, {
        ...change(ctx, input.reason),
        accountId: input.id,
        deltaCents: input.delta_cents,
      });
      return {
        balance_cents: millicentsToCents(result.balanceMillicents),
        transaction: adFundsEntryView(result.transaction),
      };
    }),

  refundPurchase: operatorProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/purchases/{transaction_id}/refund',
        tags: TAGS,
        summary: 'Refund a credit purchase through the payment gateway',
        description:
          'Pays the purchase back to the card and takes its credits back, never below zero: `credits_short` says how many were already spent. A purchase is refunded once (409 after).',
      },
      errors: ['not_found', 'conflict'],
    })
    .input(operatorInputs.refundPurchase)
    .output(z.object({ refunded_cents: int, credits_deducted: int, credits_short: int }))
    .mutation(({ ctx, input }) =>
      refundPurchase(ctx.services.db, ctx.services.payments, {
        ...change(ctx, input.reason),
        transactionId: input.transaction_id,
      }),
    ),

  suspend: operatorProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/accounts/{id}/suspend',
        tags: TAGS,
        summary: 'Suspend an account',
        description:
          'Every key and session of the account gets 403 `account_suspended` from its next request, on every server (its members can still switch to another of their accounts and sign out). Queued jobs fail and their credits are refunded. An operator may not suspend an account they are a member of: 409 `conflict`.',
      },
      errors: ['not_found', 'conflict'],
    })
    .input(operatorInputs.suspension)
    .output(z.object({ status: z.literal('suspended') }))
    .mutation(async ({ ctx, input }) => {
      await suspendAccount(ctx.services.db, { ...change(ctx, input.reason), accountId: input.id });
      return { status: 'suspended' as const };
    }),

  unsuspend: operatorProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/accounts/{id}/unsuspend',
        tags: TAGS,
        summary: 'Restore a suspended account',
        description: 'The account’s keys and sessions work again.',
      },
      errors: ['not_found'],
    })
    .input(operatorInputs.suspension)
    .output(z.object({ status: z.literal('active') }))
    .mutation(({ ctx, input }) =>
      unsuspendAccount(ctx.services.db, { ...change(ctx, input.reason), accountId: input.id }),
    ),

  rejectProduct: operatorProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/products/{id}/reject',
        tags: TAGS,
        summary: 'Reject an advertiser’s product',
        description: 'A rejected product is never placed, and its owner cannot resume it.',
      },
      errors: ['not_found'],
    })
    .input(operatorInputs.productReview)
    .output(productSchema)
    .mutation(async ({ ctx, input }) => {
      const product = await reviewProduct(ctx.services.db, {
        ...change(ctx, input.reason),
        productId: input.id,
        decision: 'reject',
      });
      return productView(ctx.services.storage, product) as z.infer<typeof productSchema>;
    }),

  restoreProduct: operatorProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/products/{id}/restore',
        tags: TAGS,
        summary: 'Restore a rejected product',
        description: 'The product is active again. A product that is not rejected is 409.',
      },
      errors: ['not_found', 'conflict'],
    })
    .input(operatorInputs.productReview)
    .output(productSchema)
    .mutation(async ({ ctx, input }) => {
      const product = await reviewProduct(ctx.services.db, {
        ...change(ctx, input.reason),
        productId: input.id,
        decision: 'restore',
      });
      return productView(ctx.services.storage, product) as z.infer<typeof productSchema>;
    }),

  invalidTraffic: operatorProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/campaigns/{id}/invalid-traffic',
        tags: TAGS,
        summary: 'Declare a campaign’s traffic of a day (or of one address) invalid',
        description:
          'Every billed impression of the campaign on that UTC `date` (from `address` only, when given) that is still valid becomes invalid: the advertiser’s funds get its cost back (an `adjustment`), the campaign’s spend and budgets drop by it, and each agent gives back their share as far as it is not already requested or paid out (the rest is the service’s loss). Exact to the milli-cent and audited (`operator.invalid_traffic_declared`, and `operator.earnings_taken_back` on each agent’s account). Declaring the same traffic again refunds nothing more.',
      },
      errors: ['not_found'],
    })
    .input(operatorInputs.invalidTraffic)
    .output(
      z.object({
        id: z.string().meta({ description: 'ivt_…: the declaration, named in the audit entries and the funds ledger' }),
        campaign_id: z.string(),
        date: z.string(),
        address: z.string().nullable(),
        invalid_impressions: int.meta({ description: 'Billed impressions this declaration made invalid' }),
        refunded_millicents: int,
        refunded_cents: int.meta({ description: 'refunded_millicents in whole cents, rounded down' }),
        earnings_taken_back_millicents: int,
      }),
    )
    .mutation(({ ctx, input }) =>
      declareInvalidTraffic(ctx.services.db, {
        ...change(ctx, input.reason),
        campaignId: input.id,
        day: Date.parse(`${input.date}T00:00:00Z`) / 86_400_000,
        address: input.address ?? null,
        holdMs: ctx.services.config.earningsHoldMs,
      }),
    ),

  payouts: operatorProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/admin/payouts',
        tags: TAGS,
        summary: 'Every account’s payouts',
        description: 'Oldest first; `status` filters (`requested` is the queue to pay).',
      },
    })
    .input(operatorInputs.payouts.default({}))
    .output(z.object({ payouts: z.array(payoutSchema) }))
    .query(async ({ ctx, input }) => ({ payouts: await listAllPayouts(ctx.services.db, input.status) })),

  payoutPaid: operatorProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/payouts/{id}/paid',
        tags: TAGS,
        summary: 'Mark a payout paid',
        description: 'Records the payment’s `reference` and e-mails the agent. Only a requested payout (else 409).',
      },
      errors: ['not_found', 'conflict'],
    })
    .input(operatorInputs.payoutSettlement)
    .output(payoutSchema)
    .mutation(({ ctx, input }) =>
      settlePayout(ctx.services.db, {
        ...change(ctx, input.reason),
        payoutId: input.id,
        outcome: 'paid',
        reference: input.reference,
      }),
    ),

  payoutReject: operatorProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/admin/payouts/{id}/reject',
        tags: TAGS,
        summary: 'Reject a payout',
        description:
          'The amount is available to the agent again, and the agent is e-mailed. Only a requested payout (else 409).',
      },
      errors: ['not_found', 'conflict'],
    })
    .input(operatorInputs.payoutSettlement)
    .output(payoutSchema)
    .mutation(({ ctx, input }) =>
      settlePayout(ctx.services.db, {
        ...change(ctx, input.reason),
        payoutId: input.id,
        outcome: 'rejected',
        reference: input.reference,
      }),
    ),

  fleet: operatorProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/admin/fleet',
        tags: TAGS,
        summary: 'The service’s days in numbers',
        description:
          'Per UTC day: images by engine (`unrecorded` before engines were stored per image), image requests the engine or the server failed (refunded) by engine and by code, the engine calls’ p50 and p95, credits sold, ad spend, agents’ earnings, webhook deliveries and their failures; and the webhook deliveries and charge holds waiting now.',
      },
    })
    .input(operatorInputs.fleet.default({ days: 7 }))
    .output(
      z.object({
        daily: z.array(
          z.object({
            date: z.string(),
            images_by_engine: z.record(z.string(), int),
            failures: int.meta({ description: 'Image requests the engine or the server failed that day (refunded)' }),
            failures_by_engine: z.record(z.string(), int),
            failures_by_code: z.record(z.string(), int).meta({
              description: 'By error code: engine_unavailable, engine_rejected, structure_changed, internal_error',
            }),
            engine_p50_ms: z
              .number()
              .nullable()
              .meta({ description: 'Median engine call that day (ms), from stored images; null without any' }),
            engine_p95_ms: z.number().nullable().meta({ description: '95th percentile engine call that day (ms)' }),
            credits_sold: int,
            ad_spend_cents: int,
            earnings_owed_cents: int,
            webhook_deliveries: int.meta({ description: 'Webhook deliveries created that day' }),
            webhook_failures: int.meta({ description: 'Of those, the ones that failed for good' }),
          }),
        ),
        webhook_backlog: int,
        holds_outstanding: int,
      }),
    )
    .query(({ ctx, input }) => fleetReport(ctx.services.db, { days: input.days, now: ctx.services.clock.now() })),
});
