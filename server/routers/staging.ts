import { z } from 'zod';
import { enqueueJob } from '../domain/jobs/jobs.js';
import type { ApiCaller } from '../domain/staging/deps.js';
import { prepareDeclutter } from '../domain/staging/operations/declutter.js';
import { prepareEnhance } from '../domain/staging/operations/enhance.js';
import { type PreparedOperation, runImageRequest } from '../domain/staging/operations/pipeline.js';
import { preparePlace } from '../domain/staging/operations/place.js';
import { prepareRerender } from '../domain/staging/operations/rerender.js';
import { prepareStage } from '../domain/staging/operations/stage.js';
import { DEFAULT_ROOM_TYPE, PRODUCT_CATEGORIES, ROOM_TYPES, STYLES } from '../imaging/catalog-data.js';
import { MAX_SEED } from '../imaging/engines/prompts.js';
import type { IdempotencyClaim } from '../domain/idempotency/requests.js';
import type { AuthenticatedKey } from '../domain/keys/api-keys.js';
import { type Context, imageProcedure, publicProcedure, router } from '../trpc/index.js';
import {
  capabilitiesOutput,
  declutterOutput,
  disclosureSchema,
  enhanceOutput,
  labelSchema,
  noInput,
  placeOutput,
  presentCapabilities,
  rerenderOutput,
  roomTypeSchema,
  stageOutput,
  styleSchema,
  variationsInput,
} from './schemas.js';

/** Both request forms (JSON and multipart); the bridge sees multipart as JSON (server/http/image-upload.ts). */
const IMAGE_CONTENT_TYPES = ['application/json', 'multipart/form-data'] as const;

const imageText = z.string().meta({
  description: 'The image: base64, or a data:image/…;base64, URL. In multipart/form-data, a file field named image.',
});
const imageUrl = z
  .string()
  .max(2048)
  .meta({ description: 'http(s) URL the server downloads the image from (≤ 15 MB, 10 s; public addresses only)' });
const claimCodeInput = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .meta({ description: 'Add the output to this open claim, issued by this account (e.g. RS-7K3M9QXD)' });
const disclosureInput = disclosureSchema.optional().meta({
  description:
    'none, label (the "Virtually staged" mark), caption (no mark; caption with the original’s link) or ca_ab723 (mark, QR code to the original, caption); default: the account’s (GET /api/v1/settings/staging)',
});
const seedInput = z.coerce
  .number()
  .int()
  .min(0)
  .max(MAX_SEED)
  .meta({ description: 'The same request with the same seed draws the same picture; variation v uses seed + v' });
/** Multipart sends every field as text; "true"/"false" are read as booleans, anything else is refused. */
const flagInput = z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]);
const declutterInput = flagInput.meta({
  description: 'Empty the room of its furniture before staging it: 1 more credit per image',
});

/** The 202 body of an asynchronous request. */
export const acceptedJobSchema = z
  .object({
    job_id: z.string().meta({ description: 'Job id (job_…)' }),
    status: z.literal('queued'),
    status_url: z.string().meta({ description: 'Absolute URL of GET /api/v1/jobs/{id}: poll it for the result' }),
  })
  .meta({
    id: 'AcceptedJob',
    description:
      'The answer to `Prefer: respond-async` (HTTP 202): the request was validated and charged; a worker does the work.',
  });

/** `Prefer: respond-async` (RFC 7240), alone or among other preferences. */
function prefersAsync(headers: Context['headers']): boolean {
  const prefer = headers.prefer;
  const values = Array.isArray(prefer) ? prefer : prefer ? [prefer] : [];
  return values.some((value) => value.split(/[,;]/).some((token) => token.trim().toLowerCase() === 'respond-async'));
}

/** Keeps the prepared request as a job, charged in the same transaction, and answers 202. */
async function acceptJob(ctx: Context, caller: ApiCaller, prepared: PreparedOperation) {
  const jobId = await enqueueJob(ctx.services.imaging, caller, prepared);
  ctx.response.setStatus(202);
  ctx.response.setHeader('Preference-Applied', 'respond-async');
  return {
    job_id: jobId,
    status: 'queued' as const,
    status_url: `${ctx.services.config.publicBaseUrl}/api/v1/jobs/${jobId}`,
  };
}

/** The API key, its account and the request's Idempotency-Key (a refunded charge frees it). */
function callerOf(ctx: { apiKey: AuthenticatedKey; idempotency: IdempotencyClaim | null }): ApiCaller {
  const { accountId, id: keyId, defaultDisclosure } = ctx.apiKey;
  return { accountId, keyId, idempotency: ctx.idempotency, defaultDisclosure };
}

/**
 * The one answer of every image endpoint once its request is prepared: with `Prefer: respond-async`, a job charged
 * now and 202; otherwise the operation run now and its 200 body.
 */
function answerImageRequest<P extends PreparedOperation>(ctx: Context, caller: ApiCaller, prepared: P) {
  return prefersAsync(ctx.headers)
    ? acceptJob(ctx, caller, prepared)
    : runImageRequest(ctx.services.imaging, caller, prepared);
}

const ASYNC_NOTE = ' With `Prefer: respond-async`: 202 and a job to poll (GET /api/v1/jobs/{id}).';

export const stagingRouter = router({
  styles: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/styles',
        tags: ['Images'],
        summary: 'Staging styles and room types',
        description:
          'The styles and room types that stage and place-products accept, with their defaults first (`modern`, `living_room`), and the product categories advertisers can upload. No credential is needed.',
        protect: false,
      },
    })
    .input(noInput)
    .output(
      z.object({
        styles: z.array(styleSchema),
        room_types: z.array(roomTypeSchema),
        product_categories: z.array(z.enum(PRODUCT_CATEGORIES)),
      }),
    )
    .query(() => ({ styles: [...STYLES], room_types: [...ROOM_TYPES], product_categories: [...PRODUCT_CATEGORIES] })),

  capabilities: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/capabilities',
        tags: ['Images'],
        summary: 'What the running staging engine can do: operations, variations, declutter, label, styles',
        description:
          'Public: which operations and options the configured engine offers, so a client can hide what it lacks. A request for anything else is 422 unsupported_option before any charge.',
        protect: false,
      },
    })
    .input(noInput)
    .output(capabilitiesOutput)
    .query(({ ctx }) => presentCapabilities(ctx.services.engine.capabilities)),

  stage: imageProcedure
    .meta({
      scope: 'stage',
      openapi: {
        method: 'POST',
        path: '/api/v1/stage',
        tags: ['Images'],
        summary: 'Stage room photos (1 credit per image, up to 10): returns the staged image URLs and a claim code',
        description: `Charges images × variations × (1 + declutter) credits; an option the engine lacks is 422 unsupported_option, and a picture that is not a photo of a room 422 not_a_room, both before any charge. Every image is checked against its photo: an engine that changes the building even when drawn again is 422 structure_changed, refunded.${ASYNC_NOTE}`,
        contentTypes: [...IMAGE_CONTENT_TYPES],
      },
      errors: [
        'insufficient_credits',
        'no_credits',
        'unsupported_option',
        'not_a_room',
        'engine_rejected',
        'structure_changed',
        'engine_unavailable',
      ],
    })
    .input(
      z.object({
        image: imageText.optional(),
        images: z
          .array(z.string())
          .optional()
          .meta({ description: 'Up to 10 images, each base64 or a data URL (multipart: repeat the image field)' }),
        image_url: imageUrl.optional(),
        style: styleSchema
          .optional()
          .meta({ description: 'Default: the claim’s style when staging into claim_code, else modern' }),
        room_type: roomTypeSchema.default(DEFAULT_ROOM_TYPE),
        variations: variationsInput,
        seed: seedInput.optional(),
        declutter: declutterInput.optional(),
        disclosure: disclosureInput,
        label: labelSchema.optional(),
        claim_code: claimCodeInput.optional(),
      }),
    )
    .output(z.union([stageOutput, acceptedJobSchema]))
    .mutation(async ({ ctx, input }) => {
      const deps = ctx.services.imaging;
      const caller = callerOf(ctx);
      const prepared = await prepareStage(deps, caller, {
        sources: { image: input.image, images: input.images, image_url: input.image_url, uploads: ctx.uploads },
        style: input.style,
        roomType: input.room_type,
        variations: input.variations,
        seed: input.seed,
        declutter: input.declutter,
        disclosure: input.disclosure,
        label: input.label,
        claimCode: input.claim_code,
      });
      return answerImageRequest(ctx, caller, prepared);
    }),

  enhance: imageProcedure
    .meta({
      scope: 'enhance',
      openapi: {
        method: 'POST',
        path: '/api/v1/enhance',
        tags: ['Images'],
        summary: 'Enhance an image to 4K (long edge 3840 px); 1 credit',
        description: `Charges 1 credit.${ASYNC_NOTE}`,
        contentTypes: [...IMAGE_CONTENT_TYPES],
      },
      errors: ['insufficient_credits', 'no_credits'],
    })
    .input(
      z.object({ image: imageText.optional(), image_url: imageUrl.optional(), claim_code: claimCodeInput.optional() }),
    )
    .output(z.union([enhanceOutput, acceptedJobSchema]))
    .mutation(async ({ ctx, input }) => {
      const deps = ctx.services.imaging;
      const caller = callerOf(ctx);
      const prepared = await prepareEnhance(deps, caller, {
        sources: { image: input.image, image_url: input.image_url, uploads: ctx.uploads },
        claimCode: input.claim_code,
      });
      return answerImageRequest(ctx, caller, prepared);
    }),

  declutter: imageProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/declutter',
        tags: ['Images'],
        summary: 'Empty a room photo of its furniture and clutter (1 credit); generative engines only',
        description: `Charges 1 credit; an engine that cannot declutter answers 422 unsupported_option, charging nothing.${ASYNC_NOTE}`,
        contentTypes: [...IMAGE_CONTENT_TYPES],
      },
      errors: [
        'insufficient_credits',
        'no_credits',
        'unsupported_option',
        'not_a_room',
        'engine_rejected',
        'structure_changed',
        'engine_unavailable',
      ],
      scope: 'declutter',
    })
    .input(
      z.object({
        image: imageText.optional(),
        image_url: imageUrl.optional(),
        claim_code: claimCodeInput.optional(),
        disclosure: disclosureInput,
        label: labelSchema.optional(),
      }),
    )
    .output(z.union([declutterOutput, acceptedJobSchema]))
    .mutation(async ({ ctx, input }) => {
      const deps = ctx.services.imaging;
      const caller = callerOf(ctx);
      const prepared = await prepareDeclutter(deps, caller, {
        sources: { image: input.image, image_url: input.image_url, uploads: ctx.uploads },
        disclosure: input.disclosure,
        label: input.label,
        claimCode: input.claim_code,
      });
      return answerImageRequest(ctx, caller, prepared);
    }),

  rerender: imageProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/v1/images/{id}/rerender',
        tags: ['Images'],
        summary: 'Draw a staged or decluttered image again with a new seed, replacing it in its claim',
        description: `Drawn from the kept original; the new image takes the old one's place in its claim and the old URL keeps serving. The first FREE_RERENDERS (default 3) re-renders of an image within 24 h of its creation are free, later ones cost 1 credit (402 when it cannot be paid, nothing changed). Another account's image is 404.${ASYNC_NOTE}`,
      },
      errors: [
        'not_found',
        'conflict',
        'insufficient_credits',
        'no_credits',
        'unsupported_option',
        'engine_rejected',
        'structure_changed',
        'engine_unavailable',
      ],
      // A re-render draws a staged picture again: what a key may do only when it may stage.
      scope: 'stage',
    })
    .input(
      z.object({
        id: z.string().min(1).max(64).meta({ description: 'Image id (img_…) of a staged or decluttered image' }),
        disclosure: disclosureInput.meta({ description: 'Default: the image’s own profile' }),
        label: labelSchema.optional(),
      }),
    )
    .output(z.union([rerenderOutput, acceptedJobSchema]))
    .mutation(async ({ ctx, input }) => {
      const deps = ctx.services.imaging;
      const caller = callerOf(ctx);
      const prepared = await prepareRerender(deps, caller, {
        imageId: input.id,
        disclosure: input.disclosure,
        label: input.label,
      });
      return answerImageRequest(ctx, caller, prepared);
    }),

  placeProducts: imageProcedure
    .meta({
      scope: 'place_products',
      openapi: {
        method: 'POST',
        path: '/api/v1/place-products',
        tags: ['Images'],
        summary: 'Place sponsored products in an image (free); every serve of the result counts ad impressions',
        description: `Free. A picture that is not a photo of a room is 422 not_a_room.${ASYNC_NOTE}`,
        contentTypes: [...IMAGE_CONTENT_TYPES],
      },
      errors: ['not_a_room'],
    })
    .input(
      z.object({
        image: imageText.optional(),
        image_url: imageUrl.optional(),
        image_id: z
          .string()
          .min(1)
          .max(64)
          .optional()
          .meta({ description: 'Instead of an image: the id of an image this API user staged' }),
        room_type: roomTypeSchema
          .optional()
          .meta({ description: 'Room the products must suit; default the source image’s room, else living_room' }),
        max_products: z.coerce.number().int().min(1).max(5).default(3),
        claim_code: claimCodeInput.optional(),
      }),
    )
    .output(z.union([placeOutput, acceptedJobSchema]))
    .mutation(async ({ ctx, input }) => {
      const deps = ctx.services.imaging;
      const caller = callerOf(ctx);
      const prepared = await preparePlace(deps, caller, {
        sources: { image: input.image, image_url: input.image_url, uploads: ctx.uploads },
        imageId: input.image_id,
        roomType: input.room_type,
        maxProducts: input.max_products,
        claimCode: input.claim_code,
      });
      return answerImageRequest(ctx, caller, prepared);
    }),
});
