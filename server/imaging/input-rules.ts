/**
 * Input rules, checked from the bytes and the header alone: the format by magic numbers
 * (never a file name), the size, and the dimensions before any pixel is decoded.
 */
import sharp, { type Metadata } from 'sharp';
import { AppError } from '../errors.js';
import type { AcceptedFormat, ImageInfo } from './engine.js';

export const MAX_INPUT_BYTES = 15 * 1024 * 1024;
export const MIN_SIDE = 200;
export const MAX_SIDE = 10_000;
export const MAX_PIXELS = 50_000_000;
const ACCEPTED_LIST = 'JPEG, PNG, WebP, AVIF or TIFF';

type Sniffed = { kind: 'accepted'; format: AcceptedFormat } | { kind: 'other'; name: string } | { kind: 'unknown' };

const ascii = (input: Buffer, start: number, end: number) => input.toString('latin1', start, end);
const HEIC_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'hevm', 'hevs']);

export function sniffFormat(input: Buffer): Sniffed {
  if (input.length < 12) return { kind: 'unknown' };
  if (input[0] === 0xff && input[1] === 0xd8 && input[2] === 0xff) return { kind: 'accepted', format: 'jpeg' };
  if (input.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return { kind: 'accepted', format: 'png' };
  if (ascii(input, 0, 4) === 'RIFF' && ascii(input, 8, 12) === 'WEBP') return { kind: 'accepted', format: 'webp' };
  const tiffHead = ascii(input, 0, 4);
  if (tiffHead === 'II*\0' || tiffHead === 'MM\0*' || tiffHead === 'II+\0' || tiffHead === 'MM\0+')
    return { kind: 'accepted', format: 'tiff' };
  if (ascii(input, 4, 8) === 'ftyp') {
    const boxSize = Math.min(input.readUInt32BE(0), input.length, 256);
    const brands = [ascii(input, 8, 12)];
    for (let at = 16; at + 4 <= boxSize; at += 4) brands.push(ascii(input, at, at + 4));
    if (brands.includes('avif') || brands.includes('avis')) return { kind: 'accepted', format: 'avif' };
    if (brands.some((brand) => HEIC_BRANDS.has(brand)) || brands.includes('mif1') || brands.includes('msf1'))
      return { kind: 'other', name: 'HEIC/HEIF' };
    return { kind: 'unknown' };
  }
  const head6 = ascii(input, 0, 6);
  if (head6 === 'GIF87a' || head6 === 'GIF89a') return { kind: 'other', name: 'GIF' };
  if (
    ascii(input, 0, 2) === 'BM' &&
    input.length >= 18 &&
    [12, 40, 52, 56, 64, 108, 124].includes(input.readUInt32LE(14))
  )
    return { kind: 'other', name: 'BMP' };
  if (input.readUInt32BE(0) === 0x00000100) return { kind: 'other', name: 'ICO' };
  if (ascii(input, 0, 4) === '8BPS') return { kind: 'other', name: 'PSD' };
  if ((input[0] === 0xff && input[1] === 0x0a) || ascii(input, 4, 8) === 'JXL ')
    return { kind: 'other', name: 'JPEG XL' };
  if (ascii(input, 4, 8) === 'jP  ' || ascii(input, 0, 4) === '\xff\x4f\xff\x51')
    return { kind: 'other', name: 'JPEG 2000' };
  const text = input
    .toString('utf8', 0, Math.min(input.length, 4096))
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (
    (text.startsWith('<?xml') ||
      text.startsWith('<svg') ||
      text.startsWith('<!--') ||
      text.startsWith('<!DOCTYPE svg')) &&
    text.includes('<svg')
  ) {
    return { kind: 'other', name: 'SVG' };
  }
  return { kind: 'unknown' };
}

/** True when a JPEG has an end-of-image marker after its first scan; a cut-off upload has none. */
export function jpegLooksComplete(input: Buffer): boolean {
  let at = 2;
  while (at + 4 <= input.length) {
    if (input[at] !== 0xff) return true; // not a marker stream we understand: leave it to the decoder
    const marker = input.readUInt8(at + 1);
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === 0xda) return input.indexOf(Buffer.from([0xff, 0xd9]), at + 2) !== -1;
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2;
      continue;
    }
    at += 2 + input.readUInt16BE(at + 2);
  }
  return false;
}

function pngLooksComplete(input: Buffer): boolean {
  return input.lastIndexOf('IEND', undefined, 'latin1') > 8;
}

function invalid(message: string): AppError {
  return new AppError('invalid_image', message);
}

export async function inspectInput(input: Buffer): Promise<ImageInfo> {
  if (input.length > MAX_INPUT_BYTES) {
    throw new AppError(
      'payload_too_large',
      `The image is ${(input.length / 1024 / 1024).toFixed(1)} MB; the limit is 15 MB per image.`,
    );
  }
  const sniffed = sniffFormat(input);
  if (sniffed.kind === 'other') {
    throw new AppError('unsupported_media_type', `${sniffed.name} images are not accepted; send ${ACCEPTED_LIST}.`);
  }
  if (sniffed.kind === 'unknown') throw invalid(`The file is not a readable image; send ${ACCEPTED_LIST}.`);

  let metadata: Metadata;
  try {
    // Header only: no pixels are decoded here, so a decompression bomb costs nothing to refuse.
    metadata = await sharp(input, { limitInputPixels: false, failOn: 'error' }).metadata();
  } catch {
    throw invalid(`The ${sniffed.format.toUpperCase()} file could not be read; it may be damaged.`);
  }
  const format = acceptedFormat(metadata);
  if (!format)
    throw new AppError('unsupported_media_type', `This image format is not accepted; send ${ACCEPTED_LIST}.`);

  const swap = (metadata.orientation ?? 1) >= 5;
  const rawWidth = metadata.width ?? 0;
  const rawHeight = metadata.height ?? 0;
  const width = swap ? rawHeight : rawWidth;
  const height = swap ? rawWidth : rawHeight;
  if (width < MIN_SIDE || height < MIN_SIDE || width > MAX_SIDE || height > MAX_SIDE) {
    throw invalid(`The image is ${width}×${height} px; each side must be between ${MIN_SIDE} and ${MAX_SIDE} px.`);
  }
  if (width * height > MAX_PIXELS) {
    throw invalid(`The image is ${((width * height) / 1e6).toFixed(1)} megapixels; the limit is 50 megapixels.`);
  }
  if (format === 'jpeg' && !jpegLooksComplete(input))
    throw invalid('The JPEG file is truncated: it ends before the image data does.');
  if (format === 'png' && !pngLooksComplete(input))
    throw invalid('The PNG file is truncated: it ends before the image data does.');
  return { format, width, height };
}

function acceptedFormat(metadata: Metadata): AcceptedFormat | null {
  switch (metadata.format) {
    case 'jpeg':
    case 'png':
    case 'webp':
    case 'tiff':
      return metadata.format;
    case 'heif':
      return metadata.compression === 'av1' ? 'avif' : null;
    default:
      return null;
  }
}

/** sharp reports damaged pixel data only when decoding; those failures are the client's bad image, not ours. */
export function isDecodeFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return /premature end|corrupt|truncat|unsupported image format|input (buffer|file|image)|vipsjpeg|vipspng|pngload|jpegload|webpload|tiffload|heifload|read error|invalid|bad (huffman|data|seek)|decod|pixel limit|libpng|libtiff|libheif/i.test(
    error.message,
  );
}
