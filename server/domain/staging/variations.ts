import { randomInt } from 'node:crypto';
import { MAX_SEED } from '../../imaging/engines/prompts.js';

/** Credits one staged image costs: 1, and 1 more when its photo is decluttered first. */
export function creditsPerStagedImage(request: { declutter: boolean }): number {
  return request.declutter ? 2 : 1;
}

/** The seed of a request's variation: consecutive seeds, wrapping within every provider's range. */
export function variationSeed(seed: number, variation: number): number {
  return (seed + variation) % (MAX_SEED + 1);
}

/** A request's seed: the caller's, or one drawn now, so a job or a replay draws the very same pictures. */
export function requestSeed(seed: number | undefined): number {
  return seed ?? randomInt(0, MAX_SEED);
}
