import { z } from 'zod';
import type { Image } from '../../db/schema.js';
import { iso } from '../clock.js';
import type { ApiCaller, ImagingDeps } from '../domain/staging/deps.js';
import { enhanceImage, placeProducts, stageImages } from '../domain/staging/operations.js';
import { PLAYGROUND_SAMPLES, playgroundCaller, sampleImage, sampleLabel } from '../domain/staging/playground.js';
import { listApiKeys } from '../domain/keys/api-keys.js';
import { acquireImageSlot } from '../limits/image-slots.js';
import { AppError } from '../errors.js';
import { DEFAULT_ROOM_TYPE, DEFAULT_STYLE, ROOM_TYPES, STYLES } from '../imaging/catalog-data.js';
import type { IdempotencyClaim } from '../limits/idempotency.js';
import type { ImageStorage } from '../storage/storage.js';
import { imageProcedure, publicProcedure, router, type Services, sessionProcedure } from '../trpc.js';
import { isoTimestamp, noInput } from './schemas.js';

/** Both request forms of CONTRACT §5; the bridge sees multipart as JSON (server/http/image-upload.ts). */
const IMAGE_CONTENT_TYPES = ['application/json', 'multipart/form-data'] as const;

const imageText = z
  .string()
  .meta({ description: 'The image: base64, or a data:image/…;base64, URL. In multipart/form-data, a file field named image.' });
const imageUrl = z.string().max(2048).meta({ description: 'http(s) URL the server downloads the image from (≤ 15 MB, 10 s; public addresses only)' });
const claimCodeInput = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .meta({ description: 'Add the output to this open claim, issued by this account (e.g. RS-7K3M9QXD)' });
const styleSchema = z.enum(STYLES);
const roomTypeSchema = z.enum(ROOM_TYPES);

export const imageSchema = z.object({
  id: z.string().meta({ description: 'Image id (img_…)' }),
  image_url: z.string().meta({ description: 'Absolute, unguessable URL serving the image without credentials' }),
  width: z.number().int(),
  height: z.number().int(),
});

const placementSchema = z.object({
  product_id: z.string(),
  name: z.string(),
  brand: z.string(),
  category: z.string(),
  x: z.number().int(),
  y: z.number().int(),
  width: z.number().int(),
  height: z.number().int(),
});

export function presentImage(storage: ImageStorage, image: Image): z.infer<typeof imageSchema> {
  return { id: image.id, image_url: storage.url(image.storage_name), width: image.width, height: image.height };
}

function imagingDeps(services: Services): ImagingDeps {
  const { db, engine, storage, clock, config, autoTopUp } = services;
  return { db, engine, storage, clock, network: { allowPrivateNetwork: config.allowPrivateNetwork }, chargeHoldTimeoutMs: config.chargeHoldTimeoutMs, autoTopUp };
}

/** The API key, its account and the request's Idempotency-Key (a refunded charge frees it). */
function callerOf(ctx: { apiKey: { id: number; accountId: string }; idempotency: IdempotencyClaim | null }): ApiCaller {
  return { accountId: ctx.apiKey.accountId, keyId: ctx.apiKey.id, idempotency: ctx.idempotency };
}

const stageOutput = z.object({
  success: z.literal(true),
  claim_code: z.string(),
  image_url: z.string().meta({ description: 'URL of the first staged image' }),
  images: z.array(imageSchema),
  style: styleSchema,
  room_type: roomTypeSchema,
  credits_used: z.number().int(),
  credits_remaining: z.number().int(),
  expires_at: isoTimestamp.meta({ description: 'When the claim expires (30 days after issue)' }),
});

function presentStageResult(storage: ImageStorage, result: Awaited<ReturnType<typeof stageImages>>, input: { style: z.infer<typeof styleSchema>; room_type: z.infer<typeof roomTypeSchema> }) {
  const images = result.images.map((image) => presentImage(storage, image));
  return {
    success: true as const,
    claim_code: result.claim.code,
    image_url: images[0]!.image_url,
    images,
    style: input.style,
    room_type: input.room_type,
    credits_used: images.length,
    credits_remaining: result.creditsRemaining,
    expires_at: iso(result.claim.expires_at),
  };
}

/**
 * Runs `work` in one of the process's image work places and one of the key's image slots, as an API image request
 * would (server/http/image-upload.ts and imageProcedure), so the playground cannot get round either limit.
 */
async function withImageLimits<T>(services: Services, keyId: number, work: () => Promise<T>): Promise<T> {
  const leave = services.imageWork.tryEnter();
  if (!leave) throw new AppError('service_unavailable', `This server is working on ${services.imageWork.limit} image requests already. Retry in a few seconds.`, {}, { 'Retry-After': '2' });
  try {
    const release = await acquireImageSlot(services.db, { keyId, limit: services.config.rateLimitConcurrent, now: services.clock.now() });
    if (!release) {
      throw new AppError('rate_limited', `This API key may run ${services.config.rateLimitConcurrent} image operations at once. Retry when one finishes.`, {}, { 'Retry-After': '1' });
    }
    try {
      return await work();
    } finally {
      await release();
    }
  } finally {
    leave();
  }
}

export const stagingRouter = router({
  /** Dashboard only (no REST path): what the playground offers, the keys it can charge and the balance. */
  playgroundOptions: sessionProcedure
    .input(noInput)
    .output(
      z.object({
        styles: z.array(styleSchema),
        room_types: z.array(roomTypeSchema),
        samples: z.array(z.object({ id: z.enum(PLAYGROUND_SAMPLES), label: z.string() })),
        keys: z.array(z.object({ id: z.number().int(), name: z.string(), prefix: z.string(), mode: z.enum(['live', 'test']) })),
        credits: z.number().int(),
        low_balance_threshold: z.number().int(),
      }),
    )
    .query(async ({ ctx }) => {
      const { db } = ctx.services;
      const [keys, account] = await Promise.all([
        listApiKeys(db, ctx.account.id),
        db.selectFrom('accounts').select(['credits', 'low_balance_threshold']).where('id', '=', ctx.account.id).executeTakeFirstOrThrow(),
      ]);
      return {
        styles: [...STYLES],
        room_types: [...ROOM_TYPES],
        samples: PLAYGROUND_SAMPLES.map((id) => ({ id, label: sampleLabel(id) })),
        keys: keys.filter((key) => key.revoked_at === null).map((key) => ({ id: key.id, name: key.name, prefix: key.prefix, mode: key.mode })),
        credits: account.credits,
        low_balance_threshold: account.low_balance_threshold,
      };
    }),

  /**
   * Dashboard only: stages one photo (uploaded, or a drawn sample) exactly as POST /api/v1/stage does with the
   * chosen key of the signed-in account: one credit from the account, a claim, `staging.complete` to the key's webhook.
   */
  playground: sessionProcedure
    .input(
      z.object({
        key_id: z.number().int().positive(),
        image: z.string().optional().meta({ description: 'The photo, base64 or a data:image/…;base64, URL' }),
        sample: z.enum(PLAYGROUND_SAMPLES).optional(),
        style: styleSchema.default(DEFAULT_STYLE),
        room_type: roomTypeSchema.default(DEFAULT_ROOM_TYPE),
      }),
    )
    .output(stageOutput)
    .mutation(async ({ ctx, input }) => {
      if ((input.image === undefined) === (input.sample === undefined)) {
        const message = 'Upload a photo or pick a sample (one of the two).';
        throw new AppError('invalid_request', message, { details: [{ path: 'image', message }] });
      }
      const caller = await playgroundCaller(ctx.services.db, ctx.account.id, input.key_id);
      const image = input.image ?? (await sampleImage(input.sample!)).toString('base64');
      const result = await withImageLimits(ctx.services, caller.keyId, () =>
        stageImages(imagingDeps(ctx.services), caller, { sources: { image }, style: input.style, roomType: input.room_type }),
      );
      return presentStageResult(ctx.services.storage, result, input);
    }),

  styles: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/api/v1/styles', tags: ['Images'], summary: 'Staging styles and room types', protect: false } })
    .input(noInput)
    .output(z.object({ styles: z.array(styleSchema), room_types: z.array(roomTypeSchema) }))
    .query(() => ({ styles: [...STYLES], room_types: [...ROOM_TYPES] })),

  stage: imageProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/stage',
        tags: ['Images'],
        summary: 'Stage room photos (1 credit per image, up to 10): returns the staged image URLs and a claim code',
        contentTypes: [...IMAGE_CONTENT_TYPES],
      },
    })
    .input(
      z.object({
        image: imageText.optional(),
        images: z.array(z.string()).optional().meta({ description: 'Up to 10 images, each base64 or a data URL (multipart: repeat the image field)' }),
        image_url: imageUrl.optional(),
        style: styleSchema.default(DEFAULT_STYLE),
        room_type: roomTypeSchema.default(DEFAULT_ROOM_TYPE),
        claim_code: claimCodeInput.optional(),
      }),
    )
    .output(stageOutput)
    .mutation(async ({ ctx, input }) => {
      const result = await stageImages(imagingDeps(ctx.services), callerOf(ctx), {
        sources: { image: input.image, images: input.images, image_url: input.image_url, uploads: ctx.uploads },
        style: input.style,
        roomType: input.room_type,
        claimCode: input.claim_code,
      });
      return presentStageResult(ctx.services.storage, result, input);
    }),

  enhance: imageProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/enhance',
        tags: ['Images'],
        summary: 'Enhance an image to 4K (long edge 3840 px); 1 credit',
        contentTypes: [...IMAGE_CONTENT_TYPES],
      },
    })
    .input(z.object({ image: imageText.optional(), image_url: imageUrl.optional(), claim_code: claimCodeInput.optional() }))
    .output(
      z.object({
        success: z.literal(true),
        image_url: z.string(),
        width: z.number().int(),
        height: z.number().int(),
        credits_used: z.literal(1),
        credits_remaining: z.number().int(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const result = await enhanceImage(imagingDeps(ctx.services), callerOf(ctx), {
        sources: { image: input.image, image_url: input.image_url, uploads: ctx.uploads },
        claimCode: input.claim_code,
      });
      const { image_url, width, height } = presentImage(ctx.services.storage, result.image);
      return { success: true as const, image_url, width, height, credits_used: 1 as const, credits_remaining: result.creditsRemaining };
    }),

  placeProducts: imageProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/place-products',
        tags: ['Images'],
        summary: 'Place sponsored products in an image (free); every serve of the result counts ad impressions',
        contentTypes: [...IMAGE_CONTENT_TYPES],
      },
    })
    .input(
      z.object({
        image: imageText.optional(),
        image_url: imageUrl.optional(),
        image_id: z.string().min(1).max(64).optional().meta({ description: 'Instead of an image: the id of an image this API user staged' }),
        room_type: roomTypeSchema.optional().meta({ description: 'Room the products must suit; default the source image’s room, else living_room' }),
        max_products: z.coerce.number().int().min(1).max(5).default(3),
        claim_code: claimCodeInput.optional(),
      }),
    )
    .output(
      z.object({
        success: z.literal(true),
        image_url: z.string(),
        placements: z.array(placementSchema),
        credits_used: z.literal(0),
        credits_remaining: z.number().int(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const result = await placeProducts(imagingDeps(ctx.services), callerOf(ctx), {
        sources: { image: input.image, image_url: input.image_url, uploads: ctx.uploads },
        imageId: input.image_id,
        roomType: input.room_type,
        maxProducts: input.max_products,
        claimCode: input.claim_code,
      });
      return {
        success: true as const,
        image_url: ctx.services.storage.url(result.image.storage_name),
        placements: result.placements,
        credits_used: 0 as const,
        credits_remaining: result.creditsRemaining,
      };
    }),
});
