import { z } from 'zod';
import { iso } from '../clock.js';
import { adRevenueForAgent } from '../domain/ads/revenue.js';
import { listClaims, previewClaim, redeemClaim } from '../domain/claims/claims.js';
import { listRedeemedImages, pageRedeemedImages } from '../domain/staging/images.js';
import { originalPreview } from '../domain/staging/playground.js';
import { imageLinks } from '../services.js';
import { limitPerClientIp, router, sessionProcedure } from '../trpc/index.js';
import { presentImage } from '../domain/staging/responses.js';
import { imageSchema, isoTimestamp, noInput, nullableTimestamp, pageQuery } from './schemas.js';

const claimStatus = z.enum(['unredeemed', 'redeemed', 'expired']);
const codeInput = z.object({
  code: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .meta({ description: 'Claim code, e.g. RS-7K3M9QXD (case-insensitive; the hyphen may be left out)' }),
});

/** Claim codes are the only secret of a claim: previews and redemptions are limited per IP so none can be enumerated. */
const claimAttemptProcedure = sessionProcedure.use(
  limitPerClientIp('claim', (config) => config.claimAttemptsPerMinute),
);

export const claimsRouter = router({
  preview: claimAttemptProcedure
    .meta({
      permission: 'redeem',
      openapi: {
        method: 'POST',
        path: '/api/v1/claim/preview',
        tags: ['Claims'],
        summary: 'Look at a claim before redeeming it: image count and expiry',
        description:
          'Checks a claim code before redeeming it: whether it can still be redeemed, how many images it holds and when it expires. Attempts are limited per client address, so codes cannot be guessed in bulk.',
      },
      errors: ['not_found'],
    })
    .input(codeInput)
    .output(
      z.object({
        valid: z.boolean().meta({ description: 'True only while the claim is unredeemed and unexpired' }),
        code: z.string(),
        status: claimStatus,
        image_count: z.number().int(),
        is_claimed: z.boolean(),
        expires_at: isoTimestamp,
        days_until_expiry: z.number().int(),
      }),
    )
    .mutation(({ ctx, input }) => previewClaim(ctx.services.db, input.code, ctx.services.clock.now())),

  redeem: claimAttemptProcedure
    .meta({
      permission: 'redeem',
      openapi: {
        method: 'POST',
        path: '/api/v1/claim',
        tags: ['Claims'],
        summary: 'Redeem a claim (free): its images move to your dashboard',
        description:
          'Redeems a claim for the signed-in agent, free of charge: its images appear in the dashboard, and the webhook of the key that staged them gets `claim.redeemed`. A claim is redeemed once, by one agent, within 30 days of its issue. Attempts are limited per client address.',
      },
      errors: ['not_found', 'claim_already_redeemed', 'claim_expired'],
    })
    .input(codeInput)
    .output(
      z.object({
        claim_code: z.string(),
        status: z.literal('redeemed'),
        redeemed_at: isoTimestamp,
        image_count: z.number().int(),
        images: z.array(imageSchema),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const { db, clock } = ctx.services;
      const now = clock.now();
      const { claim, images } = await redeemClaim(db, {
        typed: input.code,
        accountId: ctx.account.id,
        email: ctx.user.email,
        now,
      });
      return {
        claim_code: claim.code,
        status: 'redeemed' as const,
        redeemed_at: iso(now),
        image_count: claim.image_count,
        images: images.map((image) => presentImage(imageLinks(ctx.services), image)),
      };
    }),

  list: sessionProcedure
    .meta({
      permission: 'read_claims',
      openapi: {
        method: 'GET',
        path: '/api/v1/claims',
        tags: ['Claims'],
        summary: 'Claims you redeemed (role=redeemed) or your API keys issued (role=issued)',
        description:
          'With `role=redeemed` (the default) the claims this account redeemed as an agent; with `role=issued` those its API keys issued, each with the e-mail address of the agent who redeemed it.',
      },
    })
    .input(z.object({ role: z.enum(['redeemed', 'issued']).default('redeemed') }).default({ role: 'redeemed' }))
    .output(
      z.object({
        claims: z.array(
          z.object({
            claim_code: z.string(),
            status: claimStatus,
            image_count: z.number().int(),
            created_at: isoTimestamp,
            expires_at: isoTimestamp,
            redeemed_at: nullableTimestamp,
            claimed_by_email: z.string().optional().meta({ description: 'role=issued: who redeemed the claim' }),
          }),
        ),
      }),
    )
    .query(async ({ ctx, input }) => {
      const listed = await listClaims(ctx.services.db, {
        accountId: ctx.account.id,
        role: input.role,
        now: ctx.services.clock.now(),
      });
      return {
        claims: listed.map(({ claim, status, claimedByEmail }) => ({
          claim_code: claim.code,
          status,
          image_count: claim.image_count,
          created_at: iso(claim.created_at),
          expires_at: iso(claim.expires_at),
          redeemed_at: iso(claim.redeemed_at),
          ...(input.role === 'issued' && claimedByEmail ? { claimed_by_email: claimedByEmail } : {}),
        })),
      };
    }),

  images: sessionProcedure
    .meta({
      permission: 'read_claims',
      openapi: {
        method: 'GET',
        path: '/api/v1/images',
        tags: ['Claims'],
        summary: 'The images in your dashboard (those of the claims you redeemed), newest claim first, in pages',
        description:
          'The images of the claims this account redeemed, newest claim first. Pass the last id of a page as `starting_after` for the next page; `has_more` says whether there is one.',
      },
      errors: ['not_found'],
    })
    .input(pageQuery('image'))
    .output(
      z.object({
        images: z.array(
          imageSchema.extend({
            kind: z.enum(['staged', 'enhanced', 'placed', 'decluttered']),
            claim_code: z.string().nullable(),
            created_at: isoTimestamp,
          }),
        ),
        has_more: z.boolean(),
      }),
    )
    .query(async ({ ctx, input }) => {
      const { db } = ctx.services;
      const page = await listRedeemedImages(db, ctx.account.id, {
        limit: input.limit,
        startingAfter: input.starting_after,
      });
      return {
        images: page.images.map((image) => ({
          ...presentImage(imageLinks(ctx.services), image),
          kind: image.kind,
          claim_code: image.claim_code,
          created_at: iso(image.created_at),
        })),
        has_more: page.hasMore,
      };
    }),

  /** Dashboard only (no REST path yet; GET /api/v1/usage reports it later): ad revenue of the images you redeemed. */
  adRevenue: sessionProcedure
    .meta({ permission: 'read_claims' })
    .input(noInput)
    .output(z.object({ impressions: z.number().int(), gross_cents: z.number().int(), earned_cents: z.number().int() }))
    .query(({ ctx }) => adRevenueForAgent(ctx.services.db, ctx.account.id)),

  /** Dashboard only: one page of `images`, each saying whether its original photo can be shown beside it. */
  gallery: sessionProcedure
    .meta({ permission: 'read_claims' })
    .input(
      z.object({ page: z.number().int().min(1).default(1), per_page: z.number().int().min(1).max(48).default(12) }),
    )
    .output(
      z.object({
        images: z.array(
          imageSchema.extend({
            kind: z.enum(['staged', 'enhanced', 'placed', 'decluttered']),
            claim_code: z.string().nullable(),
            created_at: isoTimestamp,
            has_original: z.boolean(),
          }),
        ),
        page: z.number().int(),
        per_page: z.number().int(),
        total: z.number().int(),
      }),
    )
    .query(async ({ ctx, input }) => {
      const { db } = ctx.services;
      const { images, total } = await pageRedeemedImages(db, ctx.account.id, {
        offset: (input.page - 1) * input.per_page,
        limit: input.per_page,
      });
      return {
        images: images.map((image) => ({
          ...presentImage(imageLinks(ctx.services), image),
          kind: image.kind,
          claim_code: image.claim_code,
          created_at: iso(image.created_at),
          has_original: image.original_storage_name !== null,
        })),
        page: input.page,
        per_page: input.per_page,
        total,
      };
    }),

  /** Dashboard only: the photo an image was drawn on (JPEG, base64), for its maker or the agent who redeemed it. */
  original: sessionProcedure
    .meta({ permission: 'read_claims' })
    .input(z.object({ image_id: z.string().min(1).max(64) }))
    .output(z.object({ content_type: z.literal('image/jpeg'), data: z.string() }))
    .query(async ({ ctx, input }) => {
      const jpeg = await originalPreview(ctx.services, { viewerAccountId: ctx.account.id, imageId: input.image_id });
      return { content_type: 'image/jpeg' as const, data: jpeg.toString('base64') };
    }),
});
