/**
 * Is this a photo of a room? Decided from image statistics of a small upright copy (long edge WORK_EDGE), before
 * any charge. A room photo has large smooth planes (walls, ceiling, floor), strong straight edges that run mostly
 * vertically and horizontally (corners, door and window frames, skirting), and muted colours. What is refused is
 * what positively looks like something else: dense fine texture with no smooth plane (a circuit board, gravel,
 * grass, a printed page), strongly saturated colour over much of the picture (fruit, a poster), or strong edges
 * that are mostly curved or oblique (a face, an animal, a cup). A picture with too little structure to tell is let
 * through: refusing a real room costs the customer more than staging an odd picture.
 * Deterministic: the same bytes give the same answer. Measured by bench:room-check (docs/contributors/benchmarks.md).
 */
import sharp from 'sharp';
import { AppError } from '../errors.js';
import { MAX_PIXELS } from './input-rules.js';

const WORK_EDGE = 256;
/** Sobel |gx| + |gy| of grey levels counted as an edge, and as a strong (structural) edge. */
const EDGE = 48;
const STRONG_EDGE = 120;
/** Blocks of BLOCK × BLOCK work pixels whose grey spread is at most SMOOTH_SPREAD count as a smooth plane. */
const BLOCK = 8;
const SMOOTH_SPREAD = 5;
/** An edge runs "straight up or across" when its gradient is within this angle of an axis. */
const AXIS_DEGREES = 12;

export interface RoomMeasures {
  /** Share of pixels on an edge. */
  edges: number;
  /** Share of blocks that are smooth planes. */
  smooth: number;
  /** Mean HSV saturation of the pixels that are not near black. */
  saturation: number;
  /** Share of pixels that are strongly saturated (a vivid colour, not a tinted wall). */
  vivid: number;
  /** Among strong edges, the share running vertically or horizontally; uniform directions give about 0.27. */
  axis: number;
  /** Strong-edge pixels, as a share of all pixels: below MIN_STRONG the axis share says little. */
  strong: number;
}

export type RoomVerdict =
  | { room: true; measures: RoomMeasures }
  | { room: false; measures: RoomMeasures; reason: string };

/** Thresholds: see bench:room-check for how they fare on real room photos and on pictures that are not rooms. */
export const ROOM_RULES = {
  /** Texture: this many edge pixels and this few smooth blocks is a pattern, not a room. */
  textureEdges: 0.3,
  textureSmooth: 0.08,
  /** Colour: a room photo has muted colour; this much vivid colour is something else. */
  vividShare: 0.35,
  meanSaturation: 0.55,
  /** Shape: with enough strong edges, this few of them straight up or across is not a room. */
  minStrong: 0.01,
  minAxis: 0.34,
} as const;

export async function measureRoomPhoto(input: Buffer): Promise<RoomMeasures> {
  const { data, info } = await sharp(input, { limitInputPixels: MAX_PIXELS, failOn: 'error' })
    .rotate()
    .resize({ width: WORK_EDGE, height: WORK_EDGE, fit: 'inside', kernel: 'linear' })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  const count = width * height;
  const grey = new Float32Array(count);
  let saturationSum = 0;
  let lit = 0;
  let vivid = 0;
  for (let i = 0; i < count; i++) {
    const r = data[i * channels] ?? 0;
    const g = channels > 1 ? (data[i * channels + 1] ?? 0) : r;
    const b = channels > 2 ? (data[i * channels + 2] ?? 0) : r;
    grey[i] = 0.299 * r + 0.587 * g + 0.114 * b;
    const max = Math.max(r, g, b);
    const min = Math.min(r, g, b);
    if (max < 40) continue;
    const saturation = (max - min) / max;
    lit++;
    saturationSum += saturation;
    if (saturation > 0.5 && max > 80) vivid++;
  }
  let edges = 0;
  let strong = 0;
  let axis = 0;
  const tan = Math.tan((AXIS_DEGREES * Math.PI) / 180);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const at = (dx: number, dy: number) => grey[(y + dy) * width + x + dx] ?? 0;
      const gx = at(1, -1) + 2 * at(1, 0) + at(1, 1) - at(-1, -1) - 2 * at(-1, 0) - at(-1, 1);
      const gy = at(-1, 1) + 2 * at(0, 1) + at(1, 1) - at(-1, -1) - 2 * at(0, -1) - at(1, -1);
      const magnitude = Math.abs(gx) + Math.abs(gy);
      if (magnitude < EDGE) continue;
      edges++;
      if (magnitude < STRONG_EDGE) continue;
      strong++;
      const ax = Math.abs(gx);
      const ay = Math.abs(gy);
      if (ay <= tan * ax || ax <= tan * ay) axis++;
    }
  }
  let blocks = 0;
  let smooth = 0;
  for (let by = 0; by + BLOCK <= height; by += BLOCK) {
    for (let bx = 0; bx + BLOCK <= width; bx += BLOCK) {
      let low = 255;
      let high = 0;
      for (let y = by; y < by + BLOCK; y++) {
        for (let x = bx; x < bx + BLOCK; x++) {
          const value = grey[y * width + x] ?? 0;
          if (value < low) low = value;
          if (value > high) high = value;
        }
      }
      blocks++;
      if (high - low <= SMOOTH_SPREAD) smooth++;
    }
  }
  const inner = Math.max(1, (width - 2) * (height - 2));
  return {
    edges: edges / inner,
    smooth: blocks ? smooth / blocks : 0,
    saturation: lit ? saturationSum / lit : 0,
    vivid: vivid / count,
    axis: strong ? axis / strong : 0,
    strong: strong / inner,
  };
}

export async function judgeRoomPhoto(input: Buffer): Promise<RoomVerdict> {
  const measures = await measureRoomPhoto(input);
  const rules = ROOM_RULES;
  if (measures.edges >= rules.textureEdges && measures.smooth <= rules.textureSmooth)
    return { room: false, measures, reason: 'it is a dense texture with no wall, floor or ceiling plane' };
  if (measures.vivid >= rules.vividShare || measures.saturation >= rules.meanSaturation)
    return { room: false, measures, reason: 'its colours are far more vivid than a room’s' };
  if (measures.strong >= rules.minStrong && measures.axis < rules.minAxis)
    return {
      room: false,
      measures,
      reason: 'few of its strong lines run straight up or across, as a room’s walls, doors and windows do',
    };
  return { room: true, measures };
}

/**
 * Refuses (422 `not_a_room`) a picture that is not a photo of a room, for the operations that treat their input as
 * one (stage, declutter, place products); `index` names the image of a multi-image request.
 */
export async function assertRoomPhoto(input: Buffer, index?: number): Promise<void> {
  const verdict = await judgeRoomPhoto(input);
  if (verdict.room) return;
  const which = index === undefined ? 'The image' : `Image ${index + 1}`;
  throw new AppError(
    'not_a_room',
    `${which} does not look like a photo of a room (${verdict.reason}); send an interior photo. Nothing was charged.`,
    index === undefined ? {} : { image_index: index },
  );
}
