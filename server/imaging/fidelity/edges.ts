/** Edges of the working picture (Sobel, thinned to lines) and whether each has a counterpart in the other picture. */
import { cellRegions, square } from './cells.js';
import type { Grey } from './picture.js';
import { filled } from '../filled.js';

/** Sobel magnitude (|gx| + |gy| of grey levels) of an edge worth keeping: a step of about 8 grey levels. */
export const EDGE_MIN = 32;
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
 * A local tone operator (HDR-like local contrast, a shadow lift) raises every edge of a neighbourhood by about one
 * factor: the median ratio of output to photo strength over the edges both pictures draw at the same pixel, taken per
 * block of GAIN_BLOCK work pixels over the block and the GAIN_REACH blocks around it, from GAIN_SAMPLES such edges,
 * kept within 1–GAIN_MAX. Where it is above 1 an output edge is matched by a photo edge that much weaker, but at least
 * GAIN_FLOOR strong (a step of 3 grey levels: faint detail, not a plain wall's noise).
 */
const GAIN_BLOCK = 16;
const GAIN_REACH = 1;
const GAIN_SAMPLES = 24;
const GAIN_MAX = 3;
const GAIN_FLOOR = 12;
const GAIN_BINS_PER_DOUBLING = 32;

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
  /** Per pixel, the step to the next pixel across the edge (1, width, width + 1 or width - 1). */
  across: Int32Array;
}

/**
 * An edge runs upright (its gradient across it horizontal) when the horizontal gradient is this many times the
 * vertical one, and level in the mirrored case; in between it runs diagonally.
 */
export const UPRIGHT = 2.4;

/** The Sobel gradient (across, down) of `data` at pixel `i`, which is not on the picture's border. */
export function gradientAt(data: Float32Array, i: number, width: number): [number, number] {
  const nw = data[i - width - 1] as number;
  const n = data[i - width] as number;
  const ne = data[i - width + 1] as number;
  const w = data[i - 1] as number;
  const e = data[i + 1] as number;
  const sw = data[i + width - 1] as number;
  const s = data[i + width] as number;
  const se = data[i + width + 1] as number;
  return [ne + 2 * e + se - nw - 2 * w - sw, sw + 2 * s + se - nw - 2 * n - ne];
}

export function sobel({ data, width, height }: Grey, gain: number): Edges {
  const magnitude = filled(Float32Array, width * height);
  const direction = filled(Uint8Array, width * height);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1, i = y * width + 1; x < width - 1; x++, i++) {
      const [gx, gy] = gradientAt(data, i, width);
      const ax = Math.abs(gx);
      const ay = Math.abs(gy);
      magnitude[i] = gain * (ax + ay);
      // Only an edge's direction is asked for (below, of the magnitude as stored, in single precision). 0: across is
      // horizontal, 1: vertical, 2 and 3: the diagonals.
      if ((magnitude[i] as number) < EDGE_MIN) continue;
      direction[i] = ax > UPRIGHT * ay ? 0 : ay > UPRIGHT * ax ? 1 : gx * gy > 0 ? 2 : 3;
    }
  }
  const line = filled(Uint8Array, width * height);
  const steps = [1, width, width + 1, width - 1];
  const across = filled(Int32Array, width * height);
  for (let y = 2; y < height - 2; y++) {
    for (let x = 2, i = y * width + 2; x < width - 2; x++, i++) {
      const m = magnitude[i] as number;
      if (m < EDGE_MIN) continue;
      const step = steps[direction[i] as number] as number;
      across[i] = step;
      if (m >= (magnitude[i - step] as number) && m > (magnitude[i + step] as number)) line[i] = 1;
    }
  }
  return { magnitude, line, across };
}

/**
 * 1 where one of `edges`' line pixels has no edge of at least MATCH_SHARE of its strength in `other` within
 * MATCH_RADIUS pixels (a square). Only line pixels are looked around, a few per cent of the picture. Not counted:
 * - an edge where the other picture is clipped all around it (`otherGrey` at CLIPPED of white or black): a brighter
 *   exposure blows a pale ceiling or a window's view out to white, and no tone keeps an edge there;
 * - with `dropSpecks`, pieces of fewer than SPECK pixels touching no other: sharpening raises a plain wall's grain
 *   into specks that no line of the room is made of;
 * - an edge `flattened` says the picture-wide tone squeezed out of sight (flattenedByTone).
 * With `localGain` (localContrastGain, for the output's edges), the other picture's edge may be weaker by that factor.
 */
export function unmatched(
  edges: Edges,
  other: Float32Array,
  width: number,
  height: number,
  otherGrey: Float32Array,
  dropSpecks = false,
  flattened?: (i: number) => boolean,
  localGain?: Float32Array,
): Uint8Array {
  const out = filled(Uint8Array, width * height);
  const { line, magnitude } = edges;
  for (let y = BORDER; y < height - BORDER; y++) {
    for (let x = BORDER, i = y * width + BORDER; x < width - BORDER; x++, i++) {
      if (!line[i]) continue;
      const share = Math.max(EDGE_MIN * MATCH_SHARE, MATCH_SHARE * (magnitude[i] as number));
      const need = localGain ? Math.max(GAIN_FLOOR, share / (localGain[i] as number)) : share;
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
      if (!found && !clippedAround(otherGrey, i, width) && !flattened?.(i)) out[i] = 1;
    }
  }
  if (dropSpecks)
    for (const piece of cellRegions(width, height, (i) => out[i] === 1, square(1)))
      if (piece.cells.length < SPECK) for (const i of piece.cells) out[i] = 0;
  return out;
}

/**
 * Per pixel, how many times stronger the output draws the edges around it than the photo does (see GAIN_BLOCK): 1
 * where it draws them no stronger, or where too few edges are shared to tell. The factor is the room's: a window
 * pasted on a plain wall draws its edges where the photo has none, so they do not count towards it.
 */
export function localContrastGain(before: Edges, after: Edges, width: number, height: number): Float32Array {
  const blocksX = Math.ceil(width / GAIN_BLOCK);
  const blocksY = Math.ceil(height / GAIN_BLOCK);
  // Per block, a histogram of the shared edges' ratios: one bin for "no stronger" (1 or less), GAIN_BINS_PER_DOUBLING
  // bins per doubling up to GAIN_MAX, one bin above it; only a median between those ends matters. (Pooling and
  // sorting each block's ratios with its neighbours' cost about 20 ms a check; these histograms, under one.)
  const bins = Math.ceil(Math.log2(GAIN_MAX) * GAIN_BINS_PER_DOUBLING) + 2;
  const own = filled(Uint16Array, blocksX * blocksY * bins);
  const { line: afterLine, magnitude: afterMagnitude } = after;
  const { line: beforeLine, magnitude: beforeMagnitude } = before;
  for (let y = 0; y < height; y++) {
    const row = Math.floor(y / GAIN_BLOCK) * blocksX;
    for (let x = 0, i = y * width; x < width; x++, i++) {
      if (!afterLine[i] || !beforeLine[i]) continue;
      const doublings = Math.log2((afterMagnitude[i] as number) / (beforeMagnitude[i] as number));
      const bin = doublings <= 0 ? 0 : Math.min(bins - 1, 1 + Math.floor(doublings * GAIN_BINS_PER_DOUBLING));
      const at = (row + Math.floor(x / GAIN_BLOCK)) * bins + bin;
      own[at] = (own[at] as number) + 1;
    }
  }
  // Summed over the GAIN_REACH blocks on either side: along each row of blocks, then down each column.
  const across = filled(Uint32Array, own.length);
  const around = filled(Uint32Array, own.length);
  for (let by = 0; by < blocksY; by++)
    for (let bx = 0; bx < blocksX; bx++)
      for (let nx = Math.max(0, bx - GAIN_REACH); nx <= Math.min(blocksX - 1, bx + GAIN_REACH); nx++)
        for (let bin = 0, to = (by * blocksX + bx) * bins, from = (by * blocksX + nx) * bins; bin < bins; bin++)
          across[to + bin] = (across[to + bin] as number) + (own[from + bin] as number);
  for (let by = 0; by < blocksY; by++)
    for (let ny = Math.max(0, by - GAIN_REACH); ny <= Math.min(blocksY - 1, by + GAIN_REACH); ny++)
      for (let k = 0, to = by * blocksX * bins, from = ny * blocksX * bins; k < blocksX * bins; k++)
        around[to + k] = (around[to + k] as number) + (across[from + k] as number);
  const gain = filled(Float32Array, width * height, 1);
  for (let block = 0; block < blocksX * blocksY; block++) {
    const base = block * bins;
    let count = 0;
    for (let bin = 0; bin < bins; bin++) count += around[base + bin] as number;
    if (count < GAIN_SAMPLES) continue;
    // The median's bin, and the ratio at its lower end (never above the median itself).
    const bin = binOfRank(around, (count - 1) / 2, base, bins);
    if (bin === 0) continue;
    const factor = Math.min(GAIN_MAX, 2 ** ((bin - 1) / GAIN_BINS_PER_DOUBLING));
    const bx = block % blocksX;
    const by = (block - bx) / blocksX;
    for (let y = by * GAIN_BLOCK; y < Math.min(height, (by + 1) * GAIN_BLOCK); y++)
      gain.fill(factor, y * width + bx * GAIN_BLOCK, y * width + Math.min(width, (bx + 1) * GAIN_BLOCK));
  }
  return gain;
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

/** Grey levels per bin of the picture-wide tone curve; a bin needs TONE_SAMPLES pixels to count. */
const TONE_BIN = 16;
const TONE_SAMPLES = 20;
/**
 * Where the tone curve maps both sides of an edge this close to white (or black), a photo's edge that the curve
 * flattens below what matching asks for (MATCH_SHARE of its strength) may be squeezed rather than lost: three times
 * the clipped margin.
 */
const TONE_NEAR = 3 * CLIPPED;
/** ...and where the output still shows at least this share of the step the curve predicts (and 1 grey level). */
const TONE_KEPT = 0.5;

/**
 * Whether the photo's edge at `i` is one the picture-wide tone curve (toneCurve) squeezes near white or black: both its
 * sides map within TONE_NEAR of the end, the curve's slope between them, times the contrast gain, is below
 * MATCH_SHARE, and the output still steps across it the same way, only less (TONE_KEPT). A brighter exposure
 * compresses a white closet's louvres or a pale ceiling's mouldings towards white before it clips them.
 */
export function flattenedByTone(
  before: Grey,
  after: Grey,
  edges: Edges,
  gain: number,
  curve: Float32Array,
): (i: number) => boolean {
  const { width } = before;
  const level = (v: number) => curve[Math.min(255, Math.max(0, Math.round(v)))] as number;
  return (i) => {
    // The photo's grey two pixels to either side, across the edge.
    const across = edges.across[i] as number;
    const step = 2 * across;
    const a = before.data[i - step] as number;
    const b = before.data[i + step] as number;
    if (Math.abs(a - b) < 1) return false;
    const [low, high] = level(a) < level(b) ? [level(a), level(b)] : [level(b), level(a)];
    if (low < 255 - TONE_NEAR && high > TONE_NEAR) return false;
    if ((gain * (high - low)) / Math.abs(a - b) >= MATCH_SHARE) return false;
    // Squeezed, not gone: the output still steps the same way across the edge (averaged over three pixels along it),
    // by at least TONE_KEPT of what the curve predicts. A window painted over with the wall shows no step at all,
    // even where its own pixels, most of a band's, pulled the curve.
    const along = across === 1 ? width : across === width ? 1 : across === width + 1 ? width - 1 : width + 1;
    let shown = 0;
    for (const k of [i - along, i, i + along])
      shown += (after.data[k + step] as number) - (after.data[k - step] as number);
    shown /= 3;
    return (
      Math.sign(shown) === Math.sign(b - a) && Math.abs(shown) >= Math.max(1, TONE_KEPT * Math.abs(level(b) - level(a)))
    );
  };
}

/**
 * The picture-wide tone curve: for each grey level of the photo, the grey level the output shows there (the median
 * per bin of TONE_BIN levels over the pixels `weights` checks, made non-decreasing, interpolated between the bins'
 * centres and extended at slope 1 past the first and last).
 */
export function toneCurve(before: Float32Array, after: Float32Array, weights: Float32Array): Float32Array {
  const bins = 256 / TONE_BIN;
  const histograms = Array.from({ length: bins }, () => new Uint32Array(256));
  const counts = new Uint32Array(bins);
  for (let i = 0; i < before.length; i++) {
    if (!((weights[i] as number) > 0)) continue;
    const bin = Math.min(bins - 1, Math.floor((before[i] as number) / TONE_BIN));
    const level = Math.min(255, Math.max(0, Math.round(after[i] as number)));
    const histogram = histograms[bin] as Uint32Array;
    histogram[level] = (histogram[level] as number) + 1;
    counts[bin] = (counts[bin] as number) + 1;
  }
  const centres: number[] = [];
  const values: number[] = [];
  for (let bin = 0; bin < bins; bin++) {
    const count = counts[bin] as number;
    if (count < TONE_SAMPLES) continue;
    const level = binOfRank(histograms[bin] as Uint32Array, count / 2);
    centres.push(bin * TONE_BIN + TONE_BIN / 2);
    values.push(Math.max(level, values.at(-1) ?? 0));
  }
  const curve = new Float32Array(256);
  const last = centres.length - 1;
  for (let v = 0, k = 0; v < 256; v++) {
    if (last < 0) curve[v] = v;
    else if (v <= (centres[0] as number)) curve[v] = (values[0] as number) + v - (centres[0] as number);
    else if (v >= (centres[last] as number)) curve[v] = (values[last] as number) + v - (centres[last] as number);
    else {
      while ((centres[k + 1] as number) < v) k++;
      const t = (v - (centres[k] as number)) / ((centres[k + 1] as number) - (centres[k] as number));
      curve[v] = (values[k] as number) + t * ((values[k + 1] as number) - (values[k] as number));
    }
  }
  return curve;
}

/**
 * The bin of a histogram (`length` bins from `offset` in `histogram`) that holds the value of rank `rank` (0 for the
 * smallest; a fractional rank, the one below it): the first whose running count passes it, the last bin at most.
 */
export function binOfRank(
  histogram: ArrayLike<number>,
  rank: number,
  offset = 0,
  length = histogram.length - offset,
): number {
  let seen = 0;
  let bin = 0;
  while (bin < length - 1 && seen + (histogram[offset + bin] as number) <= rank)
    seen += histogram[offset + bin++] as number;
  return bin;
}
