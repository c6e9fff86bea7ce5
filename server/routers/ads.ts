import { z } from 'zod';
import { archiveProduct, createProduct, listProducts, updateProduct } from '../domain/ads/advertiser-products.js';
import { createCampaign, getCampaign, listCampaigns, updateCampaign } from '../domain/ads/campaigns.js';
import { adFundsBalance, adFundsEntryView, listAdFunds } from '../domain/ads/funds.js';
import { millicentsToCents } from '../domain/ads/money.js';
import { adsReport } from '../domain/ads/report.js';
import { startCheckout } from '../domain/billing/checkout.js';
import { decodeInlineImage } from '../domain/staging/image-input.js';
import { resolveRange } from '../domain/usage/report.js';
import { PRODUCT_CATEGORIES, ROOM_TYPES, STYLES } from '../imaging/catalog-data.js';
import { router, sessionProcedure } from '../trpc/index.js';
import { adFundsTransactionSchema, campaignSchema, noInput, pageQuery, productSchema } from './schemas.js';

const cents = z.number().int();
const reportFigures = {
  impressions: cents.meta({ description: 'Billed impressions (what `spend_cents` paid for)' }),
  unbilled_impressions: cents.meta({ description: 'Counted when a budget or the funds could not pay' }),
  invalid_impressions: cents.meta({ description: 'Declared invalid traffic by Roomstage: refunded' }),
  spend_cents: cents,
};
const dateText = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Expected a date written YYYY-MM-DD')
  .meta({ example: '2026-11-23' });
/** A form field sent once arrives as a string, repeated as a list: both mean a list. */
const repeatable = <T extends z.ZodType>(item: T) =>
  z.preprocess((value) => (typeof value === 'string' ? [value] : value), z.array(item));
const roomTypes = repeatable(z.enum(ROOM_TYPES)).pipe(z.array(z.enum(ROOM_TYPES)).min(1).max(ROOM_TYPES.length));
const styles = repeatable(z.enum(STYLES)).pipe(z.array(z.enum(STYLES)).max(STYLES.length));
const productId = z.string().min(1).max(64).meta({ description: 'Product id (prd_…)' });
const campaignId = z.string().min(1).max(64).meta({ description: 'Campaign id (cmp_…)' });
const timestampInput = z.iso.datetime({ offset: true }).transform((text) => Date.parse(text));

const checkoutSchema = z.object({
  checkout_url: z.string().meta({ description: 'Send the customer here to pay' }),
  session_id: z.string(),
});

export const adsRouter = router({
  createProduct: sessionProcedure
    .meta({
      permission: 'develop',
      openapi: {
        method: 'POST',
        path: '/api/v1/ads/products',
        tags: ['Ads'],
        summary: 'Upload a product to advertise (a PNG or WebP cut-out with transparency)',
        description:
          'multipart/form-data: the picture in the file field `image` (PNG or WebP with transparent pixels, ≤ 5 MB, 200–4 000 px a side; re-encoded, metadata stripped), `name`, `brand`, `category`, `room_types` (repeatable, at least one) and `styles` (repeatable; none = any style). Nothing is stored when the picture is refused.',
        contentTypes: ['multipart/form-data', 'application/json'],
      },
      successStatus: 201,
      errors: ['payload_too_large', 'unsupported_media_type', 'invalid_image'],
    })
    .input(
      z.object({
        image: z.string().meta({ description: 'The picture: a file field in multipart/form-data (or base64 in JSON)' }),
        name: z.string().trim().min(1).max(80),
        brand: z.string().trim().min(1).max(80),
        category: z.enum(PRODUCT_CATEGORIES),
        room_types: roomTypes.meta({ description: 'Room types the product suits (repeatable field, at least one)' }),
        styles: styles.optional().meta({ description: 'Styles the product suits (repeatable field; none = any)' }),
      }),
    )
    .output(productSchema)
    .mutation(async ({ ctx, input }) => {
      const { db, storage, clock } = ctx.services;
      const product = await createProduct({ db, storage, now: clock.now(), origin: ctx.audit }, ctx.account.id, {
        image: decodeInlineImage(input.image, 'image', ctx.uploads),
        name: input.name,
        brand: input.brand,
        category: input.category,
        roomTypes: input.room_types,
        styles: input.styles ?? [],
      });
      ctx.response.setStatus(201);
      return product as z.infer<typeof productSchema>;
    }),

  listProducts: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/ads/products',
        tags: ['Ads'],
        summary: 'The account’s own advertised products',
        description: 'Every product this account uploaded, newest first, archived ones included.',
      },
    })
    .input(noInput)
    .output(z.object({ products: z.array(productSchema) }))
    .query(async ({ ctx }) => ({
      products: (await listProducts(ctx.services.db, ctx.services.storage, ctx.account.id)) as Array<
        z.infer<typeof productSchema>
      >,
    })),

  updateProduct: sessionProcedure
    .meta({
      permission: 'develop',
      openapi: {
        method: 'PATCH',
        path: '/api/v1/ads/products/{id}',
        tags: ['Ads'],
        summary: 'Rename a product, change where it suits, pause or resume it',
        description:
          'Changes name, brand, room types, styles, or status (`active` or `paused`). Another account’s product is 404.',
      },
      errors: ['not_found', 'conflict'],
    })
    .input(
      z.object({
        id: productId,
        name: z.string().trim().min(1).max(80).optional(),
        brand: z.string().trim().min(1).max(80).optional(),
        room_types: z.array(z.enum(ROOM_TYPES)).min(1).max(ROOM_TYPES.length).optional(),
        styles: z.array(z.enum(STYLES)).max(STYLES.length).optional(),
        status: z.enum(['active', 'paused']).optional(),
      }),
    )
    .output(productSchema)
    .mutation(async ({ ctx, input }) => {
      const { id, ...changes } = input;
      return (await updateProduct(ctx.services.db, ctx.services.storage, ctx.account.id, id, changes)) as z.infer<
        typeof productSchema
      >;
    }),

  archiveProduct: sessionProcedure
    .meta({
      permission: 'develop',
      openapi: {
        method: 'DELETE',
        path: '/api/v1/ads/products/{id}',
        tags: ['Ads'],
        summary: 'Archive a product: never placed again, kept in the images that show it',
        description: 'Archives the product. It stays in placed images’ history. Another account’s product is 404.',
      },
      errors: ['not_found'],
    })
    .input(z.object({ id: productId }))
    .output(productSchema)
    .mutation(
      async ({ ctx, input }) =>
        (await archiveProduct(
          ctx.services.db,
          ctx.services.storage,
          ctx.account.id,
          input.id,
          ctx.services.clock.now(),
        )) as z.infer<typeof productSchema>,
    ),

  createCampaign: sessionProcedure
    .meta({
      permission: 'develop',
      openapi: {
        method: 'POST',
        path: '/api/v1/ads/campaigns',
        tags: ['Ads'],
        summary: 'Start a campaign: own products, a cpm, a total and an optional daily budget and dates',
        description:
          'Each impression of an image showing one of the products is billed cpm_cents / 1000 cents from the budgets and the account’s ad funds. Products must be this account’s own (another account’s: 404).',
      },
      successStatus: 201,
      errors: ['not_found'],
    })
    .input(
      z.object({
        name: z.string().trim().min(1).max(120),
        product_ids: z.array(productId).min(1).max(50),
        cpm_cents: z.number().int().min(10).max(10_000).meta({ description: 'US cents per 1 000 impressions' }),
        total_budget_cents: z.number().int().min(100).max(1_000_000_000),
        daily_budget_cents: z.number().int().min(1).max(1_000_000_000).optional(),
        starts_at: timestampInput.optional().meta({ description: 'ISO 8601 time; default now' }),
        ends_at: timestampInput.optional().meta({ description: 'ISO 8601 time; default none' }),
      }),
    )
    .output(campaignSchema)
    .mutation(async ({ ctx, input }) => {
      const campaign = await createCampaign(
        ctx.services.db,
        ctx.account.id,
        {
          name: input.name,
          productIds: input.product_ids,
          cpmCents: input.cpm_cents,
          totalBudgetCents: input.total_budget_cents,
          dailyBudgetCents: input.daily_budget_cents,
          startsAt: input.starts_at,
          endsAt: input.ends_at,
        },
        ctx.services.clock.now(),
        ctx.audit,
      );
      ctx.response.setStatus(201);
      return campaign;
    }),

  listCampaigns: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/ads/campaigns',
        tags: ['Ads'],
        summary: 'The account’s campaigns with their status, spend and impressions',
        description:
          'Every campaign of this account, newest first. `scheduled` and `ended` follow from the dates; `exhausted` means the budget (total or today’s) or the funds ran out.',
      },
    })
    .input(noInput)
    .output(z.object({ campaigns: z.array(campaignSchema) }))
    .query(async ({ ctx }) => ({
      campaigns: await listCampaigns(ctx.services.db, ctx.account.id, ctx.services.clock.now()),
    })),

  getCampaign: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/ads/campaigns/{id}',
        tags: ['Ads'],
        summary: 'One campaign of the account',
        description: 'The campaign with its status, spend and impressions. Another account’s campaign is 404.',
      },
      errors: ['not_found'],
    })
    .input(z.object({ id: campaignId }))
    .output(campaignSchema)
    .query(({ ctx, input }) => getCampaign(ctx.services.db, ctx.account.id, input.id, ctx.services.clock.now())),

  updateCampaign: sessionProcedure
    .meta({
      permission: 'develop',
      openapi: {
        method: 'PATCH',
        path: '/api/v1/ads/campaigns/{id}',
        tags: ['Ads'],
        summary: 'Pause or resume a campaign, change its budgets or end date',
        description: 'Raising the total budget revives an exhausted campaign. Another account’s campaign is 404.',
      },
      errors: ['not_found'],
    })
    .input(
      z.object({
        id: campaignId,
        status: z.enum(['active', 'paused']).optional(),
        total_budget_cents: z.number().int().min(100).max(1_000_000_000).optional(),
        daily_budget_cents: z.number().int().min(1).max(1_000_000_000).nullable().optional(),
        ends_at: timestampInput.nullable().optional(),
      }),
    )
    .output(campaignSchema)
    .mutation(({ ctx, input }) =>
      updateCampaign(
        ctx.services.db,
        ctx.account.id,
        input.id,
        {
          status: input.status,
          totalBudgetCents: input.total_budget_cents,
          dailyBudgetCents: input.daily_budget_cents,
          endsAt: input.ends_at,
        },
        ctx.services.clock.now(),
        ctx.audit,
      ),
    ),

  fundsCheckout: sessionProcedure
    .meta({
      permission: 'billing',
      openapi: {
        method: 'POST',
        path: '/api/v1/ads/funds/checkout',
        tags: ['Ads'],
        summary: 'Buy advertising funds through Stripe Checkout ($10–$10 000)',
        description:
          'Opens a Checkout Session for amount_cents (1 000–1 000 000) through the same gateway as credit purchases; the funds are added once, when the payment completes.',
      },
    })
    .input(z.object({ amount_cents: z.number().int().min(1000).max(1_000_000) }))
    .output(checkoutSchema)
    .mutation(({ ctx, input }) =>
      startCheckout(
        {
          db: ctx.services.db,
          gateway: ctx.services.payments,
          publicBaseUrl: ctx.services.config.publicBaseUrl,
          now: () => ctx.services.clock.now(),
        },
        { accountId: ctx.account.id, buyerId: ctx.user.id, credits: 0, adFundsCents: input.amount_cents },
      ),
    ),

  funds: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/ads/funds',
        tags: ['Ads'],
        summary: 'Ad funds balance and ledger, newest first, in pages',
        description:
          'The balance in cents and every change in milli-cents (1/1000 cent): purchases, spend (one entry per campaign and UTC day, growing with each billed impression) and adjustments.',
      },
      errors: ['not_found'],
    })
    .input(pageQuery('ad funds transaction'))
    .output(
      z.object({
        balance_cents: cents,
        transactions: z.array(adFundsTransactionSchema),
        has_more: z.boolean(),
      }),
    )
    .query(async ({ ctx, input }) => {
      const [balance, page] = await Promise.all([
        adFundsBalance(ctx.services.db, ctx.account.id),
        listAdFunds(ctx.services.db, {
          accountId: ctx.account.id,
          limit: input.limit,
          startingAfter: input.starting_after,
        }),
      ]);
      return {
        balance_cents: millicentsToCents(balance),
        transactions: page.entries.map(adFundsEntryView),
        has_more: page.hasMore,
      };
    }),

  report: sessionProcedure
    .meta({
      permission: 'read',
      openapi: {
        method: 'GET',
        path: '/api/v1/ads/report',
        tags: ['Ads'],
        summary: 'Impressions and spend per day and per campaign',
        description:
          'Every UTC day of the range (default the last 30 days), zeros included, and each campaign’s totals; `campaign_id` narrows both to one campaign (another account’s: 404). Impressions are kept apart: `impressions` were billed (the spend), `unbilled_impressions` came when a budget or the funds could not pay, `invalid_impressions` were billed and then declared invalid traffic by Roomstage and refunded. A viewer is a client address, billed at most once per image in 24 hours; bots, prefetches, HEAD requests and the listing’s own members are never counted.',
      },
      errors: ['not_found'],
    })
    .input(
      z.object({ from: dateText.optional(), to: dateText.optional(), campaign_id: campaignId.optional() }).default({}),
    )
    .output(
      z.object({
        daily: z.array(z.object({ date: dateText, ...reportFigures })),
        campaigns: z.array(z.object({ id: z.string(), name: z.string(), ...reportFigures })),
      }),
    )
    .query(({ ctx, input }) => {
      const range = resolveRange({ from: input.from, to: input.to, now: ctx.services.clock.now() });
      return adsReport(ctx.services.db, { accountId: ctx.account.id, ...range, campaignId: input.campaign_id });
    }),
});
