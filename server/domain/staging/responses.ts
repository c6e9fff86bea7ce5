import type { Image } from '../../../db/schema.js';
import { iso } from '../../clock.js';
import type { RoomType, Style } from '../../imaging/catalog-data.js';
import type { SponsoredPlacement } from '../ads/revenue.js';
import type { ImageStorage } from '../../storage/storage.js';
import type { DeclutterResult, EnhanceResult, PlaceResult, StageResult } from './operations.js';
import { creditsPerStagedImage, variationSeed } from './variations.js';

/*
 * The 200 bodies of the three image operations (CONTRACT §5), built in one place: the synchronous response and a
 * succeeded job's `result` are the same body.
 */

export interface ImageBody {
  id: string;
  image_url: string;
  width: number;
  height: number;
}

export function presentImage(storage: ImageStorage, image: Image): ImageBody {
  return { id: image.id, image_url: storage.url(image.storage_name), width: image.width, height: image.height };
}

/** Images are listed input by input, each input's variations in order. */
export function stageResponse(
  storage: ImageStorage,
  request: { style: Style; roomType: RoomType; variations: number; seeds: number[]; declutter: boolean },
  result: StageResult,
) {
  const images = result.images.map((image, index) => {
    const variation = index % request.variations;
    const seed = variationSeed(request.seeds[Math.floor(index / request.variations)] ?? 0, variation);
    return { ...presentImage(storage, image), variation, seed };
  });
  const [first] = images;
  if (!first) throw new Error('A stage result holds at least one image');
  return {
    success: true as const,
    claim_code: result.claim.code,
    image_url: first.image_url,
    images,
    style: request.style,
    room_type: request.roomType,
    credits_used: images.length * creditsPerStagedImage(request),
    credits_remaining: result.creditsRemaining,
    expires_at: iso(result.claim.expires_at),
  };
}

export function enhanceResponse(storage: ImageStorage, result: EnhanceResult) {
  const { image_url, width, height } = presentImage(storage, result.image);
  return {
    success: true as const,
    image_url,
    width,
    height,
    credits_used: 1 as const,
    credits_remaining: result.creditsRemaining,
  };
}

export function placeResponse(
  storage: ImageStorage,
  result: PlaceResult,
): {
  success: true;
  image_url: string;
  placements: SponsoredPlacement[];
  credits_used: 0;
  credits_remaining: number;
} {
  return {
    success: true as const,
    image_url: storage.url(result.image.storage_name),
    placements: result.placements,
    credits_used: 0 as const,
    credits_remaining: result.creditsRemaining,
  };
}

/** The declutter body has the enhance body's shape. */
export function declutterResponse(storage: ImageStorage, result: DeclutterResult) {
  return enhanceResponse(storage, result);
}
