/**
 * An advertiser's product picture: PNG or WebP with transparent pixels (a cut-out the engine can stand in a room),
 * ≤ 5 MB, 200–4 000 px a side. It is decoded and re-encoded as PNG, so nothing but pixels is kept (no metadata, no
 * embedded profile or script), and SVG never gets in.
 */
import sharp from 'sharp';
import { AppError } from '../errors.js';
import { sniffFormat } from './input-rules.js';

export const MAX_PRODUCT_IMAGE_BYTES = 5 * 1024 * 1024;
export const PRODUCT_IMAGE_MIN_SIDE = 200;
export const PRODUCT_IMAGE_MAX_SIDE = 4000;

export interface ProductImage {
  data: Buffer;
  width: number;
  height: number;
}

export async function prepareProductImage(input: Buffer): Promise<ProductImage> {
  if (input.length > MAX_PRODUCT_IMAGE_BYTES)
    throw new AppError('payload_too_large', 'A product image may be at most 5 MB.');
  const sniffed = sniffFormat(input);
  if (
    sniffed.kind === 'other' ||
    (sniffed.kind === 'accepted' && sniffed.format !== 'png' && sniffed.format !== 'webp')
  )
    throw new AppError(
      'unsupported_media_type',
      `A product image must be a PNG or WebP with transparency (got ${sniffed.kind === 'other' ? sniffed.name : sniffed.format.toUpperCase()}).`,
    );
  if (sniffed.kind === 'unknown')
    throw new AppError('invalid_image', 'The product image is not a decodable PNG or WebP.');
  let width: number;
  let height: number;
  let hasAlpha: boolean;
  try {
    // The header only (no pixels are decoded here), so a picture of any size gets its size checked below and is
    // called too large, not undecodable. Decoding happens only within the limits.
    const meta = await sharp(input, { limitInputPixels: false }).metadata();
    width = meta.width ?? 0;
    height = meta.height ?? 0;
    hasAlpha = meta.hasAlpha === true;
  } catch {
    throw new AppError('invalid_image', 'The product image is not a decodable PNG or WebP.');
  }
  const sides = [width, height];
  const range = `${PRODUCT_IMAGE_MIN_SIDE}–${PRODUCT_IMAGE_MAX_SIDE} px a side (got ${width}×${height})`;
  if (sides.some((side) => side > PRODUCT_IMAGE_MAX_SIDE))
    throw new AppError('invalid_image', `The product image is too large: it must be ${range}.`);
  if (sides.some((side) => side < PRODUCT_IMAGE_MIN_SIDE))
    throw new AppError('invalid_image', `The product image is too small: it must be ${range}.`);
  const noTransparency = () =>
    new AppError(
      'invalid_image',
      'The product image has no transparent pixels: upload a cut-out on a transparent background.',
    );
  if (!hasAlpha) throw noTransparency();
  try {
    const { data, info } = await sharp(input).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    let transparent = false;
    for (let i = info.channels - 1; i < data.length; i += info.channels) {
      if ((data[i] ?? 255) < 255) {
        transparent = true;
        break;
      }
    }
    if (!transparent) throw noTransparency();
    // Re-encoded from the raw pixels: only the pixels survive.
    const png = await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    return { data: png, width: info.width, height: info.height };
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('invalid_image', 'The product image is not a decodable PNG or WebP.');
  }
}
