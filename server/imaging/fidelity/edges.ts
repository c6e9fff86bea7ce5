/** Edges of the working picture (Sobel, thinned to lines) and whether each has a counterpart in the other picture. */
import { cellRegions, square } from './cells.js';
import type { Grey } from './picture.js';

/** Sobel magnitude (|gx| + |gy| of grey levels) of an edge worth keeping: a step of about 8 grey levels. */
const EDGE_MIN = 32;
/** An edge is matched when the other picture has at least this share of its strength within MATCH_RADIUS pixels. */
const MATCH_SHARE = 0.4;
const MATCH_RADIUS = 2;
/**
 * Grey levels this close to white or black are clipped: JPEG leaves a blown-out area a few levels short of 255 (247–255
 * measured on a real photo brightened by a fifth).
 */
const CLIPPED = 8;
/** Unmatched pieces of fewer pixels than this (8-connected) are specks when specks are dropped. */
const SPECK = 3;
/** Pixels along the border are skipped: resampling and a centre crop disturb them. */
const BORDER = 3;

/**
 * A colour grade scales contrast; the output's gradients are brought to the input's by the ratio of grey spread in
 * the checked region (kept within 0.5–2, so a changed room cannot hide behind it).
 */
export function contrastGain(before: Grey, after: Grey, mask: Float32Array): number {
  const spread = (image: Grey) => {
    let weight = 0;
    let sum = 0;
    let squares = 0;
    for (let i = 0; i < image.data.length; i++) {
      const w = mask[i] ?? 0;
      const v = image.data[i] ?? 0;
      weight += w;
      sum += w * v;
      squares += w * v * v;
    }
    if (weight < 1) return 0;
    const mean = sum / weight;
    return Math.sqrt(Math.max(0, squares / weight - mean * mean));
  };
  const a = spread(before);
  const b = spread(after);
  if (a < 1 || b < 1) return 1;
  return Math.min(2, Math.max(0.5, a / b));
}

export interface Edges {
  magnitude: Float32Array;
  /** Thinned edge pixels (local maxima across the edge) above EDGE_MIN. */
  line: Uint8Array;
}

export function sobel({ data, width, height }: Grey, gain: number): Edges {
  const magnitude = new Float32Array(width * height);
  const direction = new Uint8Array(width * height);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1, i = y * width + 1; x < width - 1; x++, i++) {
      const nw = data[i - width - 1] as number;
      const n = data[i - width] as number;
      const ne = data[i - width + 1] as number;
      const w = data[i - 1] as number;
      const e = data[i + 1] as number;
      const sw = data[i + width - 1] as number;
      const s = data[i + width] as number;
      const se = data[i + width + 1] as number;
      const gx = ne + 2 * e + se - nw - 2 * w - sw;
      const gy = sw + 2 * s + se - nw - 2 * n - ne;
      const ax = Math.abs(gx);
      const ay = Math.abs(gy);
      magnitude[i] = gain * (ax + ay);
      // 0: across is horizontal, 1: vertical, 2 and 3: the diagonals.
      direction[i] = ax > 2.4 * ay ? 0 : ay > 2.4 * ax ? 1 : gx * gy > 0 ? 2 : 3;
    }
  }
  const line = new Uint8Array(width * height);
  const steps = [1, width, width + 1, width - 1];
  for (let y = 2; y < height - 2; y++) {
    for (let x = 2, i = y * width + 2; x < width - 2; x++, i++) {
      const m = magnitude[i] as number;
      if (m < EDGE_MIN) continue;
      const step = steps[direction[i] as number] as number;
      if (m >= (magnitude[i - step] as number) && m > (magnitude[i + step] as number)) line[i] = 1;
    }
  }
  return { magnitude, line };
}

/**
 * 1 where one of `edges`' line pixels has no edge of at least MATCH_SHARE of its strength in `other` within
 * MATCH_RADIUS pixels (a square). Only line pixels are looked around, a few per cent of the picture. Not counted:
 * - an edge where the other picture is clipped all around it (`otherGrey` at CLIPPED of white or black): a brighter
 *   exposure blows a pale ceiling or a window's view out to white, and no tone keeps an edge there;
 * - with `dropSpecks`, pieces of fewer than SPECK pixels touching no other: sharpening raises a plain wall's grain
 *   into specks that no line of the room is made of.
 */
export function unmatched(
  edges: Edges,
  other: Float32Array,
  width: number,
  height: number,
  otherGrey: Float32Array,
  dropSpecks = false,
): Uint8Array {
  const out = new Uint8Array(width * height);
  const { line, magnitude } = edges;
  for (let y = BORDER; y < height - BORDER; y++) {
    for (let x = BORDER, i = y * width + BORDER; x < width - BORDER; x++, i++) {
      if (!line[i]) continue;
      const need = Math.max(EDGE_MIN * MATCH_SHARE, MATCH_SHARE * (magnitude[i] as number));
      let found = false;
      for (let dy = -MATCH_RADIUS; dy <= MATCH_RADIUS && !found; dy++) {
        const row = i + dy * width;
        for (let j = row - MATCH_RADIUS; j <= row + MATCH_RADIUS; j++) {
          if ((other[j] as number) >= need) {
            found = true;
            break;
          }
        }
      }
      if (!found && !clippedAround(otherGrey, i, width)) out[i] = 1;
    }
  }
  if (dropSpecks)
    for (const piece of cellRegions(width, height, (i) => out[i] === 1, square(1)))
      if (piece.cells.length < SPECK) for (const i of piece.cells) out[i] = 0;
  return out;
}

/** Whether the 3 × 3 pixels around `i` are all within CLIPPED grey levels of white, or all of black. */
function clippedAround(grey: Float32Array, i: number, width: number): boolean {
  let high = true;
  let low = true;
  for (let dy = -1; dy <= 1; dy++)
    for (let dx = -1; dx <= 1; dx++) {
      const v = grey[i + dy * width + dx] as number;
      if (v < 255 - CLIPPED) high = false;
      if (v > CLIPPED) low = false;
    }
  return high || low;
}
