import type { DisclosureProfile, Image } from '../../../db/schema.js';
import { iso } from '../../clock.js';
import type { RoomType, Style } from '../../imaging/catalog-data.js';
import type { FidelityChange } from '../../imaging/fidelity/index.js';
import type { SponsoredPlacement } from '../ads/revenue.js';
import type { ImageStorage } from '../../storage/storage.js';
import { disclosureCaption, originalPageUrl } from '../disclosure/disclosure.js';
import { fidelityChanges } from './images.js';
import type { DeclutterResult } from './operations/declutter.js';
import type { EnhanceResult } from './operations/enhance.js';
import type { PlaceResult } from './operations/place.js';
import type { RerenderResult } from './operations/rerender.js';
import type { StageResult } from './operations/stage.js';
import { creditsPerStagedImage, variationSeed } from './variations.js';

/*
 * The 200 bodies of the image operations, built in one place: the synchronous response and a
 * succeeded job's `result` are the same body.
 */

/** What turns an image row into its public addresses: the image's URL and its original's page. */
export interface ImageLinks {
  storage: ImageStorage;
  publicBaseUrl: string;
}

export interface ImageBody {
  id: string;
  image_url: string;
  width: number;
  height: number;
  /** The public page of the unaltered original (staged, decluttered and placed images); null for enhanced ones. */
  original_url: string | null;
  /** The sentence an agent pastes under the picture; null when its disclosure profile is `none` (or it has none). */
  disclosure_caption: string | null;
  /** How much of the input's structure it kept (0–1); null for images that are not checked. */
  fidelity: number | null;
  /** What the fidelity check found changed (kinds, boxes in the photo's pixels); null for images not checked. */
  changes: FidelityChange[] | null;
}

export function presentImage(links: ImageLinks, image: Image): ImageBody {
  const originalUrl = originalPageUrl(links.publicBaseUrl, image.original_token);
  return {
    id: image.id,
    image_url: links.storage.url(image.storage_name),
    width: image.width,
    height: image.height,
    original_url: originalUrl,
    disclosure_caption: disclosureCaption(image.disclosure, originalUrl),
    fidelity: image.fidelity,
    changes: fidelityChanges(image),
  };
}

/** The first image's disclosure, repeated at the top of a body for clients that read one image. */
function disclosureSummary(disclosure: DisclosureProfile, first: ImageBody) {
  return { disclosure, original_url: first.original_url, disclosure_caption: first.disclosure_caption };
}

/** Images are listed input by input, each input's variations in order. */
export function stageResponse(
  links: ImageLinks,
  request: {
    style: Style;
    roomType: RoomType;
    variations: number;
    seed: number;
    declutter: boolean;
    disclosure: DisclosureProfile;
  },
  result: StageResult,
) {
  const images = result.images.map((image, index) => {
    const variation = index % request.variations;
    return { ...presentImage(links, image), variation, seed: image.seed ?? variationSeed(request.seed, variation) };
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
    ...disclosureSummary(request.disclosure, first),
  };
}

/** A re-render answers with the stage body for its one image, plus what it replaced and whether it was free. */
export function rerenderResponse(
  links: ImageLinks,
  request: {
    style: Style | null;
    roomType: RoomType | null;
    seed: number;
    disclosure: DisclosureProfile;
    replacedImageId: string;
  },
  result: RerenderResult,
) {
  const image = { ...presentImage(links, result.image), variation: 0, seed: result.image.seed ?? request.seed };
  return {
    success: true as const,
    claim_code: result.claim?.code ?? null,
    image_url: image.image_url,
    images: [image],
    style: request.style,
    room_type: request.roomType,
    credits_used: result.creditsUsed,
    credits_remaining: result.creditsRemaining,
    expires_at: result.claim ? iso(result.claim.expires_at) : null,
    ...disclosureSummary(request.disclosure, image),
    rerender_of: request.replacedImageId,
  };
}

export function enhanceResponse(links: ImageLinks, result: EnhanceResult) {
  const { image_url, width, height } = presentImage(links, result.image);
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
  links: ImageLinks,
  result: PlaceResult,
): {
  success: true;
  image_url: string;
  placements: SponsoredPlacement[];
  credits_used: 0;
  credits_remaining: number;
  original_url: string | null;
  disclosure_caption: string | null;
} {
  const { image_url, original_url, disclosure_caption } = presentImage(links, result.image);
  return {
    success: true as const,
    image_url,
    placements: result.placements,
    credits_used: 0 as const,
    credits_remaining: result.creditsRemaining,
    original_url,
    disclosure_caption,
  };
}

/** The declutter body is the enhance body with the image's disclosure. */
export function declutterResponse(links: ImageLinks, result: DeclutterResult) {
  const body = presentImage(links, result.image);
  return {
    ...enhanceResponse(links, result),
    id: body.id,
    disclosure: result.image.disclosure ?? 'none',
    original_url: body.original_url,
    disclosure_caption: body.disclosure_caption,
    fidelity: body.fidelity,
    changes: body.changes,
  };
}
