/**
 * Fidelity: did the engine keep the room? Both pictures are decoded small (long edge WORK_EDGE, upright; JPEG
 * shrinks on load, so a 12-megapixel photo costs a reduced-size decode) and the output is registered to the photo
 * (./register.ts: engines reframe, crop and change the aspect ratio; one that cannot be placed is `unaligned`).
 * Then two comparisons:
 * - Structure: grey edges (Sobel, thinned to one-pixel lines, the output's contrast brought to the photo's) are
 *   compared where furniture may not go: input edges with no output edge nearby are lost structure (a window painted
 *   over), output edges with no input edge nearby are added structure (a new window, door or wall line). Both are
 *   measured as edge length in picture heights and turned into a 0–1 score.
 * - Surfaces: where the structure is the same, the colour of each small cell is compared after removing the one
 *   colour and tone change the whole picture agrees on (white balance, exposure, saturation, gamma); a large region
 *   whose colour moved anyway, bounded by the room's own lines rather than by a new outline (a rug, a sofa), is a
 *   repainted or re-surfaced wall, floor or ceiling.
 * Each change is reported with its kind and its box in the photo's pixels. Deterministic: the same bytes give the
 * same result.
 */
import sharp from 'sharp';
import { MAX_PIXELS } from './input-rules.js';
import { type Raster, registerOutput } from './register.js';

/** Below this score the picture no longer shows the same room. */
export const FIDELITY_MIN = 0.9;

/** A region of the picture (picture pixels, after EXIF orientation) where furniture may legitimately appear. */
export interface FidelityRegion {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface FidelityOptions {
  /**
   * Where the engine put furniture (a scene's pieces, in picture pixels): everything else must stay as it was.
   * Without it, the floor and the lower wall may change, and so may any object that stands on the floor and stays
   * below door height (or is as slender as a lamp); an empty list checks the whole picture.
   */
  allowed?: readonly FidelityRegion[];
  /** Never checked, with or without `allowed`: what is drawn over every output on purpose (the disclosure mark). */
  ignore?: readonly FidelityRegion[];
  /**
   * The output is drawn on the photo's own grid (an engine that only draws over the photo and never reframes it, like
   * the built-in one): it is compared pixel for pixel, not registered. Registration could only go wrong there: over
   * a furnished photo, the old and the new pieces match each other and can pull a homography off the room.
   */
  onPhotoGrid?: boolean;
}

/** What changed, as the API reports it. */
export const CHANGE_KINDS = [
  'opening_removed',
  'opening_added',
  'opening_moved',
  'wall_moved',
  'builtin_changed',
  'surface_recoloured',
  'unaligned',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** One change: its kind and its box `[x, y, width, height]` in the photo's pixels (after EXIF orientation). */
export interface FidelityChange {
  kind: ChangeKind;
  box: [number, number, number, number];
}

export interface FidelityResult {
  /** 1: the structure is intact; below FIDELITY_MIN: walls, windows, doors or the view changed. */
  score: number;
  /** The changes found, largest first (at most MAX_CHANGES); empty when the room is intact. */
  changes: FidelityChange[];
  /** Input edges missing from the output where furniture may not go, in picture heights of edge length. */
  lost: number;
  /** Output edges with no counterpart in the input there, same unit. */
  added: number;
  /** Share of the picture that was checked (weights of the furniture-free mask, 0–1). */
  checked: number;
}

const WORK_EDGE = 320;
/** Lost plus added edge length (in picture heights) at which the score reaches 0; FIDELITY_MIN sits at a tenth of it. */
const FULL_CHANGE = 3;
/** Sobel magnitude (|gx| + |gy| of grey levels) of an edge worth keeping: a step of about 8 grey levels. */
const EDGE_MIN = 32;
/** An edge is matched when the other picture has at least this share of its strength within MATCH_RADIUS pixels. */
const MATCH_SHARE = 0.4;
const MATCH_RADIUS = 2;
/** Pixels along the border are skipped: resampling and a centre crop disturb them. */
const BORDER = 3;
/** Scene boxes grow by this share of their size (at least ALLOWED_PAD_MIN work pixels) to take in drop shadows. */
const ALLOWED_PAD = 0.1;
const ALLOWED_PAD_MIN = 3;

interface Grey {
  data: Float32Array;
  width: number;
  height: number;
  /** The same pixels in colour: the room's lines are easier to find in colour than in grey. */
  colour: Raster;
}

/**
 * Scores `output` (an engine's picture of `input`, same size after EXIF orientation) for how much of the input's
 * structure it keeps. Rejects with sharp's error when either picture cannot be decoded at all.
 */
export async function scoreFidelity(
  input: Buffer,
  output: Buffer,
  options: FidelityOptions = {},
): Promise<FidelityResult> {
  const [before, decoded, size] = await Promise.all([decodeSmall(input), decodeSmall(output), uprightSize(input)]);
  const sameSize = decoded.width === before.width && decoded.height === before.height;
  const registered =
    options.onPhotoGrid && sameSize
      ? { image: decoded.colour, valid: new Uint8Array(before.width * before.height).fill(1), warped: false }
      : await registerOutput(before.colour, decoded.colour);
  if (!registered)
    return {
      score: 0,
      changes: [{ kind: 'unaligned', box: [0, 0, size.width, size.height] }],
      lost: 0,
      added: 0,
      checked: 0,
    };
  const after = greyOf(registered.image);
  const ignored = (mask: Float32Array) => {
    const cleared = options.ignore?.length
      ? clearRegions(mask, options.ignore, before.width, before.height, size)
      : mask;
    for (let i = 0; i < cleared.length; i++) if (!registered.valid[i]) cleared[i] = 0;
    return cleared;
  };
  const toPhoto = { x: size.width / before.width, y: size.height / before.height };
  const allowedMask = () => maskFromRegions(options.allowed ?? [], before.width, before.height, size);
  // Surfaces are compared everywhere but where a scene put furniture: the floor too (a floor recoloured is refused;
  // a rug is told apart by its outline).
  const surfaces = ignored(allowedMask());
  if (options.allowed) return compare(before, after, ignored(allowedMask()), surfaces, toPhoto);
  const room = roomLines(before);
  return compare(before, after, ignored(defaultMask(before, room)), surfaces, toPhoto, room);
}

async function decodeSmall(image: Buffer): Promise<Grey> {
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
function greyOf(colour: Raster): Grey {
  const count = colour.width * colour.height;
  const grey = new Float32Array(count);
  const { channels, data: bytes } = colour;
  const g = channels >= 3 ? 1 : 0;
  const b = channels >= 3 ? 2 : 0;
  for (let i = 0, j = 0; i < count; i++, j += channels)
    grey[i] = 0.299 * (bytes[j] as number) + 0.587 * (bytes[j + g] as number) + 0.114 * (bytes[j + b] as number);
  return { data: grey, width: colour.width, height: colour.height, colour };
}

/** The picture's width and height after EXIF orientation, from the header. */
async function uprightSize(image: Buffer): Promise<{ width: number; height: number }> {
  const meta = await sharp(image, { failOn: 'none', limitInputPixels: MAX_PIXELS }).metadata();
  const width = meta.width ?? 1;
  const height = meta.height ?? 1;
  return (meta.orientation ?? 1) >= 5 ? { width: height, height: width } : { width, height };
}

/** 1 where furniture may not go, 0 inside the (padded) regions where it may. */
function maskFromRegions(
  regions: readonly FidelityRegion[],
  width: number,
  height: number,
  size: { width: number; height: number },
): Float32Array {
  return clearRegions(new Float32Array(width * height).fill(1), regions, width, height, size);
}

/** Sets `mask` to 0 inside each region (picture pixels, padded as scene boxes are), in place. */
function clearRegions(
  mask: Float32Array,
  regions: readonly FidelityRegion[],
  width: number,
  height: number,
  size: { width: number; height: number },
): Float32Array {
  const sx = width / size.width;
  const sy = height / size.height;
  for (const region of regions) {
    const padX = Math.max(ALLOWED_PAD_MIN, ALLOWED_PAD * region.width * sx);
    const padY = Math.max(ALLOWED_PAD_MIN, ALLOWED_PAD * region.height * sy);
    const x0 = Math.max(0, Math.floor(region.x * sx - padX));
    const y0 = Math.max(0, Math.floor(region.y * sy - padY));
    const x1 = Math.min(width, Math.ceil((region.x + region.width) * sx + padX));
    const y1 = Math.min(height, Math.ceil((region.y + region.height) * sy + padY));
    for (let y = y0; y < y1; y++) mask.fill(0, y * width + x0, y * width + x1);
  }
  return mask;
}

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

/** The back wall's ceiling line and floor line (rows of the working picture), from the input. */
interface RoomLines {
  ceiling: number;
  floor: number;
}

function roomLines(image: Grey): RoomLines {
  const { height } = image;
  const steps = lineProminence(rowSteps(image), Math.max(2, Math.round(LINE_WINDOW * height)));
  const floor = strongestStep(steps, Math.round(0.35 * height), Math.round(0.9 * height), 0.6 * height, LINE_MIN);
  // A white ceiling over a pale wall steps little; once ramps are discounted a smaller step still marks the line.
  const ceiling = strongestStep(
    steps,
    Math.round(0.02 * height),
    Math.round(floor - 0.2 * height),
    0.1 * height,
    CEILING_LINE_MIN,
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
  const sums = new Float64Array((height + 1) * blocks * 3);
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

function defaultMask({ width, height }: Grey, { ceiling, floor }: RoomLines): Float32Array {
  const wall = Math.max(1, floor - ceiling);
  const mask = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const t = ((y - ceiling) / wall - FULL_CHECK) / (NO_CHECK - FULL_CHECK);
    mask.fill(Math.min(1, Math.max(0, 1 - t)), y * width, (y + 1) * width);
  }
  return mask;
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

function compare(
  before: Grey,
  after: Grey,
  mask: Float32Array,
  surfaceMask: Float32Array,
  toPhoto: { x: number; y: number },
  room?: RoomLines,
): FidelityResult {
  const { width, height } = before;
  const gain = contrastGain(before, after, mask);
  const edgesBefore = sobel(before, 1);
  const edgesAfter = sobel(after, gain);
  const lost = unmatched(edgesBefore, edgesAfter.magnitude, width, height);
  const added = unmatched(edgesAfter, edgesBefore.magnitude, width, height);
  const weights = room ? withoutFurniture(mask, lost, added, width, height, room) : mask;
  let lostSum = 0;
  let addedSum = 0;
  let checked = 0;
  for (let i = 0; i < mask.length; i++) {
    if (lost[i]) lostSum += weights[i] as number;
    if (added[i]) addedSum += weights[i] as number;
    checked += mask[i] as number;
  }
  const lostLength = lostSum / height;
  const addedLength = addedSum / height;
  const found = structuralChanges(lost, added, weights, width, height, room);
  // Each change is looked at in both pictures: the same content under a new tone, or an object hung or set in front
  // of the room, is no change of the building; its edges are taken out of the score.
  let excused = 0;
  const structural: WorkChange[] = [];
  for (const change of found) {
    if (appraise(change, before, after, room)) excused += change.size;
    else structural.push(change);
  }
  let score = Math.min(1, Math.max(0, 1 - (lostLength + addedLength - excused) / FULL_CHANGE));
  const surfaces = recolouredSurfaces(before, after, surfaceMask, lost, added);
  if (surfaces.length) {
    const share = surfaces.reduce((sum, box) => sum + box.area, 0) / (width * height);
    score = Math.min(score, Math.max(0, RECOLOUR_SCORE - share));
  }
  const changes = [...structural, ...surfaces]
    .sort((a, b) => b.size - a.size)
    .slice(0, MAX_CHANGES)
    .map(({ kind, box }) => ({ kind, box: inPhoto(box, toPhoto) }));
  return { score, changes, lost: lostLength, added: addedLength, checked: checked / mask.length };
}

/** Grey-level correlation of the two pictures in a change's box from which it is the same content under a new tone. */
const SAME_CONTENT = 0.8;
/** ...and its brightness against the surroundings changed by at most this share (a recoloured surface does). */
const SAME_LIGHT = 0.08;
/** A new thing on the wall darker than this share of the wall around it, mostly added edges, is wall decor. */
const HUNG_BRIGHT = 0.9;
const HUNG_LOST_SHARE = 0.35;
/** Wall decor's bottom stays above this share of the wall, from the ceiling line down (a door reaches the floor). */
const HUNG_BOTTOM = 0.85;
/** Wall decor (a picture, a mirror) is at most this share of the wall's height tall; a window or door is taller. */
const HUNG_HEIGHT = 0.4;
/** The spot it hangs on was plain wall: about as bright as its surroundings in the photo. */
const PLAIN_MIN = 0.8;
const PLAIN_MAX = 1.25;
/** A change is one-sided when at most this share of its edges goes the other way. */
const ONE_SIDED = 0.2;
const LINE_ASPECT = 4;

/**
 * Whether a structural change is no change of the building, judged from what both pictures show in its box and in a
 * ring around it: the same content under a new tone (a one-sided edge change, the grey levels still correlated, the
 * box as bright against its surroundings as before, and not a long line between two surfaces, which a repaint would
 * sharpen or soften), or a picture, mirror or the like hung on what was plain wall (mostly added edges, darker than
 * the wall around it, at most HUNG_HEIGHT of the wall tall, its bottom clear of the floor line). An opening shows
 * daylight, brighter than the wall, or is as tall as a door.
 */
function appraise(
  change: WorkChange & { lost: number; added: number },
  before: Grey,
  after: Grey,
  room?: RoomLines,
): boolean {
  const { width, height } = before;
  const [bx, by, bw, bh] = change.box;
  const x0 = Math.max(0, bx);
  const y0 = Math.max(0, by);
  const x1 = Math.min(width, bx + bw);
  const y1 = Math.min(height, by + bh);
  let n = 0;
  let sa = 0;
  let sb = 0;
  let saa = 0;
  let sbb = 0;
  let sab = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0, i = y * width + x0; x < x1; x++, i++) {
      const a = before.data[i] as number;
      const b = after.data[i] as number;
      n++;
      sa += a;
      sb += b;
      saa += a * a;
      sbb += b * b;
      sab += a * b;
    }
  const va = saa / n - (sa / n) ** 2;
  const vb = sbb / n - (sb / n) ** 2;
  const same = va > 1 && vb > 1 ? (sab / n - (sa / n) * (sb / n)) / Math.sqrt(va * vb) : 0;
  const pad = Math.max(4, Math.round(0.25 * Math.min(bw, bh)));
  let rn = 0;
  let rs = 0;
  let rsBefore = 0;
  for (let y = Math.max(0, y0 - pad); y < Math.min(height, y1 + pad); y++)
    for (let x = Math.max(0, x0 - pad); x < Math.min(width, x1 + pad); x++) {
      if (x >= x0 && x < x1 && y >= y0 && y < y1) continue;
      rn++;
      rs += after.data[y * width + x] as number;
      rsBefore += before.data[y * width + x] as number;
    }
  const bright = rn && rs > 0 ? sb / n / (rs / rn) : 1;
  const brightBefore = rn && rsBefore > 0 ? sa / n / (rsBefore / rn) : 1;
  const total = change.lost + change.added;
  const lostShare = total > 0 ? change.lost / total : 0;
  // The same content, only lighter, darker, sharper or softer (a tone change): nothing was built or removed.
  // A tone change only weakens or only strengthens edges; a line that shifted loses and gains them side by side.
  const oneSided = lostShare >= 1 - ONE_SIDED || lostShare <= ONE_SIDED;
  // A long thin change is the line between two surfaces, whose contrast changes when one of them is repainted.
  const line = Math.max(bw, bh) >= LINE_ASPECT * Math.min(bw, bh);
  const tone = oneSided && !line && same >= SAME_CONTENT && Math.abs(bright / brightBefore - 1) <= SAME_LIGHT;
  // Something new hung on the wall, darker than the wall around it and short of the floor: a picture, a mirror, a
  // curtain. An opening shows daylight (brighter than the wall) or, as a door, reaches the floor.
  // It hangs on what was plain wall (not where a bright window was) and its bottom stays clear of the floor line.
  const plainBefore = brightBefore >= PLAIN_MIN && brightBefore <= PLAIN_MAX;
  const hangs = room ? y1 <= room.ceiling + HUNG_BOTTOM * (room.floor - room.ceiling) : true;
  // Pictures and mirrors are smaller than windows and doors.
  const modest = y1 - y0 <= HUNG_HEIGHT * (room ? room.floor - room.ceiling : height);
  const hung = lostShare <= HUNG_LOST_SHARE && hangs && modest && plainBefore && bright < HUNG_BRIGHT;
  return tone || hung;
}

/** At most this many changes are reported, the largest. */
const MAX_CHANGES = 12;
/** The score of a picture with a recoloured surface, less the surface's share of the picture. */
const RECOLOUR_SCORE = 0.85;

/** A change found on the working grid: box `[x, y, w, h]` in work pixels, `size` to rank it. */
interface WorkChange {
  kind: ChangeKind;
  box: [number, number, number, number];
  size: number;
}

function inPhoto(box: [number, number, number, number], scale: { x: number; y: number }): FidelityChange['box'] {
  const x = Math.max(0, Math.floor(box[0] * scale.x));
  const y = Math.max(0, Math.floor(box[1] * scale.y));
  return [
    x,
    y,
    Math.max(1, Math.ceil((box[0] + box[2]) * scale.x) - x),
    Math.max(1, Math.ceil((box[1] + box[3]) * scale.y) - y),
  ];
}

/** Cells (REPORT_CELL work pixels square) of unmatched edges within REPORT_JOIN cells of each other form one change. */
const REPORT_CELL = 4;
const REPORT_JOIN = 2;
/** A change is reported from this much weighted edge length (picture heights): a tenth of what refuses a picture. */
const REPORT_MIN = 0.03;
/** A change this long (share of the picture) and this thin is a line of the room: a wall, beam, ceiling or floor line. */
const LINE_LONG = 0.3;
const LINE_THIN = 0.06;
const SHIFTED_LINE_THIN = 0.2;
/** Lost and added pieces whose sizes agree within this factor are one opening that moved. */
const MOVED_SIZE = 1.7;

/**
 * The weighted unmatched edges grouped into changes and named: mostly lost edges are an opening removed, mostly added
 * ones an opening added, a removed and an added one of about the same size an opening moved, a long thin one a wall
 * line moved; a mixed change standing on the floor is a built-in changed.
 */
function structuralChanges(
  lost: Uint8Array,
  added: Uint8Array,
  weights: Float32Array,
  width: number,
  height: number,
  room?: RoomLines,
): Array<WorkChange & { lost: number; added: number }> {
  const cellsX = Math.ceil(width / REPORT_CELL);
  const cellsY = Math.ceil(height / REPORT_CELL);
  const lostCells = new Float32Array(cellsX * cellsY);
  const addedCells = new Float32Array(cellsX * cellsY);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const w = weights[i] as number;
      if (w <= 0) continue;
      const cell = Math.floor(y / REPORT_CELL) * cellsX + Math.floor(x / REPORT_CELL);
      if (lost[i]) lostCells[cell] = (lostCells[cell] as number) + w;
      if (added[i]) addedCells[cell] = (addedCells[cell] as number) + w;
    }
  const label = new Int32Array(cellsX * cellsY).fill(-1);
  const found: Array<WorkChange & { lost: number; added: number }> = [];
  for (let start = 0; start < label.length; start++) {
    if (label[start] !== -1 || !((lostCells[start] as number) + (addedCells[start] as number))) continue;
    const id = found.length;
    label[start] = id;
    const queue = [start];
    let [left, top, right, bottom, lostSum, addedSum] = [cellsX, cellsY, 0, 0, 0, 0];
    for (let head = 0; head < queue.length; head++) {
      const cell = queue[head] as number;
      const cx = cell % cellsX;
      const cy = (cell - cx) / cellsX;
      left = Math.min(left, cx);
      right = Math.max(right, cx);
      top = Math.min(top, cy);
      bottom = Math.max(bottom, cy);
      lostSum += lostCells[cell] as number;
      addedSum += addedCells[cell] as number;
      for (let dy = -REPORT_JOIN; dy <= REPORT_JOIN; dy++)
        for (let dx = -REPORT_JOIN; dx <= REPORT_JOIN; dx++) {
          const nx = cx + dx;
          const ny = cy + dy;
          if (nx < 0 || ny < 0 || nx >= cellsX || ny >= cellsY) continue;
          const next = ny * cellsX + nx;
          if (label[next] !== -1 || !((lostCells[next] as number) + (addedCells[next] as number))) continue;
          label[next] = id;
          queue.push(next);
        }
    }
    const box: [number, number, number, number] = [
      left * REPORT_CELL,
      top * REPORT_CELL,
      Math.min(width, (right + 1) * REPORT_CELL) - left * REPORT_CELL,
      Math.min(height, (bottom + 1) * REPORT_CELL) - top * REPORT_CELL,
    ];
    const lostLength = lostSum / height;
    const addedLength = addedSum / height;
    const lineOf = (thin: number) =>
      (box[2] >= LINE_LONG * width && box[3] <= thin * height) ||
      (box[3] >= LINE_LONG * height && box[2] <= thin * width);
    const onFloor =
      room !== undefined && box[1] + box[3] >= room.floor && box[1] > room.ceiling + 0.3 * (room.floor - room.ceiling);
    // A line lost beside a line added (a corner or beam shifted) makes a wider change than either line.
    const kind: ChangeKind = lineOf(LINE_THIN)
      ? 'wall_moved'
      : lostLength >= 2 * addedLength
        ? 'opening_removed'
        : addedLength >= 2 * lostLength
          ? 'opening_added'
          : lineOf(SHIFTED_LINE_THIN)
            ? 'wall_moved'
            : onFloor
              ? 'builtin_changed'
              : 'opening_moved';
    found.push({ kind, box, size: lostLength + addedLength, lost: lostLength, added: addedLength });
  }
  const kept = found.filter((change) => change.size >= REPORT_MIN);
  // A removed and an added opening of about the same size: one opening that moved.
  const similar = (a: WorkChange, b: WorkChange) =>
    Math.max(a.box[2], b.box[2]) <= MOVED_SIZE * Math.min(a.box[2], b.box[2]) &&
    Math.max(a.box[3], b.box[3]) <= MOVED_SIZE * Math.min(a.box[3], b.box[3]);
  for (const removed of kept.filter((c) => c.kind === 'opening_removed')) {
    const moved = kept.find((c) => c.kind === 'opening_added' && similar(c, removed));
    if (!moved) continue;
    removed.kind = 'opening_moved';
    moved.kind = 'opening_moved';
  }
  return kept;
}

/** Colour cells: COLOUR_CELL work pixels square. */
const COLOUR_CELL = 8;
/** A cell's colour moved when it lies this far (RGB levels) from what the picture-wide change predicts. */
const COLOUR_MOVED = 18;
/** The picture-wide colour model's features of one cell for output channel `c`: 1, r, g, b, and c's own square. */
function colourFeatures(a: Float32Array, cell: number, c: number): number[] {
  const r = (a[cell * 3] as number) / 255;
  const g = (a[cell * 3 + 1] as number) / 255;
  const b = (a[cell * 3 + 2] as number) / 255;
  const own = (a[cell * 3 + c] as number) / 255;
  return [1, r, g, b, own * own];
}

function predictColour(model: number[][], a: Float32Array, cell: number, c: number): number {
  const f = colourFeatures(a, cell, c);
  const w = model[c] as number[];
  let sum = 0;
  for (let k = 0; k < f.length; k++) sum += (w[k] as number) * (f[k] as number);
  return 255 * sum;
}

/** Per channel, the weights of colourFeatures fitted to `cells` (iteratively reweighted, Tukey's biweight). */
function fitColourModel(a: Float32Array, b: Float32Array, cells: number[]): number[][] {
  const model: number[][] = [0, 1, 2].map((c) => [0, c === 0 ? 1 : 0, c === 1 ? 1 : 0, c === 2 ? 1 : 0, 0]);
  const weights = new Float64Array(cells.length).fill(1);
  for (let round = 0; round < 5; round++) {
    for (let c = 0; c < 3; c++) {
      const n = 5;
      const ata = new Float64Array(n * n);
      const atb = new Float64Array(n);
      cells.forEach((cell, i) => {
        const w = weights[i] as number;
        if (w <= 0) return;
        const f = colourFeatures(a, cell, c);
        const y = (b[cell * 3 + c] as number) / 255;
        for (let p = 0; p < n; p++) {
          atb[p] = (atb[p] as number) + w * (f[p] as number) * y;
          for (let q = 0; q < n; q++)
            ata[p * n + q] = (ata[p * n + q] as number) + w * (f[p] as number) * (f[q] as number);
        }
      });
      for (let p = 0; p < n; p++) ata[p * n + p] = (ata[p * n + p] as number) + 1e-6;
      const solved = solve(ata, atb, n);
      if (solved) model[c] = solved;
    }
    const residuals = cells.map((cell) =>
      Math.hypot(...[0, 1, 2].map((c) => (b[cell * 3 + c] as number) - predictColour(model, a, cell, c))),
    );
    const sorted = [...residuals].sort((p, q) => p - q);
    const scale = Math.max(4, 4.685 * 1.4826 * (sorted[Math.floor(sorted.length / 2)] as number));
    residuals.forEach((r, i) => {
      const u = r / scale;
      weights[i] = u >= 1 ? 0 : (1 - u * u) ** 2;
    });
  }
  return model;
}

/** Gaussian elimination with partial pivoting; null when the system is singular. */
function solve(matrix: Float64Array, vector: Float64Array, n: number): number[] | null {
  const m = Float64Array.from(matrix);
  const v = Float64Array.from(vector);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let row = col + 1; row < n; row++)
      if (Math.abs(m[row * n + col] as number) > Math.abs(m[pivot * n + col] as number)) pivot = row;
    if (Math.abs(m[pivot * n + col] as number) < 1e-12) return null;
    for (let k = 0; k < n; k++) {
      const t = m[col * n + k] as number;
      m[col * n + k] = m[pivot * n + k] as number;
      m[pivot * n + k] = t;
    }
    const t = v[col] as number;
    v[col] = v[pivot] as number;
    v[pivot] = t;
    for (let row = col + 1; row < n; row++) {
      const factor = (m[row * n + col] as number) / (m[col * n + col] as number);
      for (let k = col; k < n; k++) m[row * n + k] = (m[row * n + k] as number) - factor * (m[col * n + k] as number);
      v[row] = (v[row] as number) - factor * (v[col] as number);
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let row = n - 1; row >= 0; row--) {
    let sum = v[row] as number;
    for (let k = row + 1; k < n; k++) sum -= (m[row * n + k] as number) * (x[k] as number);
    x[row] = sum / (m[row * n + row] as number);
  }
  return x;
}

/** A recoloured region counts from this share of the picture: a wall, a floor, a ceiling, not a cushion. */
const RECOLOUR_AREA = 0.04;
/** A region whose border is mostly new outline (at least this share) is an object laid on the room: a rug, a sofa. */
const OUTLINE_SHARE = 0.5;

/**
 * Large regions whose colour changed where their structure did not, once the picture-wide colour and tone change
 * (fitted robustly to every calm cell: white balance, exposure, contrast, saturation, gamma) is taken out.
 */
function recolouredSurfaces(
  before: Grey,
  after: Grey,
  mask: Float32Array,
  lost: Uint8Array,
  added: Uint8Array,
): Array<WorkChange & { area: number }> {
  const { width, height } = before;
  const cellsX = Math.floor(width / COLOUR_CELL);
  const cellsY = Math.floor(height / COLOUR_CELL);
  const count = cellsX * cellsY;
  if (count < 16) return [];
  const stats = (colour: Raster) => {
    const out = new Float32Array(count * 3);
    const { data, channels } = colour;
    const g = channels >= 3 ? 1 : 0;
    const b = channels >= 3 ? 2 : 0;
    const n = COLOUR_CELL * COLOUR_CELL;
    for (let cy = 0; cy < cellsY; cy++)
      for (let cx = 0; cx < cellsX; cx++) {
        let [r0, g0, b0] = [0, 0, 0];
        for (let y = cy * COLOUR_CELL; y < (cy + 1) * COLOUR_CELL; y++)
          for (
            let x = cx * COLOUR_CELL, j = (y * width + x) * channels;
            x < (cx + 1) * COLOUR_CELL;
            x++, j += channels
          ) {
            r0 += data[j] as number;
            g0 += data[j + g] as number;
            b0 += data[j + b] as number;
          }
        const cell = (cy * cellsX + cx) * 3;
        out[cell] = r0 / n;
        out[cell + 1] = g0 / n;
        out[cell + 2] = b0 / n;
      }
    return out;
  };
  const a = stats(before.colour);
  const b = stats(after.colour);
  // Per cell: usable (checked, registered), and whether its edges changed (an outline added: an object) or not.
  const usable = new Uint8Array(count);
  const outline = new Uint8Array(count);
  const changed = new Uint8Array(count);
  for (let cy = 0; cy < cellsY; cy++)
    for (let cx = 0; cx < cellsX; cx++) {
      let weight = 0;
      let addedHere = 0;
      let lostHere = 0;
      for (let y = cy * COLOUR_CELL; y < (cy + 1) * COLOUR_CELL; y++)
        for (let x = cx * COLOUR_CELL, i = y * width + x; x < (cx + 1) * COLOUR_CELL; x++, i++) {
          weight += mask[i] as number;
          addedHere += added[i] as number;
          lostHere += lost[i] as number;
        }
      const cell = cy * cellsX + cx;
      usable[cell] = weight >= 0.5 * COLOUR_CELL * COLOUR_CELL ? 1 : 0;
      outline[cell] = addedHere >= 2 ? 1 : 0;
      changed[cell] = addedHere + lostHere >= 2 ? 1 : 0;
    }
  // A cell next to changed edges is part of the change (the edges' own blur), not a surface.
  const calm = new Uint8Array(count);
  for (let cy = 0; cy < cellsY; cy++)
    for (let cx = 0; cx < cellsX; cx++) {
      let quiet = usable[cy * cellsX + cx] as number;
      for (let dy = -1; dy <= 1 && quiet; dy++)
        for (let dx = -1; dx <= 1 && quiet; dx++) {
          const nx = cx + dx;
          const ny = cy + dy;
          if (nx >= 0 && ny >= 0 && nx < cellsX && ny < cellsY && changed[ny * cellsX + nx]) quiet = 0;
        }
      calm[cy * cellsX + cx] = quiet;
    }
  // The picture-wide colour and tone change: per output channel, an affine mix of the photo's three channels plus a
  // curve of its own channel (exposure, contrast, white balance, saturation, gamma), fitted to the calm cells with
  // Tukey-weighted least squares, so the cells that moved differently (a repainted wall) do not pull it.
  const calmCells: number[] = [];
  for (let cell = 0; cell < count; cell++) if (calm[cell]) calmCells.push(cell);
  if (calmCells.length < 16) return [];
  const model = fitColourModel(a, b, calmCells);
  const moved = new Uint8Array(count);
  for (const cell of calmCells) {
    const residual = Math.hypot(
      ...[0, 1, 2].map((c) => (b[cell * 3 + c] as number) - predictColour(model, a, cell, c)),
    );
    if (residual > COLOUR_MOVED) moved[cell] = 1;
  }
  const found: Array<WorkChange & { area: number }> = [];
  const seen = new Uint8Array(count);
  for (let start = 0; start < count; start++) {
    if (!moved[start] || seen[start]) continue;
    seen[start] = 1;
    const queue = [start];
    const border = new Set<number>();
    let [left, top, right, bottom] = [cellsX, cellsY, 0, 0];
    for (let head = 0; head < queue.length; head++) {
      const cell = queue[head] as number;
      const cx = cell % cellsX;
      const cy = (cell - cx) / cellsX;
      left = Math.min(left, cx);
      right = Math.max(right, cx);
      top = Math.min(top, cy);
      bottom = Math.max(bottom, cy);
      for (const [dx, dy] of [
        [1, 0],
        [-1, 0],
        [0, 1],
        [0, -1],
      ] as const) {
        const nx = cx + dx;
        const ny = cy + dy;
        if (nx < 0 || ny < 0 || nx >= cellsX || ny >= cellsY) continue;
        const next = ny * cellsX + nx;
        if (moved[next]) {
          if (!seen[next]) {
            seen[next] = 1;
            queue.push(next);
          }
        } else border.add(next);
      }
    }
    if (queue.length < RECOLOUR_AREA * count) continue;
    // The border's cells and their neighbours: how much of it is a new outline.
    let outlined = 0;
    for (const cell of border) {
      const cx = cell % cellsX;
      const cy = (cell - cx) / cellsX;
      let hit = 0;
      for (let dy = -1; dy <= 1 && !hit; dy++)
        for (let dx = -1; dx <= 1 && !hit; dx++) {
          const nx = cx + dx;
          const ny = cy + dy;
          if (nx >= 0 && ny >= 0 && nx < cellsX && ny < cellsY && outline[ny * cellsX + nx]) hit = 1;
        }
      outlined += hit;
    }
    if (border.size && outlined >= OUTLINE_SHARE * border.size) continue;
    const area = queue.length * COLOUR_CELL * COLOUR_CELL;
    found.push({
      kind: 'surface_recoloured',
      box: [left * COLOUR_CELL, top * COLOUR_CELL, (right - left + 1) * COLOUR_CELL, (bottom - top + 1) * COLOUR_CELL],
      size: area / (height * height),
      area,
    });
  }
  return found;
}

/** Changes are grouped on a grid of CLUSTER_CELL pixels; touching cells (8 neighbours) form one object. */
const CLUSTER_CELL = 4;
/** An object standing on the floor whose top stays below this share of the wall (from the ceiling) is furniture. */
const FURNITURE_TOP = 0.3;
/** Slender: at most this share of the picture wide, its top at least SLENDER_TOP of the wall below the ceiling. */
const SLENDER = 0.08;
const SLENDER_TOP = 0.1;
/** Where a slender piece's width is taken, as shares of its height from the top: the stem, below a lamp's shade. */
const STEM_FROM = 0.3;
const STEM_TO = 0.9;
/** A slender piece's foot is at least this share of the wall below the floor line (a lamp that towers is near). */
const SLENDER_FOOT = 0.08;

/**
 * Changes one above the other in a column, at most this share of the wall apart, belong to one object: a piece of
 * furniture's top edge stands above its flat front (a headboard, a sofa's back), a lamp's shade above a thin pole.
 */
const BRIDGE = 0.12;

/** "On the floor": its bottom reaches this share of the wall above the floor line, or lower. */
const FLOOR_REACH = 0.08;

/**
 * Without a scene, a change that stands on the floor and stays below door height is a piece of furniture: its
 * edges (its outline, and the wall it hides) weigh nothing. So is one that stands well in front of the back wall
 * and is slender where it rises high (a floor lamp), and a low change floating just above a piece (the top edge of
 * a headboard over its flat front). Changes that float on the wall (a window) or reach up to door or ceiling height
 * (a door, a wall corner) keep the mask's weight.
 */
function withoutFurniture(
  mask: Float32Array,
  lost: Uint8Array,
  added: Uint8Array,
  width: number,
  height: number,
  { ceiling, floor }: RoomLines,
): Float32Array {
  const cellsX = Math.ceil(width / CLUSTER_CELL);
  const cellsY = Math.ceil(height / CLUSTER_CELL);
  const changed = new Uint8Array(cellsX * cellsY);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      if (lost[y * width + x] || added[y * width + x])
        changed[Math.floor(y / CLUSTER_CELL) * cellsX + Math.floor(x / CLUSTER_CELL)] = 1;
  const label = new Int32Array(cellsX * cellsY).fill(-1);
  const furniture: boolean[] = [];
  const objects: Array<{ top: number; bottom: number; left: number; right: number; low: boolean }> = [];
  const wall = Math.max(1, floor - ceiling);
  const bridge = Math.max(1, Math.round((BRIDGE * wall) / CLUSTER_CELL));
  for (let start = 0; start < changed.length; start++) {
    if (!changed[start] || (label[start] ?? 0) >= 0) continue;
    const id = furniture.length;
    const queue = [start];
    label[start] = id;
    let top = cellsY;
    let bottom = 0;
    let left = cellsX;
    let right = 0;
    const visit = (nx: number, ny: number) => {
      if (nx < 0 || ny < 0 || nx >= cellsX || ny >= cellsY) return;
      const next = ny * cellsX + nx;
      if (!changed[next] || (label[next] ?? 0) >= 0) return;
      label[next] = id;
      queue.push(next);
    };
    for (let head = 0; head < queue.length; head++) {
      const cell = queue[head] ?? 0;
      const cx = cell % cellsX;
      const cy = (cell - cx) / cellsX;
      top = Math.min(top, cy);
      bottom = Math.max(bottom, cy);
      left = Math.min(left, cx);
      right = Math.max(right, cx);
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) visit(cx + dx, cy + dy);
      for (let dy = 2; dy <= bridge; dy++) {
        visit(cx, cy + dy);
        visit(cx, cy - dy);
      }
    }
    // The stem: the object's width between STEM_FROM and STEM_TO of its height (a lamp's pole, not its shade or shadow).
    const stemTop = top + STEM_FROM * (bottom - top);
    const stemBottom = top + STEM_TO * (bottom - top);
    let stemLeft = cellsX;
    let stemRight = -1;
    // What rises above the height a piece of furniture reaches (FURNITURE_TOP): a lamp's shade behind a table.
    const highRow = (ceiling + FURNITURE_TOP * wall) / CLUSTER_CELL;
    let highLeft = cellsX;
    let highRight = -1;
    for (const cell of queue) {
      const cy = Math.floor(cell / cellsX);
      if (cy < highRow) {
        highLeft = Math.min(highLeft, cell % cellsX);
        highRight = Math.max(highRight, cell % cellsX);
      }
      if (cy < stemTop || cy > stemBottom) continue;
      stemLeft = Math.min(stemLeft, cell % cellsX);
      stemRight = Math.max(stemRight, cell % cellsX);
    }
    const narrow = (from: number, to: number) => to >= from && (to - from + 1) * CLUSTER_CELL <= SLENDER * width;
    const topRow = top * CLUSTER_CELL;
    const bottomRow = (bottom + 1) * CLUSTER_CELL;
    const onFloor = bottomRow >= floor - FLOOR_REACH * wall;
    const low = topRow >= ceiling + FURNITURE_TOP * wall;
    // A floor lamp or a plant: its stem narrower than any door and short of the ceiling line (which a wall corner
    // reaches). Its foot must stand clearly in front of the back wall: a door is as slender, but stands on the floor line.
    const slender =
      (narrow(stemLeft, stemRight) || narrow(highLeft, highRight)) &&
      topRow >= ceiling + SLENDER_TOP * wall &&
      bottomRow >= floor + SLENDER_FOOT * wall;
    objects.push({ top: topRow, bottom: bottomRow, left: left * CLUSTER_CELL, right: (right + 1) * CLUSTER_CELL, low });
    furniture.push(onFloor && (low || slender));
  }
  // A low change floating just above a piece of furniture, within its width, is part of it (a headboard's top edge
  // over its flat front).
  const pieces = objects.filter((_, id) => furniture[id]);
  objects.forEach((object, id) => {
    if (furniture[id] || !object.low) return;
    furniture[id] = pieces.some(
      (piece) =>
        piece.left - CLUSTER_CELL <= object.left &&
        object.right <= piece.right + CLUSTER_CELL &&
        object.bottom >= piece.top - bridge * CLUSTER_CELL,
    );
  });
  const weights = Float32Array.from(mask);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const id = label[Math.floor(y / CLUSTER_CELL) * cellsX + Math.floor(x / CLUSTER_CELL)] as number;
      if (id >= 0 && furniture[id]) weights[y * width + x] = 0;
    }
  }
  return weights;
}

/**
 * A colour grade scales contrast; the output's gradients are brought to the input's by the ratio of grey spread in
 * the checked region (kept within 0.5–2, so a changed room cannot hide behind it).
 */
function contrastGain(before: Grey, after: Grey, mask: Float32Array): number {
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

interface Edges {
  magnitude: Float32Array;
  /** Thinned edge pixels (local maxima across the edge) above EDGE_MIN. */
  line: Uint8Array;
}

function sobel({ data, width, height }: Grey, gain: number): Edges {
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
 * MATCH_RADIUS pixels (a square). Only line pixels are looked around, a few per cent of the picture.
 */
function unmatched(edges: Edges, other: Float32Array, width: number, height: number): Uint8Array {
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
      if (!found) out[i] = 1;
    }
  }
  return out;
}
