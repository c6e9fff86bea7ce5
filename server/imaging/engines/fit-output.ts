/**
 * What every remote engine's picture goes through: providers answer in their own sizes (1024², 1536×1024, …) and
 * colour spaces, so the output is fitted back to the input's width and height after EXIF orientation (resize, then
 * centre crop) and finished as the built-in engine finishes its outputs (../finish.ts: the mark, sRGB, the encoding).
 * Also the other direction: what a provider is sent.
 */
import sharp, { type Metadata } from 'sharp';
import type { Disclosure, EngineImage } from '../engine.js';
import { finishOutput } from '../finish.js';
import { MAX_PIXELS } from '../input-rules.js';
import { EngineUnavailable, DEFAULT_RETRY_AFTER_SECONDS } from './failures.js';

export interface Size {
  width: number;
  height: number;
}

/**
 * The provider's picture at `size`, with the disclosure mark and QR code when `disclosure` asks for them; a picture that does not decode
 * is the provider's failure, not the caller's.
 */
export async function fitOutput(produced: Buffer, size: Size, disclosure: Disclosure = {}): Promise<EngineImage> {
  try {
    const fitted = sharp(produced, { limitInputPixels: MAX_PIXELS, failOn: 'error' })
      .rotate()
      .resize(size.width, size.height, { fit: 'cover', position: 'centre', kernel: 'lanczos3' })
      .flatten({ background: '#ffffff' });
    const { data, info } = await finishOutput(fitted, size, {
      label: disclosure.label,
      qrUrl: disclosure.qrUrl,
    }).toBuffer({ resolveWithObject: true });
    return { data, contentType: 'image/jpeg', extension: 'jpg', width: info.width, height: info.height };
  } catch {
    throw new EngineUnavailable(
      DEFAULT_RETRY_AFTER_SECONDS,
      'The staging engine returned a picture that could not be read; your credits were refunded.',
    );
  }
}

/** Providers work at about a megapixel or two; a larger upload only costs time. */
const PROVIDER_LONG_EDGE = 2048;

export interface ProviderInput extends Size {
  data: Buffer;
  contentType: 'image/jpeg';
}

/**
 * The input as providers are sent it: upright (EXIF applied), sRGB JPEG, long edge at most 2048 px, with no metadata
 * (a phone's EXIF names the place it was taken). An upload that already is exactly that goes as it is: decoding and
 * re-encoding it would cost a third of a remote image's CPU here and only lose quality.
 */
export async function providerInput(input: Buffer): Promise<ProviderInput> {
  const metadata = await sharp(input, { limitInputPixels: MAX_PIXELS }).metadata();
  if (sendableAsIs(input, metadata))
    return { data: input, contentType: 'image/jpeg', width: metadata.width, height: metadata.height };
  const { data, info } = await sharp(input, { limitInputPixels: MAX_PIXELS, failOn: 'error' })
    .rotate()
    .resize(PROVIDER_LONG_EDGE, PROVIDER_LONG_EDGE, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .toColourspace('srgb')
    .jpeg({ quality: 92 })
    .toBuffer({ resolveWithObject: true });
  return { data, contentType: 'image/jpeg', width: info.width, height: info.height };
}

/** A baseline or progressive sRGB JPEG, upright, small enough, carrying no metadata, and whole (ends with EOI). */
function sendableAsIs(input: Buffer, metadata: Metadata): boolean {
  return (
    metadata.format === 'jpeg' &&
    metadata.space === 'srgb' &&
    metadata.channels === 3 &&
    (metadata.orientation ?? 1) === 1 &&
    Math.max(metadata.width, metadata.height) <= PROVIDER_LONG_EDGE &&
    !metadata.exif &&
    !metadata.xmp &&
    !metadata.iptc &&
    !metadata.icc &&
    !metadata.comments?.length &&
    input.length >= 4 &&
    input[input.length - 2] === 0xff &&
    input[input.length - 1] === 0xd9
  );
}

export function dataUrlOf(image: ProviderInput): string {
  return `data:${image.contentType};base64,${image.data.toString('base64')}`;
}
