/**
 * The working picture the fidelity check compares: decoded small (long edge WORK_EDGE, upright; JPEG shrinks on load,
 * so a 12-megapixel photo costs a reduced-size decode), in grey and in colour.
 */
import sharp from 'sharp';
import { MAX_PIXELS } from '../input-rules.js';
import type { Raster } from '../register.js';
import { filled } from '../filled.js';

/** Long edge of the working picture, in pixels. */
export const WORK_EDGE = 320;

export interface Grey {
  data: Float32Array;
  width: number;
  height: number;
  /** The same pixels in colour: the room's lines are easier to find in colour than in grey. */
  colour: Raster;
}

export async function decodeSmall(image: Buffer): Promise<Grey> {
  const { data, info } = await sharp(image, { failOn: 'none', limitInputPixels: MAX_PIXELS })
    .rotate()
    .resize(WORK_EDGE, WORK_EDGE, { fit: 'inside', withoutEnlargement: true, kernel: 'linear' })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  return greyOf({
    data: new Uint8Array(data.buffer, data.byteOffset, data.length),
    width: info.width,
    height: info.height,
    channels: info.channels,
  });
}

/** The grey levels of a colour (or grey) raster. */
export function greyOf(colour: Raster): Grey {
  const count = colour.width * colour.height;
  const grey = filled(Float32Array, count);
  const { channels, data: bytes } = colour;
  const g = channels >= 3 ? 1 : 0;
  const b = channels >= 3 ? 2 : 0;
  for (let i = 0, j = 0; i < count; i++, j += channels)
    grey[i] = 0.299 * (bytes[j] as number) + 0.587 * (bytes[j + g] as number) + 0.114 * (bytes[j + b] as number);
  return { data: grey, width: colour.width, height: colour.height, colour };
}

/** The picture's width and height after EXIF orientation, from the header. */
export async function uprightSize(image: Buffer): Promise<{ width: number; height: number }> {
  const meta = await sharp(image, { failOn: 'none', limitInputPixels: MAX_PIXELS }).metadata();
  const width = meta.width ?? 1;
  const height = meta.height ?? 1;
  return (meta.orientation ?? 1) >= 5 ? { width: height, height: width } : { width, height };
}
