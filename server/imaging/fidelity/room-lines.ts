/** The back wall's ceiling and floor lines, found in the photo, and the default mask they give. */
import type { Grey } from './picture.js';
import { filled } from '../filled.js';

/**
 * Without a scene: furniture stands on the floor, and a piece lower than the camera never rises above the horizon,
 * which in a room photo lies about halfway between the back wall's ceiling line and floor line. Rows above
 * FULL_CHECK of the way down that wall are checked fully; the weight falls to 0 at NO_CHECK and stays 0 on the floor.
 */
const FULL_CHECK = 0.5;
/** Columns summed together when looking for the room's lines. */
const ROW_STEP_BLOCK = 4;
/** Rows above and below a candidate line that are compared (share of the picture height): the line itself is sharp. */
const LINE_WINDOW = 0.015;
/** Least step (colour distance, ramps discounted) that marks the floor line, and the ceiling line. */
const LINE_MIN = 4;
const CEILING_LINE_MIN = 1.5;
const NO_CHECK = 0.9;
/**
 * A line this strong against the strongest one, lower in the picture, is taken for the floor line, and higher up, for
 * the ceiling line (outermostStrongStep).
 */
const OUTER_LINE_SHARE = 0.85;
/**
 * The ceiling is above the camera, so in a level photo (listing photos are taken with upright verticals) the back
 * wall's ceiling line lies above the horizon, the middle row, by at least a twentieth of the picture (half a metre
 * of wall up to the ceiling, seen from across a room). The ceiling line is looked for no lower than this share of the
 * height: below it, the strongest line is a window wall's heads or a transom, and a wall read that short takes a
 * staged table in front of the windows for something as tall as a door. Which of such lines came out on top was
 * decided by the compression: a real dining room's ceiling line was found, re-encoded, at six tenths of the height.
 */
const CEILING_LOWEST = 0.45;

/** The back wall's ceiling line and floor line (rows of the working picture), from the input. */
export interface RoomLines {
  ceiling: number;
  floor: number;
}

export function roomLines(image: Grey): RoomLines {
  const { height } = image;
  const steps = lineProminence(rowSteps(image), Math.max(2, Math.round(LINE_WINDOW * height)));
  const floor = outermostStrongStep(
    steps,
    Math.round(0.35 * height),
    Math.round(0.9 * height),
    0.6 * height,
    LINE_MIN,
    'lowest',
  );
  // A white ceiling over a pale wall steps little; once ramps are discounted a smaller step still marks the line.
  const ceiling = outermostStrongStep(
    steps,
    Math.round(0.02 * height),
    Math.round(Math.min(floor - 0.2 * height, CEILING_LOWEST * height)),
    0.1 * height,
    CEILING_LINE_MIN,
    'highest',
  );
  return { ceiling, floor };
}

/**
 * For each row, how much the colour of the few rows above differs from the few rows below, as the median over the
 * columns: a line across the whole room (floor, ceiling) counts, the sill of one window does not.
 */
function rowSteps({ width, height, colour }: Grey): Float64Array {
  const window = Math.max(2, Math.round(LINE_WINDOW * height));
  const bytes = colour.data;
  const channels = colour.channels;
  const g = channels >= 3 ? 1 : 0;
  const b = channels >= 3 ? 2 : 0;
  // Columns are taken in blocks of ROW_STEP_BLOCK pixels: a line across the room spans hundreds of them anyway.
  const blocks = Math.max(1, Math.floor(width / ROW_STEP_BLOCK));
  // Column prefix sums per channel, one row of blocks at a time: sums[(y * blocks + c) * 3 + k] = Σ rows < y.
  const sums = filled(Float64Array, (height + 1) * blocks * 3);
  for (let y = 0; y < height; y++) {
    const from = y * blocks * 3;
    const to = from + blocks * 3;
    for (let c = 0; c < blocks; c++) {
      let r0 = 0;
      let g0 = 0;
      let b0 = 0;
      for (
        let x = c * ROW_STEP_BLOCK, j = (y * width + x) * channels;
        x < (c + 1) * ROW_STEP_BLOCK;
        x++, j += channels
      ) {
        r0 += bytes[j] as number;
        g0 += bytes[j + g] as number;
        b0 += bytes[j + b] as number;
      }
      sums[to + c * 3] = (sums[from + c * 3] as number) + r0;
      sums[to + c * 3 + 1] = (sums[from + c * 3 + 1] as number) + g0;
      sums[to + c * 3 + 2] = (sums[from + c * 3 + 2] as number) + b0;
    }
  }
  const steps = new Float64Array(height);
  const column = new Float64Array(blocks);
  const scale = 1 / (window * ROW_STEP_BLOCK);
  for (let y = window; y <= height - window; y++) {
    const above = (y - window) * blocks * 3;
    const here = y * blocks * 3;
    const below = (y + window) * blocks * 3;
    for (let i = 0; i < blocks * 3; i += 3) {
      let squares = 0;
      for (let k = i; k < i + 3; k++) {
        const mid = sums[here + k] as number;
        const d = (2 * mid - (sums[above + k] as number) - (sums[below + k] as number)) * scale;
        squares += d * d;
      }
      column[i / 3] = Math.sqrt(squares);
    }
    column.sort();
    steps[y] = column[Math.floor(blocks / 2)] as number;
  }
  return steps;
}

/**
 * How much each row's step stands above the steps a window's width to either side: a ramp (the vignette, a lamp's
 * glow) steps the same everywhere and scores 0, a line scores its full step.
 */
function lineProminence(steps: Float64Array, window: number): Float64Array {
  const out = new Float64Array(steps.length);
  for (let y = 3 * window; y < steps.length - 3 * window; y++)
    out[y] = (steps[y] as number) - 0.5 * ((steps[y - 2 * window] as number) + (steps[y + 2 * window] as number));
  return out;
}

export function defaultMask({ width, height }: Grey, { ceiling, floor }: RoomLines): Float32Array {
  const wall = Math.max(1, floor - ceiling);
  const mask = filled(Float32Array, width * height);
  for (let y = 0; y < height; y++) {
    const t = ((y - ceiling) / wall - FULL_CHECK) / (NO_CHECK - FULL_CHECK);
    mask.fill(Math.min(1, Math.max(0, 1 - t)), y * width, (y + 1) * width);
  }
  return mask;
}

/**
 * The lowest (floor) or highest (ceiling) row between `from` and `to` whose step is a peak (no smaller than its
 * neighbours') of at least OUTER_LINE_SHARE of the largest step there: the room's lines bound the wall, and what
 * draws lines as strong stands between them. Above the floor line: the tops of furniture against the wall (a sofa's
 * back, a desk, a counter) and window sills; below the ceiling line: a curtain's pelmet, a picture rail, a window's
 * head. `fallback` when no step stands out.
 */
function outermostStrongStep(
  steps: Float64Array,
  from: number,
  to: number,
  fallback: number,
  least: number,
  which: 'lowest' | 'highest',
): number {
  const strongest = strongestStep(steps, from, to, fallback, least);
  const step = (y: number) => steps[y] ?? 0;
  if (step(strongest) <= least) return strongest;
  const peak = (y: number) =>
    step(y) >= OUTER_LINE_SHARE * step(strongest) && step(y) >= step(y - 1) && step(y) >= step(y + 1);
  if (which === 'lowest') {
    for (let y = Math.min(steps.length - 2, to); y > strongest; y--) if (peak(y)) return y;
  } else {
    for (let y = Math.max(1, from); y < strongest; y++) if (peak(y)) return y;
  }
  return strongest;
}

/** The row between `from` and `to` with the largest step; `fallback` when no step stands out. */
function strongestStep(steps: Float64Array, from: number, to: number, fallback: number, least: number): number {
  let best = Math.round(fallback);
  let bestStep = least;
  for (let y = Math.max(0, from); y <= Math.min(steps.length - 1, to); y++) {
    const step = steps[y] ?? 0;
    if (step > bestStep) {
      bestStep = step;
      best = y;
    }
  }
  return best;
}
