import { z } from 'zod';
import { listApiKeys } from '../domain/keys/api-keys.js';
import { runImageRequest } from '../domain/staging/operations/pipeline.js';
import { prepareStage } from '../domain/staging/operations/stage.js';
import { PLAYGROUND_SAMPLES, playgroundCaller, sampleImage, sampleLabel } from '../domain/staging/playground.js';
import { AppError } from '../errors.js';
import { DEFAULT_ROOM_TYPE, DEFAULT_STYLE, ROOM_TYPES, STYLES } from '../imaging/catalog-data.js';
import { admitImageWork } from '../limits/image-admission.js';
import { router, sessionProcedure } from '../trpc/index.js';
import {
  capabilitiesOutput,
  disclosureSchema,
  labelSchema,
  noInput,
  presentCapabilities,
  roomTypeSchema,
  stageOutput,
  styleSchema,
  variationsInput,
} from './schemas.js';

/** The dashboard's playground (no REST paths): a signed-in developer stages a photo with one of the account's keys. */
export const playgroundRouter = router({
  /** Dashboard only (no REST path): what the playground offers and the keys it can charge. */
  options: sessionProcedure
    .meta({ permission: 'develop' })
    .input(noInput)
    .output(
      z.object({
        styles: z.array(styleSchema),
        room_types: z.array(roomTypeSchema),
        samples: z.array(z.object({ id: z.enum(PLAYGROUND_SAMPLES), label: z.string() })),
        capabilities: capabilitiesOutput,
        keys: z.array(
          z.object({ id: z.number().int(), name: z.string(), prefix: z.string(), mode: z.enum(['live', 'test']) }),
        ),
      }),
    )
    .query(async ({ ctx }) => {
      const keys = await listApiKeys(ctx.services.db, ctx.account.id);
      return {
        styles: [...STYLES],
        room_types: [...ROOM_TYPES],
        samples: PLAYGROUND_SAMPLES.map((id) => ({ id, label: sampleLabel(id) })),
        capabilities: presentCapabilities(ctx.services.engine.capabilities),
        keys: keys
          .filter((key) => key.revoked_at === null)
          .map((key) => ({ id: key.id, name: key.name, prefix: key.prefix, mode: key.mode })),
      };
    }),

  /**
   * Dashboard only: stages one photo (uploaded, or a drawn sample) exactly as POST /api/v1/stage does with the
   * chosen key of the signed-in account: one credit from the account, a claim, `staging.complete` to the key's webhook.
   */
  stage: sessionProcedure
    .meta({ permission: 'develop' })
    .input(
      z.object({
        key_id: z.number().int().positive(),
        image: z.string().optional().meta({ description: 'The photo, base64 or a data:image/…;base64, URL' }),
        sample: z.enum(PLAYGROUND_SAMPLES).optional(),
        style: styleSchema.default(DEFAULT_STYLE),
        room_type: roomTypeSchema.default(DEFAULT_ROOM_TYPE),
        variations: variationsInput,
        declutter: z.boolean().optional(),
        disclosure: disclosureSchema.optional(),
        label: labelSchema.optional(),
      }),
    )
    .output(stageOutput)
    .mutation(async ({ ctx, input }) => {
      const { image: upload, sample } = input;
      const message = 'Upload a photo or pick a sample (one of the two).';
      const oneOfTwo = () => new AppError('invalid_request', message, { details: [{ path: 'image', message }] });
      if ((upload === undefined) === (sample === undefined)) throw oneOfTwo();
      const caller = await playgroundCaller(ctx.services.db, ctx.account.id, input.key_id, ctx.services.clock.now());
      const image = upload ?? (sample === undefined ? undefined : (await sampleImage(sample)).toString('base64'));
      if (image === undefined) throw oneOfTwo();
      // The same limits, charge and operation as POST /api/v1/stage on that key.
      return admitImageWork(ctx.services.imageAdmission, caller.keyId, async () => {
        const deps = ctx.services.imaging;
        const prepared = await prepareStage(deps, caller, {
          sources: { image },
          style: input.style,
          roomType: input.room_type,
          variations: input.variations,
          declutter: input.declutter,
          disclosure: input.disclosure,
          label: input.label,
        });
        return runImageRequest(deps, caller, prepared);
      });
    }),
});
