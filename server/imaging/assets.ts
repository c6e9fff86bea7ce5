/**
 * Rasterises the SVG furniture and product artwork into ready-to-composite tiles: the piece plus its soft
 * shadow, as raw RGBA. Tiles are cached per asset, palette and width bucket, so a busy server rasterises
 * each size once and every later image only pays for the composite.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import sharp, { type OverlayOptions } from 'sharp';
import { applyPalette, type Palette } from './styles.js';

export type AssetKind = 'furniture' | 'products';
export type ShadowKind = 'floor' | 'wall' | 'rug' | 'ceiling';

export interface Tile {
  data: Buffer;
  width: number;
  height: number;
  /** Where the piece itself starts inside the tile (the rest is shadow margin). */
  pieceLeft: number;
  pieceTop: number;
}

const ASSET_DIR = fileURLToPath(new URL('./assets/', import.meta.url));
const SAFE_NAME = /^[a-z0-9][a-z0-9-]*\.svg$/;

interface Template {
  svg: string;
  /** An uploaded product's PNG (then `svg` is empty). */
  raster?: Buffer;
  width: number;
  height: number;
}
const templates = new Map<string, Promise<Template>>();

/** Advertisers' product pictures live in image storage under names like `img_….png`, not in ./assets/. */
const UPLOADED_NAME = /^img_[0-9A-Za-z]{22}_[0-9A-Za-z]{20}\.png$/;
let uploadedAssets: ((name: string) => Promise<Buffer | null>) | null = null;

/** Where the engine reads uploaded product pictures from: the process's image storage, set once at start. */
export function readUploadedAssetsWith(loader: (name: string) => Promise<Buffer | null>): void {
  uploadedAssets = loader;
}

async function loadUploaded(name: string): Promise<Template> {
  const data = uploadedAssets ? await uploadedAssets(name) : null;
  if (!data) throw new Error(`Uploaded product image ${name} not found`);
  const meta = await sharp(data).metadata();
  return { svg: '', raster: data, width: meta.width ?? 1, height: meta.height ?? 1 };
}

function loadTemplate(kind: AssetKind, name: string): Promise<Template> {
  const uploaded = kind === 'products' && UPLOADED_NAME.test(name);
  if (!uploaded && !SAFE_NAME.test(name)) return Promise.reject(new Error(`Bad asset name: ${name}`));
  const key = `${kind}/${name}`;
  let template = templates.get(key);
  if (!template) {
    template = uploaded
      ? loadUploaded(name)
      : readFile(`${ASSET_DIR}${key}`, 'utf8').then((svg) => {
          const viewBox = /viewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(svg);
          if (!viewBox) throw new Error(`Asset ${key} has no viewBox`);
          return { svg, width: Number(viewBox[1]), height: Number(viewBox[2]) };
        });
    template.catch(() => templates.delete(key));
    templates.set(key, template);
  }
  return template;
}

/** Height divided by width of an asset's drawing. */
export async function assetAspect(kind: AssetKind, name: string): Promise<number> {
  const { width, height } = await loadTemplate(kind, name);
  return height / width;
}

/** Snaps a width to a ~3 % geometric bucket so tiles of near-equal sizes share one cache entry. */
export function bucketWidth(width: number): number {
  const step = Math.log(1.03);
  return Math.max(4, Math.round(Math.exp(Math.round(Math.log(Math.max(4, width)) / step) * step)));
}

const SHADOWS: Record<ShadowKind, { dx: number; dy: number; sigma: number; opacity: number; contact: number }> = {
  floor: { dx: 0.022, dy: -0.004, sigma: 0.016, opacity: 0.3, contact: 0.5 },
  wall: { dx: 0.025, dy: 0.03, sigma: 0.016, opacity: 0.35, contact: 0 },
  rug: { dx: 0, dy: 0.006, sigma: 0.004, opacity: 0.25, contact: 0 },
  ceiling: { dx: 0.03, dy: 0.02, sigma: 0.03, opacity: 0.18, contact: 0 },
};

async function renderTile(
  kind: AssetKind,
  name: string,
  palette: Palette | null,
  width: number,
  shadow: ShadowKind,
): Promise<Tile> {
  const template = await loadTemplate(kind, name);
  const height = Math.max(1, Math.round((width * template.height) / template.width));
  // Photographs of real products keep their colours; only our vector artwork takes the style's palette.
  const source = template.raster
    ? sharp(template.raster)
    : sharp(Buffer.from(palette ? applyPalette(template.svg, palette) : template.svg), {
        density: Math.min(100_000, Math.max(1, (72 * width) / template.width)),
      });
  const piece = await source.resize(width, height, { fit: 'fill' }).ensureAlpha().raw().toBuffer();

  const look = SHADOWS[shadow];
  const sigma = Math.max(0.5, look.sigma * width);
  const dx = Math.round(look.dx * width);
  const dy = Math.round(look.dy * width);
  const pad = Math.ceil(sigma * 2.5) + Math.max(Math.abs(dx), Math.abs(dy)) + 2;
  const tileWidth = width + 2 * pad;
  const tileHeight = height + 2 * pad;

  // A dark copy of the piece's silhouette, shifted and blurred: the soft drop shadow.
  const silhouette = Buffer.alloc(width * height * 4);
  for (let i = 3; i < piece.length; i += 4) silhouette[i] = Math.round((piece[i] ?? 0) * look.opacity);
  const layers: OverlayOptions[] = [];
  if (look.contact > 0) {
    // A dark ellipse where the piece meets the floor, so it stands instead of floating.
    const rx = width * 0.56;
    const ry = Math.max(2, width * 0.045);
    layers.push({
      input: Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="${tileWidth}" height="${tileHeight}">` +
          `<defs><radialGradient id="c"><stop offset="0" stop-color="#000" stop-opacity="${look.contact}"/>` +
          `<stop offset="0.6" stop-color="#000" stop-opacity="${look.contact * 0.45}"/><stop offset="1" stop-color="#000" stop-opacity="0"/></radialGradient></defs>` +
          `<ellipse cx="${pad + width / 2}" cy="${pad + height - ry * 0.3}" rx="${rx}" ry="${ry}" fill="url(#c)"/></svg>`,
      ),
      left: 0,
      top: 0,
    });
  }
  layers.push({ input: piece, raw: { width, height, channels: 4 }, left: pad, top: pad });

  const blurredShadow = await sharp(silhouette, { raw: { width, height, channels: 4 } })
    .extend({
      top: pad + dy,
      bottom: pad - dy,
      left: pad + dx,
      right: pad - dx,
      background: { r: 0, g: 0, b: 0, alpha: 0 },
    })
    .blur(sigma)
    .raw()
    .toBuffer();
  const data = await sharp(blurredShadow, { raw: { width: tileWidth, height: tileHeight, channels: 4 } })
    .composite(layers)
    .raw()
    .toBuffer();
  return { data, width: tileWidth, height: tileHeight, pieceLeft: pad, pieceTop: pad };
}

const MAX_CACHE_BYTES = 256 * 1024 * 1024;
const cache = new Map<string, { tile: Promise<Tile>; bytes: number }>();
let cachedBytes = 0;

/** A cached tile; `width` should already be bucketed with bucketWidth. */
export function getTile(
  kind: AssetKind,
  name: string,
  palette: Palette | null,
  paletteKey: string,
  width: number,
  shadow: ShadowKind,
): Promise<Tile> {
  const key = `${kind}/${name}|${paletteKey}|${width}|${shadow}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key); // re-insert: Map order doubles as least-recently-used order
    cache.set(key, hit);
    return hit.tile;
  }
  const entry = { tile: renderTile(kind, name, palette, width, shadow), bytes: 0 };
  cache.set(key, entry);
  entry.tile.then(
    (tile) => {
      entry.bytes = tile.data.length;
      cachedBytes += entry.bytes;
      for (const [oldKey, old] of cache) {
        if (cachedBytes <= MAX_CACHE_BYTES) break;
        cache.delete(oldKey);
        cachedBytes -= old.bytes;
      }
    },
    () => cache.delete(key),
  );
  return entry.tile;
}

/**
 * The overlay for a tile whose piece's top-left corner goes at (x, y) in an image of the given size,
 * cropped to the image (libvips refuses overlays that stick out).
 */
export function tileOverlay(
  tile: Tile,
  x: number,
  y: number,
  imageWidth: number,
  imageHeight: number,
): OverlayOptions | null {
  const left = x - tile.pieceLeft;
  const top = y - tile.pieceTop;
  const x0 = Math.max(0, left);
  const y0 = Math.max(0, top);
  const x1 = Math.min(imageWidth, left + tile.width);
  const y1 = Math.min(imageHeight, top + tile.height);
  if (x1 <= x0 || y1 <= y0) return null;
  if (x0 === left && y0 === top && x1 === left + tile.width && y1 === top + tile.height) {
    return { input: tile.data, raw: { width: tile.width, height: tile.height, channels: 4 }, left, top };
  }
  const width = x1 - x0;
  const height = y1 - y0;
  const out = Buffer.allocUnsafe(width * height * 4);
  for (let row = 0; row < height; row++) {
    const from = ((y0 - top + row) * tile.width + (x0 - left)) * 4;
    tile.data.copy(out, row * width * 4, from, from + width * 4);
  }
  return { input: out, raw: { width, height, channels: 4 }, left: x0, top: y0 };
}
