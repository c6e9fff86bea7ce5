/**
 * Remembering what each output was drawn on. Every staged or placed output is recorded with the SHA-256 of its
 * bytes, its original input (kept in storage under a `src_` name, never served) and the engine's scene. So a
 * product can replace a staged piece in a clean re-render of the original, and a staged photo sent back in is
 * staged from its original instead of getting a second set of furniture on top.
 *
 * Recognition is by exact SHA-256 of the bytes we stored: free, and it never mistakes another photo for ours. A
 * re-encoded or resized copy is not recognised; a perceptual hash would catch those, but it would also match a
 * client's own edit of our output, or another shot of the same room, and then silently throw that work away.
 * Lookups are limited to the calling account, so one account's original never shows in another's image.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Image } from '../../../db/schema.js';
import { STYLES } from '../../imaging/catalog-data.js';
import type { EngineImage, Scene } from '../../imaging/engine.js';
import { newOriginalName } from '../../storage/storage.js';
import type { ImagingDeps } from './deps.js';

/** What is recorded with an output's images row besides the usual columns. */
export interface OutputOrigin {
  /** Null: the output is not recognised as ours when sent back in (a decluttered photo is staged as it is). */
  outputSha256: string | null;
  originalStorageName: string;
  scene: Scene | null;
}

/** One of the caller's outputs, with the original it was drawn on and the scene (null: the engine gave none). */
export interface KnownOutput {
  image: Image;
  original: Buffer;
  scene: Scene | null;
}

const integer = z.number().int();
const sceneSchema = z.object({
  style: z.enum(STYLES).nullable(),
  pieces: z.array(
    z.object({
      category: z.string(),
      zone: z.enum(['floor', 'wall', 'ceiling', 'rug']),
      source: z.enum(['furniture', 'products']),
      asset: z.string(),
      product_id: z.string().optional(),
      x: integer,
      y: integer,
      width: integer.positive(),
      height: integer.positive(),
    }),
  ),
});

const digests = new WeakMap<Buffer, string>();

/**
 * SHA-256 of an image's bytes, computed once per Buffer: an upload's reference, the recognition of our own outputs
 * and the stored output's record all ask for it (a few ms for each 3 MB photo). Image buffers are never mutated.
 */
export function sha256Hex(bytes: Buffer): string {
  let digest = digests.get(bytes);
  if (digest === undefined) {
    digest = createHash('sha256').update(bytes).digest('hex');
    digests.set(bytes, digest);
  }
  return digest;
}

export function serializeScene(scene: Scene | null): string | null {
  return scene ? JSON.stringify(scene) : null;
}

/** The scene column read back; anything unreadable counts as no scene (the image is then treated as a plain photo). */
export function parseScene(json: string | null): Scene | null {
  if (!json) return null;
  try {
    const parsed = sceneSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The original and scene behind a stored image, or null when it has none (enhanced, or made before they were kept). */
export async function knownOutputOf(deps: ImagingDeps, image: Image): Promise<KnownOutput | null> {
  if (!image.original_storage_name) return null;
  const stored = await deps.storage.get(image.original_storage_name);
  return stored ? { image, original: stored.data, scene: parseScene(image.scene) } : null;
}

/** Bytes that are exactly one of this account's stored outputs → that output's original and scene. */
export async function recogniseOutput(
  deps: ImagingDeps,
  accountId: string,
  bytes: Buffer,
): Promise<KnownOutput | null> {
  const image = await deps.db
    .selectFrom('images')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('output_sha256', '=', sha256Hex(bytes))
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return image ? knownOutputOf(deps, image) : null;
}

/** Staging input: each image that is one of the caller's outputs is replaced by the original it was drawn on. */
export async function originalsOf(deps: ImagingDeps, accountId: string, inputs: Buffer[]): Promise<Buffer[]> {
  return Promise.all(inputs.map(async (input) => (await recogniseOutput(deps, accountId, input))?.original ?? input));
}

/**
 * Stores `original` (the picture the output was drawn on) under a never-served name, adding it to `written` so a
 * failed request deletes it, and returns what the output's row records.
 */
export async function keepOrigin(
  deps: ImagingDeps,
  written: string[],
  imageId: string,
  original: Buffer,
  output: EngineImage & { scene?: Scene },
  options: { recognise?: boolean } = {},
): Promise<OutputOrigin> {
  const { format } = await deps.engine.inspect(original);
  const name = newOriginalName(imageId, format);
  written.push(name);
  await deps.storage.put(name, original, `image/${format}`);
  const outputSha256 = options.recognise === false ? null : sha256Hex(output.data);
  return { outputSha256, originalStorageName: name, scene: output.scene ?? null };
}
