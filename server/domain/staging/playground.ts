/**
 * The dashboard's playground: a signed-in staging company tries staging without writing code. It charges exactly
 * like POST /api/v1/stage (stageImages, one credit, on the chosen key of the account), so the ledger, the claim,
 * the webhook event and the key's usage are the same as for an API call.
 */
import { readFile } from 'node:fs/promises';
import type { Db } from '../../../db/client.js';
import type { Image } from '../../../db/schema.js';
import { AppError } from '../../errors.js';
import { emptyRoomImage } from '../../imaging/synthetic-room.js';
import { getOwnApiKey, recordKeyUse } from '../keys/api-keys.js';
import type { ApiCaller, ImagingDeps } from './deps.js';

export const PLAYGROUND_SAMPLES = ['empty-room-photo', 'empty-living-room', 'empty-wide-room'] as const;
export type PlaygroundSample = (typeof PLAYGROUND_SAMPLES)[number];

/**
 * What the playground can stage with nothing to upload: first the real photo of docs/samples/empty-room.jpg (its
 * source is in docs/samples/SOURCES.md), then drawn rooms (server/imaging/synthetic-room.ts) of two shapes.
 */
const SAMPLES: Record<PlaygroundSample, { label: string; load: () => Promise<Buffer> }> = {
  'empty-room-photo': {
    label: 'Empty living room (photo)',
    load: () => readFile(new URL('../../imaging/assets/samples/empty-room.jpg', import.meta.url)),
  },
  'empty-living-room': { label: 'Drawn room, 3:2', load: () => emptyRoomImage(1200, 800) },
  'empty-wide-room': { label: 'Drawn room, 16:9', load: () => emptyRoomImage(1600, 900) },
};

export function sampleLabel(sample: PlaygroundSample): string {
  return SAMPLES[sample].label;
}

const sampleCache = new Map<PlaygroundSample, Promise<Buffer>>();

/** The sample's JPEG bytes (read or drawn once per process). */
export function sampleImage(sample: PlaygroundSample): Promise<Buffer> {
  let image = sampleCache.get(sample);
  if (!image) {
    image = SAMPLES[sample].load();
    sampleCache.set(sample, image);
  }
  return image;
}

/**
 * The caller a playground charge runs as: one of the account's own active keys (its credits, its webhook). The
 * staging is that key's use, so its `last_used_at` moves as for an API call.
 */
export async function playgroundCaller(db: Db, accountId: string, keyId: number, now: number): Promise<ApiCaller> {
  const key = await getOwnApiKey(db, accountId, keyId);
  if (key.revoked_at !== null) {
    throw new AppError('conflict', `API key “${key.name}” is revoked; choose an active key.`, {
      details: [{ path: 'key_id', message: 'This key is revoked.' }],
    });
  }
  recordKeyUse(db, key.id, now);
  return { accountId, keyId: key.id, idempotency: null };
}

const PREVIEW_EDGE = 1600;

/**
 * A JPEG (long edge ≤ 1600 px) of the photo an image was drawn on, for the before/after views. Only the account
 * that made the image or the agent who redeemed its claim sees it; anyone else, or an image with no recorded
 * original (enhanced images), reads as not found.
 */
export async function originalPreview(
  deps: Pick<ImagingDeps, 'db' | 'storage' | 'engine'>,
  input: { viewerAccountId: string; imageId: string },
): Promise<Buffer> {
  const { db, storage, engine } = deps;
  const image: Pick<Image, 'original_storage_name'> | undefined = await db
    .selectFrom('images')
    .leftJoin('claims', 'claims.code', 'images.claim_code')
    .select('images.original_storage_name')
    .where('images.id', '=', input.imageId)
    .where((eb) =>
      eb.or([
        eb('images.account_id', '=', input.viewerAccountId),
        eb('claims.redeemed_by', '=', input.viewerAccountId),
      ]),
    )
    .executeTakeFirst();
  const stored = image?.original_storage_name ? await storage.get(image.original_storage_name) : null;
  if (!stored) throw new AppError('not_found', `No original is kept for image ${input.imageId}.`);
  return (await engine.preview(stored.data, PREVIEW_EDGE)).data;
}
