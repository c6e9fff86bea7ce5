import { randomInt } from 'node:crypto';
import { MAX_SEED } from '../../imaging/engines/prompts.js';
import { sha256Hex } from './originals.js';

/** Credits one staged image costs: 1, and 1 more when its photo is decluttered first. */
export function creditsPerStagedImage(request: { declutter: boolean }): number {
  return request.declutter ? 2 : 1;
}

/** The seed of a request's variation: consecutive seeds, wrapping within every provider's range. */
export function variationSeed(seed: number, variation: number): number {
  return (seed + variation) % (MAX_SEED + 1);
}

/**
 * The base seed of one photo in a request: the caller's, else one read from the photo's bytes. So the same photo
 * staged again the same way gives the same picture (a staged picture sent back in is staged from its original, and
 * matches); a caller who wants other pictures asks for variations or another seed.
 */
export function requestSeed(seed: number | undefined, photo: Buffer): number {
  return seed ?? Number.parseInt(sha256Hex(photo).slice(0, 8), 16) % (MAX_SEED + 1);
}

/** A seed no photo implies: a re-render is drawn anew. */
export function freshSeed(): number {
  return randomInt(0, MAX_SEED + 1);
}
