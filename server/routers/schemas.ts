import { z } from 'zod';
import { AUDIT_ACTIONS } from '../domain/audit/audit.js';
import { DISCLOSURE_PROFILES } from '../domain/disclosure/disclosure.js';
import { PRODUCT_CATEGORIES, ROOM_TYPES, STYLES } from '../imaging/catalog-data.js';
import { type EngineCapabilities, LABELS } from '../imaging/engine.js';
import { CHANGE_KINDS } from '../imaging/fidelity/index.js';

/** Shapes shared by several routers' inputs and outputs. */
export const isoTimestamp = z.string().meta({ description: 'ISO 8601 UTC time', example: '2026-11-21T19:40:00.000Z' });
export const nullableTimestamp = isoTimestamp.nullable();

export const userSchema = z.object({ id: z.string(), email: z.string(), created_at: isoTimestamp });

/** A password being chosen: at least 10 characters, not counting spaces at either end. */
export const newPasswordField = z
  .string()
  .min(10, 'Password must have at least 10 characters.')
  .max(1024)
  // Counted once: a password under 10 characters already fails the length check above.
  .refine(
    (password) => password.length < 10 || password.trim().length >= 10,
    'Password must have at least 10 characters, not counting spaces at either end.',
  );

export const successSchema = z.object({ success: z.literal(true) });

export const noInput = z.object({}).optional();

export const keyIdParam = z.coerce.number().int().positive().meta({ description: 'API key id' });

/**
 * A JSON boolean and nothing else. trpc-to-openapi switches `coerce` on for every z.boolean()/z.number() of an
 * input object (for query strings), which would turn the string "false" into true; literals are left alone.
 */
export const strictBoolean = z.union([z.literal(true), z.literal(false)]).meta({ description: 'true or false' });

/** A page of a list: `limit` (1–100, default 25) and `starting_after`, the id of the last item of the previous page. */
export function pageQuery(item: string) {
  return z
    .object({
      limit: z.coerce.number().int().min(1).max(100).default(25),
      starting_after: z
        .string()
        .min(1)
        .max(64)
        .optional()
        .meta({ description: `Id of the last ${item} of the previous page` }),
    })
    .default({ limit: 25 });
}

// The image endpoints' results: staging answers them, a job's status carries them, claims list their images.
export const styleSchema = z.enum(STYLES);
export const roomTypeSchema = z.enum(ROOM_TYPES);

export const disclosureSchema = z.enum(DISCLOSURE_PROFILES).meta({
  description:
    'none: nothing; label: a "Virtually staged" mark in a corner; caption: no mark, disclosure_caption with the link to the original; ca_ab723: the mark, a QR code to the original and the caption',
});

const originalUrlSchema = z.string().nullable().meta({
  description:
    'Public, unguessable page showing the unaltered original beside this image, with the caption; null for enhanced images',
});
const captionSchema = z.string().nullable().meta({
  description:
    'One sentence to paste under the picture ("Virtually staged: furniture and decor were added digitally. Original photo: <original_url>"); null when the disclosure profile is none',
});

const fidelitySchema = z.number().min(0).max(1).nullable().meta({
  description:
    "How much of the input's structure (walls, windows, doors, ceiling lines, the view) the image kept, 0–1; staged, decluttered and re-rendered images are kept only at FIDELITY_MIN (default 0.9) or above; null for images that are not checked (enhanced, placed)",
});

/** What the fidelity check found changed: the kinds it names and where, in the photo's pixels. */
export const fidelityChangesSchema = z
  .array(
    z.object({
      kind: z.enum(CHANGE_KINDS).meta({
        description:
          'opening_removed / opening_added / opening_moved (a window, door or archway), wall_moved (a wall, corner, beam, ceiling or floor line), builtin_changed, surface_recoloured (a wall, floor or ceiling repainted or re-surfaced), unaligned (the output could not be placed on the photo)',
      }),
      // An array of four rather than a tuple: OpenAPI 3.0 has no tuples, and a tuple becomes an array without items.
      box: z
        .array(z.number().int().min(0))
        .length(4)
        .meta({ description: '[x, y, width, height] in the photo’s pixels (after EXIF orientation)' }),
    }),
  )
  .nullable()
  .meta({
    description:
      'What the fidelity check found changed, largest first (empty: nothing); null for images that are not checked. See docs/api/fidelity.md',
  });

export const imageSchema = z.object({
  id: z.string().meta({ description: 'Image id (img_…)' }),
  image_url: z.string().meta({ description: 'Absolute, unguessable URL serving the image without credentials' }),
  width: z.number().int(),
  height: z.number().int(),
  original_url: originalUrlSchema,
  disclosure_caption: captionSchema,
  fidelity: fidelitySchema,
  changes: fidelityChangesSchema,
});

/** The disclosure fields at the top of a body: the profile used, and the first image's page and caption. */
const disclosureFields = {
  disclosure: disclosureSchema,
  original_url: originalUrlSchema,
  disclosure_caption: captionSchema,
};

const placementSchema = z.object({
  product_id: z.string(),
  name: z.string(),
  brand: z.string(),
  category: z.string(),
  x: z.number().int(),
  y: z.number().int(),
  width: z.number().int(),
  height: z.number().int(),
  campaign_id: z
    .string()
    .nullable()
    .meta({ description: 'The campaign that pays for this placement (cmp_…); null for a house product' }),
  sponsored: z.boolean().meta({ description: 'True when an advertiser pays for this placement' }),
});

const stagedImageSchema = imageSchema.extend({
  variation: z.number().int().meta({ description: 'Which variation of its photo (0-based)' }),
  seed: z.number().int().meta({ description: 'The seed it was drawn with: send it again to draw the same picture' }),
});

/** The synchronous 200 bodies; a succeeded job's `result` is the same body. */
export const stageOutput = z
  .object({
    success: z.literal(true),
    claim_code: z.string(),
    image_url: z.string().meta({ description: 'URL of the first staged image' }),
    images: z.array(stagedImageSchema).meta({ description: 'One per input image × variation, input by input' }),
    style: styleSchema,
    room_type: roomTypeSchema,
    credits_used: z.number().int().meta({ description: 'images × variations × (1 + declutter)' }),
    credits_remaining: z.number().int(),
    expires_at: isoTimestamp.meta({ description: 'When the claim expires (30 days after issue)' }),
    ...disclosureFields,
  })
  .meta({ id: 'StageResult' });

/** The stage body for the one re-rendered image; claim fields are null for a decluttered image in no claim. */
export const rerenderOutput = stageOutput
  .extend({
    claim_code: z.string().nullable(),
    style: styleSchema.nullable(),
    room_type: roomTypeSchema.nullable(),
    credits_used: z.number().int().meta({ description: '0 for one of the free re-renders, else 1' }),
    expires_at: isoTimestamp.nullable(),
    rerender_of: z.string().meta({ description: 'The image it replaces in its claim (its URL keeps serving)' }),
  })
  .meta({ id: 'RerenderResult' });

export const enhanceOutput = z
  .object({
    success: z.literal(true),
    image_url: z.string(),
    width: z.number().int(),
    height: z.number().int(),
    credits_used: z.literal(1),
    credits_remaining: z.number().int(),
  })
  .meta({ id: 'EnhanceResult' });

export const declutterOutput = enhanceOutput
  .extend({
    id: z.string().meta({ description: 'Image id (img_…): re-render it with POST /api/v1/images/{id}/rerender' }),
    ...disclosureFields,
    fidelity: fidelitySchema,
    changes: fidelityChangesSchema,
  })
  .meta({ id: 'DeclutterResult' });

export const placeOutput = z
  .object({
    success: z.literal(true),
    image_url: z.string(),
    placements: z.array(placementSchema),
    credits_used: z.literal(0),
    credits_remaining: z.number().int(),
    original_url: originalUrlSchema,
    disclosure_caption: captionSchema,
  })
  .meta({ id: 'PlaceProductsResult' });

export const productSchema = z.object({
  id: z.string().meta({ description: 'prd_…' }),
  name: z.string(),
  brand: z.string(),
  category: z.enum(PRODUCT_CATEGORIES),
  room_types: z.array(z.string()),
  styles: z.array(z.string()).meta({ description: 'Styles the product suits; empty: any style' }),
  image_url: z.string().nullable(),
  status: z
    .enum(['active', 'paused', 'rejected', 'archived'])
    .meta({ description: 'Only active products are placed; archived ones stay in the images that show them' }),
  created_at: isoTimestamp,
});

const ledgerReason = z.enum(['signup_bonus', 'purchase', 'auto_topup', 'stage', 'enhance', 'refund', 'adjustment']);

export const transactionSchema = z.object({
  id: z.string().meta({ description: 'txn_…; pass the last one of a page as starting_after for the next page' }),
  delta: z.number().int().meta({ description: 'Credits added (positive) or taken (negative)' }),
  reason: ledgerReason,
  balance_after: z.number().int(),
  reference: z
    .string()
    .nullable()
    .meta({ description: 'What the entry is for, e.g. the first image id of a stage request' }),
  created_at: isoTimestamp,
});

/** An advertiser's campaign (the ads API, and the operators' view of an account). */
export const campaignSchema = z.object({
  id: z.string().meta({ description: 'cmp_…' }),
  name: z.string(),
  product_ids: z.array(z.string()),
  cpm_cents: z.number().int().meta({ description: 'What 1 000 billed impressions cost, in US cents' }),
  total_budget_cents: z.number().int(),
  daily_budget_cents: z.number().int().nullable(),
  starts_at: isoTimestamp.nullable(),
  ends_at: isoTimestamp.nullable(),
  status: z.enum(['active', 'paused', 'exhausted', 'scheduled', 'ended']),
  spent_cents: z.number().int().meta({ description: 'Spent so far, in whole US cents (rounded down)' }),
  spent_today_cents: z.number().int().meta({ description: 'Spent this UTC day, in whole US cents (rounded down)' }),
  impressions: z.number().int().meta({ description: 'Billed impressions' }),
  unbilled_impressions: z.number().int().meta({ description: 'Impressions the budget or the funds could not cover' }),
  invalid_impressions: z
    .number()
    .int()
    .meta({ description: 'Impressions declared invalid traffic by Roomstage and refunded' }),
  created_at: isoTimestamp,
});

/** One entry of an account's audit log (its owner's view, and the operators'). */
export const auditEntrySchema = z.object({
  id: z.string(),
  action: z.string().meta({ description: `One of ${AUDIT_ACTIONS.join(', ')}` }),
  actor: z.object({ type: z.enum(['user', 'key', 'operator']), id: z.string(), label: z.string() }),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  target: z.string().nullable(),
  details: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string())]))
    .meta({ description: 'What changed, by action (e.g. `credits` of a purchase, `reason` of a failed sign-in)' }),
  created_at: isoTimestamp,
});

export const adFundsTransactionSchema = z.object({
  id: z.string(),
  delta_millicents: z.number().int(),
  reason: z.enum(['purchase', 'spend', 'adjustment']),
  created_at: isoTimestamp,
});

/* Image requests: options that both the API's image endpoints (./staging.ts) and the dashboard's playground
   (./playground.ts) take, and what the running engine offers. */

export const labelSchema = z.enum(LABELS).meta({
  description: 'Older form of disclosure: virtually_staged = label, none = none',
});

export const variationsInput = z.coerce
  .number()
  .int()
  .min(1)
  .max(4)
  .default(1)
  .meta({ description: 'Different pictures of each image (1–4), each 1 credit; see GET /api/v1/capabilities' });

export const capabilitiesOutput = z
  .object({
    engine: z.enum(['builtin', 'replicate', 'openai', 'comfyui']),
    operations: z.array(z.enum(['stage', 'enhance', 'place_products', 'declutter'])),
    max_variations: z.number().int(),
    declutter: z.boolean(),
    label: z.boolean(),
    styles: z.array(styleSchema),
    room_types: z.array(roomTypeSchema),
  })
  .meta({ id: 'Capabilities' });

/** What the running engine offers, as GET /api/v1/capabilities shows it. */
export function presentCapabilities(capabilities: EngineCapabilities): z.infer<typeof capabilitiesOutput> {
  return {
    engine: capabilities.engine,
    operations: ['stage', 'enhance', 'place_products', ...(capabilities.declutter ? (['declutter'] as const) : [])],
    max_variations: capabilities.maxVariations,
    declutter: capabilities.declutter,
    label: capabilities.label,
    styles: [...STYLES],
    room_types: [...ROOM_TYPES],
  };
}
