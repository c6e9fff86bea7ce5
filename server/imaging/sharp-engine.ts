/**
 * The default ImageEngine on sharp (libvips). Each operation is one decode → composite → encode pipeline: it
 * only adds furniture, decor and their shadows, never recolours the room (walls, floor, ceiling and openings keep
 * their pixels, which the fidelity check protects); furniture tiles come pre-rasterised from the asset cache. Staging reports the scene it drew, so
 * products can later replace its pieces in a re-render of the original; on other photos products go where the
 * room map (./room-map.ts) finds free floor or wall. A small semaphore caps how many
 * images are in flight, so a burst queues instead of exhausting memory.
 */
import { availableParallelism } from 'node:os';
import sharp, { type Sharp } from 'sharp';
import { AppError } from '../errors.js';
import { assetAspect, bucketWidth } from './assets.js';
import type {
  EngineCapabilities,
  EngineImage,
  ImageEngine,
  ImageInfo,
  Disclosure,
  PlaceableProduct,
  Placement,
  Scene,
  ScenePiece,
  StageOptions,
} from './engine.js';
import { finishOutput, STAGED_JPEG } from './finish.js';
import { layoutUnit } from './free-space.js';
import { arrangedSet, FURNITURE_CATEGORIES, type PieceSpec } from './furniture-sets.js';
import { inspectInput, isDecodeFailure, MAX_PIXELS } from './input-rules.js';
import { analyseRoom, type Box, overlaps } from './room-map.js';
import { arrangeProducts, drawOrder, sceneOverlays } from './scene.js';
import { Semaphore } from './semaphore.js';

export const ENHANCE_LONG_EDGE = 3840;
export { STAGED_JPEG };
/** Variations of one photo a request may ask for: each is a different arrangement (a different seed). */
const MAX_VARIATIONS = 4;
const ENHANCE_QUALITY = 90;
/** Previews are looked at, not kept: smaller files, no visible loss at dashboard sizes. */
const PREVIEW_QUALITY = 82;

/** Layout frame: the floor baseline and the size unit u = min(width, 1.5·height). */
function frame(width: number, height: number) {
  const unit = layoutUnit(width, height);
  const baseline = Math.min(0.83 * height, height - 0.13 * unit);
  return { unit, baseline };
}

export interface SharpImageEngineOptions {
  /** Images processed at once; the rest wait. Default: one per CPU. */
  concurrency?: number;
}

export class SharpImageEngine implements ImageEngine {
  /** It draws vector furniture; emptying a furnished room needs a generative model. */
  readonly capabilities: EngineCapabilities = {
    engine: 'builtin',
    maxVariations: MAX_VARIATIONS,
    declutter: false,
    label: true,
  };
  private readonly gate: Semaphore;

  constructor(options: SharpImageEngineOptions = {}) {
    this.gate = new Semaphore(Math.max(1, Math.floor(options.concurrency ?? Math.max(1, availableParallelism()))));
  }

  inspect(input: Buffer): Promise<ImageInfo> {
    return inspectInput(input);
  }

  stage(input: Buffer, options: StageOptions): Promise<EngineImage & { scene: Scene }> {
    return this.gate.run(async () => {
      const { width, height } = await inspectInput(input);
      const scene: Scene = {
        style: options.style,
        pieces: await layoutFurniture(arrangedSet(options.roomType, options.seed), width, height),
      };
      return { ...(await render(input, scene, width, height, { label: options.label, qrUrl: options.qrUrl })), scene };
    });
  }

  declutter(): Promise<EngineImage> {
    return Promise.reject(
      new AppError('unsupported_option', 'The built-in engine cannot declutter; a generative engine can.', {
        option: 'declutter',
      }),
    );
  }

  preview(input: Buffer, maxEdge: number): Promise<EngineImage> {
    return this.gate.run(() =>
      encodeResult(
        decode(input)
          .resize({ width: maxEdge, height: maxEdge, fit: 'inside', withoutEnlargement: true })
          .jpeg({ quality: PREVIEW_QUALITY }),
      ),
    );
  }

  enhance(input: Buffer): Promise<EngineImage> {
    return this.gate.run(async () => {
      const { width, height } = await inspectInput(input);
      const landscape = width >= height;
      const outWidth = landscape ? ENHANCE_LONG_EDGE : Math.max(1, Math.round((width * ENHANCE_LONG_EDGE) / height));
      const outHeight = landscape ? Math.max(1, Math.round((height * ENHANCE_LONG_EDGE) / width)) : ENHANCE_LONG_EDGE;
      const scale = ENHANCE_LONG_EDGE / Math.max(width, height);
      let pipeline = decode(input).resize(outWidth, outHeight, { fit: 'fill', kernel: 'lanczos3' });
      // Heavy upscaling magnifies sensor noise and JPEG blocks; a 3×3 median removes them before sharpening.
      if (scale >= 2.5) pipeline = pipeline.median(3);
      pipeline = pipeline
        .sharpen({ sigma: scale > 1 ? 1.0 : 0.7, m1: 0.8, m2: 2.0 })
        .jpeg({ quality: ENHANCE_QUALITY, chromaSubsampling: '4:4:4' });
      return encodeResult(pipeline);
    });
  }

  placeProducts(
    input: Buffer,
    options: { products: PlaceableProduct[]; maxProducts: number; scene?: Scene },
  ): Promise<EngineImage & { placements: Placement[]; scene: Scene }> {
    return this.gate.run(async () => {
      const size = await inspectInput(input);
      const map = await analyseRoom(input, size);
      const { scene, placements } = await arrangeProducts(
        options.scene ?? { style: null, pieces: [] },
        map,
        options.products,
        options.maxProducts,
      );
      return { ...(await render(input, scene, size.width, size.height)), placements, scene };
    });
  }
}

/** The piece set laid out on the picture, in drawing order; a piece that cannot stand clear of the others is left out. */
async function layoutFurniture(specs: PieceSpec[], width: number, height: number): Promise<ScenePiece[]> {
  const { unit, baseline } = frame(width, height);
  const byKey = new Map<string, { spec: PieceSpec; box: Box }>();
  const pieces: Array<{ piece: ScenePiece; order: number }> = [];
  for (const spec of specs) {
    const pieceWidth = Math.min(width, bucketWidth(spec.width * unit));
    const pieceHeight = Math.max(1, Math.round(pieceWidth * (await assetAspect('furniture', spec.asset))));
    let bottom: number;
    if (spec.on) {
      const base = byKey.get(spec.on.key);
      if (!base) continue;
      bottom = base.box.y + spec.on.surface * base.box.height;
    } else if (spec.zone === 'wall') {
      bottom = Math.max(baseline - (spec.wallGap ?? 0.25) * unit, 0.03 * height + pieceHeight);
    } else if (spec.zone === 'ceiling') {
      bottom = pieceHeight;
    } else if (spec.zone === 'rug') {
      bottom = baseline - 0.02 * unit + pieceHeight;
    } else {
      bottom = baseline + (spec.lift ?? 0) * unit;
    }
    const y = clamp(Math.round(bottom - pieceHeight), 0, Math.max(0, height - pieceHeight));
    const startX = clamp(Math.round(spec.cx * width - pieceWidth / 2), 0, width - pieceWidth);
    const mayOverlap = (key: string) =>
      spec.zone === 'rug' || byKey.get(key)?.spec.zone === 'rug' || spec.on?.key === key || spec.inFrontOf === key;
    // Nudge sideways, alternating, until the piece is clear of the ones already standing; else leave it out.
    let box: Box | null = null;
    for (let attempt = 0; attempt < 9 && !box; attempt++) {
      const shift = Math.ceil(attempt / 2) * 0.02 * width * (attempt % 2 ? 1 : -1);
      const candidate = {
        x: clamp(Math.round(startX + shift), 0, width - pieceWidth),
        y,
        width: pieceWidth,
        height: pieceHeight,
      };
      const clear = [...byKey].every(([key, other]) => mayOverlap(key) || !overlaps(candidate, other.box));
      if (clear) box = candidate;
    }
    if (!box) continue;
    byKey.set(spec.key, { spec, box });
    const base = spec.on ? byKey.get(spec.on.key)?.box : undefined;
    const order = base ? drawOrder('floor', base.y + base.height + 0.5) : drawOrder(spec.zone, box.y + box.height);
    const category = FURNITURE_CATEGORIES[spec.asset] ?? spec.key;
    pieces.push({ piece: { category, zone: spec.zone, source: 'furniture', asset: spec.asset, ...box }, order });
  }
  return pieces.sort((a, b) => a.order - b.order).map(({ piece }) => piece);
}

/**
 * Draws the scene's pieces (in the style's palette, with their shadows) over the picture and nothing else: the
 * room keeps its own colours. Staging and placing share it, so a re-render of the same original and scene gives
 * the same pixels.
 */
function render(
  input: Buffer,
  scene: Scene,
  width: number,
  height: number,
  disclosure: Disclosure = {},
): Promise<EngineImage> {
  return sceneOverlays(scene, width, height).then((overlays) =>
    encodeResult(finishOutput(decode(input), { width, height }, { overlays, ...disclosure })),
  );
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}

/** Opens user bytes for a full decode: pixel cap as a second guard, damaged data fails instead of half-rendering. */
function decode(input: Buffer): Sharp {
  return sharp(input, { limitInputPixels: MAX_PIXELS, failOn: 'error' }).rotate();
}

async function encodeResult(pipeline: Sharp): Promise<EngineImage> {
  try {
    const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
    return { data, contentType: 'image/jpeg', extension: 'jpg', width: info.width, height: info.height };
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (isDecodeFailure(error))
      throw new AppError('invalid_image', 'The image data is damaged and could not be decoded.');
    throw error;
  }
}

export function createImageEngine(options?: SharpImageEngineOptions): ImageEngine {
  return new SharpImageEngine(options);
}
