/**
 * The default ImageEngine on sharp (libvips). Each operation is one decode → grade/composite → encode
 * pipeline; furniture tiles come pre-rasterised from the asset cache. A small semaphore caps how many
 * images are in flight, so a burst queues instead of exhausting memory.
 */
import { availableParallelism } from 'node:os';
import sharp, { type OverlayOptions, type Sharp } from 'sharp';
import { AppError } from '../errors.js';
import { assetAspect, bucketWidth, getTile, tileOverlay, type AssetKind, type ShadowKind } from './assets.js';
import type { RoomType, Style } from './catalog-data.js';
import type { EngineImage, ImageEngine, ImageInfo, PlaceableProduct, Placement } from './engine.js';
import { DEFAULT_PRODUCT_SLOT, FURNITURE_SETS, PRODUCT_SLOTS, type PieceSpec } from './furniture-sets.js';
import { inspectInput, isDecodeFailure, MAX_PIXELS } from './input-rules.js';
import { gradeMatrix, STYLE_LOOKS } from './styles.js';

export const ENHANCE_LONG_EDGE = 3840;
const STAGE_QUALITY = 88;
const ENHANCE_QUALITY = 90;

class Semaphore {
  private waiting: Array<() => void> = [];
  private active = 0;
  constructor(private readonly slots: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.slots) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next(); // the slot passes straight to the next waiter
      else this.active--;
    }
  }
}

interface Box { x: number; y: number; width: number; height: number }

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Layout frame: the floor baseline and the size unit u = min(width, 1.5·height). */
function frame(width: number, height: number) {
  const unit = Math.min(width, 1.5 * height);
  const baseline = Math.min(0.83 * height, height - 0.13 * unit);
  return { unit, baseline };
}

interface PlacedPiece { box: Box; tileKind: AssetKind; asset: string; shadow: ShadowKind; order: number }

function shadowFor(zone: PieceSpec['zone']): ShadowKind {
  return zone === 'rug' ? 'rug' : zone === 'wall' ? 'wall' : zone === 'ceiling' ? 'ceiling' : 'floor';
}

/** Draw order: rugs, then the wall, then floor pieces from the back (higher bottom edge) to the front. */
function drawOrder(zone: PieceSpec['zone'], bottom: number): number {
  return zone === 'rug' ? -2e9 : zone === 'wall' || zone === 'ceiling' ? -1e9 : bottom;
}

export interface SharpImageEngineOptions {
  /** Images processed at once; the rest wait. Default: one per CPU. */
  concurrency?: number;
}

export class SharpImageEngine implements ImageEngine {
  private readonly gate: Semaphore;

  constructor(options: SharpImageEngineOptions = {}) {
    this.gate = new Semaphore(Math.max(1, Math.floor(options.concurrency ?? Math.max(1, availableParallelism()))));
  }

  inspect(input: Buffer): Promise<ImageInfo> {
    return inspectInput(input);
  }

  stage(input: Buffer, options: { style: Style; roomType: RoomType }): Promise<EngineImage> {
    return this.gate.run(async () => {
      const { width, height } = await inspectInput(input);
      const look = STYLE_LOOKS[options.style];
      const pieces = await this.layoutFurniture(FURNITURE_SETS[options.roomType], width, height);
      const overlays = await this.overlays(pieces, options.style, width, height);
      // sharp runs recomb before composite: the grade colours the room, the furniture keeps its palette.
      const pipeline = decode(input)
        .recomb(gradeMatrix(look.grade))
        .composite(overlays)
        .jpeg({ quality: STAGE_QUALITY, chromaSubsampling: '4:2:0' });
      return encodeResult(pipeline);
    });
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
    options: { products: PlaceableProduct[]; maxProducts: number },
  ): Promise<EngineImage & { placements: Placement[] }> {
    return this.gate.run(async () => {
      const { width, height } = await inspectInput(input);
      const { unit, baseline } = frame(width, height);
      const limit = Math.max(0, Math.floor(options.maxProducts));
      const placed: Array<{ product: PlaceableProduct; piece: PlacedPiece }> = [];
      for (const product of options.products) {
        if (placed.length >= limit) break;
        const spec = PRODUCT_SLOTS[product.category] ?? DEFAULT_PRODUCT_SLOT;
        const pieceWidth = Math.min(width, bucketWidth(spec.width * unit));
        const pieceHeight = Math.max(1, Math.round(pieceWidth * (await assetAspect('products', product.asset))));
        if (pieceHeight > height) continue;
        for (const cx of spec.slots) {
          const x = clamp(Math.round(cx * width - pieceWidth / 2), 0, width - pieceWidth);
          const bottom =
            spec.zone === 'wall' ? Math.max(baseline - (spec.wallGap ?? 0.3) * unit, 0.03 * height + pieceHeight)
            : spec.zone === 'rug' ? height - 0.015 * height
            : baseline + (spec.lift ?? 0.04) * unit;
          const y = clamp(Math.round(bottom - pieceHeight), 0, height - pieceHeight);
          const box = { x, y, width: pieceWidth, height: pieceHeight };
          if (placed.some((other) => overlaps(box, other.piece.box))) continue;
          placed.push({
            product,
            piece: { box, tileKind: 'products', asset: product.asset, shadow: shadowFor(spec.zone), order: drawOrder(spec.zone, y + pieceHeight) },
          });
          break;
        }
      }
      const overlays = await this.overlays(placed.map((p) => p.piece), null, width, height);
      const pipeline = decode(input).composite(overlays).jpeg({ quality: STAGE_QUALITY });
      const result = await encodeResult(pipeline);
      const placements = placed.map(({ product, piece }) => ({
        product_id: product.id,
        name: product.name,
        brand: product.brand,
        category: product.category,
        ...piece.box,
      }));
      return { ...result, placements };
    });
  }

  private async layoutFurniture(specs: PieceSpec[], width: number, height: number): Promise<PlacedPiece[]> {
    const { unit, baseline } = frame(width, height);
    const byKey = new Map<string, { spec: PieceSpec; box: Box }>();
    const pieces: PlacedPiece[] = [];
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
      const mayOverlap = (key: string) => spec.zone === 'rug' || byKey.get(key)?.spec.zone === 'rug' || spec.on?.key === key || spec.inFrontOf === key;
      // Nudge sideways, alternating, until the piece is clear of the ones already standing; else leave it out.
      let box: Box | null = null;
      for (let attempt = 0; attempt < 9 && !box; attempt++) {
        const shift = Math.ceil(attempt / 2) * 0.02 * width * (attempt % 2 ? 1 : -1);
        const candidate = { x: clamp(Math.round(startX + shift), 0, width - pieceWidth), y, width: pieceWidth, height: pieceHeight };
        const clear = [...byKey].every(([key, other]) => mayOverlap(key) || !overlaps(candidate, other.box));
        if (clear) box = candidate;
      }
      if (!box) continue;
      byKey.set(spec.key, { spec, box });
      const order = spec.on ? drawOrder('floor', (byKey.get(spec.on.key)?.box.y ?? 0) + (byKey.get(spec.on.key)?.box.height ?? 0) + 0.5) : drawOrder(spec.zone, box.y + box.height);
      pieces.push({ box, tileKind: 'furniture', asset: spec.asset, shadow: shadowFor(spec.zone), order });
    }
    return pieces;
  }

  private async overlays(pieces: PlacedPiece[], style: Style | null, width: number, height: number): Promise<OverlayOptions[]> {
    const palette = style ? STYLE_LOOKS[style].palette : null;
    const sorted = [...pieces].sort((a, b) => a.order - b.order);
    const tiles = await Promise.all(
      sorted.map((piece) => getTile(piece.tileKind, piece.asset, palette, style ?? 'brand', piece.box.width, piece.shadow)),
    );
    return sorted.flatMap((piece, i) => {
      const overlay = tileOverlay(tiles[i]!, piece.box.x, piece.box.y, width, height);
      return overlay ? [overlay] : [];
    });
  }
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
    if (isDecodeFailure(error)) throw new AppError('invalid_image', 'The image data is damaged and could not be decoded.');
    throw error;
  }
}

export function createImageEngine(options?: SharpImageEngineOptions): ImageEngine {
  return new SharpImageEngine(options);
}
