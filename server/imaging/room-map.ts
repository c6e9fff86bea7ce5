/**
 * What a photo's pixels say about where things can go: the row where the floor begins and which parts of the
 * picture are already busy (edges of objects, clutter, windows) or not floor-coloured. Everything is measured on a
 * copy whose long edge is 320 px, so a 12-megapixel photo costs one shrink-on-load decode and a few passes over
 * ~75 000 pixels. Deterministic: the same bytes give the same map.
 */
import sharp from 'sharp';
import { MAX_PIXELS } from './input-rules.js';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface RoomMap {
  /** Picture size (after EXIF orientation). */
  width: number;
  height: number;
  /** First picture row of the floor. */
  floorTop: number;
  /** Grid of cells over the picture, each CELL map pixels square. */
  cellsX: number;
  cellsY: number;
  cellWidth: number;
  cellHeight: number;
  /** Summed-area table of occupied cells, (cellsX + 1) × (cellsY + 1). */
  occupied: Uint32Array;
}

const MAP_LONG_EDGE = 320;
const CELL = 4;
/** A row-mean colour change smaller than this is no wall-to-floor edge; the floor is then assumed at 60 %. */
const MIN_FLOOR_STEP = 12;
const FALLBACK_FLOOR = 0.6;
/** A cell is busy when its edges are this many times the picture's typical cell (and above an absolute floor). */
const BUSY_FACTOR = 3;
const BUSY_MIN = 10;
/** A floor cell this far (RGB distance) from its row's median floor colour is something standing there. */
const FOREIGN_COLOUR = 100;

/** `size` is the picture's width and height after EXIF orientation (from inspectInput). */
export async function analyseRoom(input: Buffer, size: { width: number; height: number }): Promise<RoomMap> {
  const { data, info } = await sharp(input, { limitInputPixels: MAX_PIXELS, failOn: 'error' })
    .rotate()
    .resize(MAP_LONG_EDGE, MAP_LONG_EDGE, { fit: 'inside', kernel: 'linear' })
    .removeAlpha()
    .toColourspace('srgb')
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  return mapFromPixels(data, info.width, info.height, info.channels, size.width, size.height);
}

/** The analysis proper, on raw 8-bit pixels of the downscaled copy; `width`/`height` are the full picture's. */
export function mapFromPixels(
  px: Buffer,
  mw: number,
  mh: number,
  channels: number,
  width: number,
  height: number,
): RoomMap {
  const floorRow = findFloorRow(px, mw, mh, channels);
  const cellsX = Math.ceil(mw / CELL);
  const cellsY = Math.ceil(mh / CELL);
  const count = cellsX * cellsY;
  const edge = new Float32Array(count);
  const colour = new Float32Array(count * 3);
  const pixels = new Uint16Array(count);
  const lum = (i: number) => 0.299 * px[i]! + 0.587 * px[i + 1]! + 0.114 * px[i + 2]!;
  for (let y = 0; y < mh; y++) {
    for (let x = 0; x < mw; x++) {
      const i = (y * mw + x) * channels;
      const left = (y * mw + Math.max(0, x - 1)) * channels;
      const right = (y * mw + Math.min(mw - 1, x + 1)) * channels;
      const up = (Math.max(0, y - 1) * mw + x) * channels;
      const down = (Math.min(mh - 1, y + 1) * mw + x) * channels;
      const cell = Math.floor(y / CELL) * cellsX + Math.floor(x / CELL);
      edge[cell]! += Math.abs(lum(right) - lum(left)) + Math.abs(lum(down) - lum(up));
      colour[cell * 3]! += px[i]!;
      colour[cell * 3 + 1]! += px[i + 1]!;
      colour[cell * 3 + 2]! += px[i + 2]!;
      pixels[cell]!++;
    }
  }
  for (let c = 0; c < count; c++) {
    edge[c]! /= pixels[c]!;
    for (let k = 0; k < 3; k++) colour[c * 3 + k]! /= pixels[c]!;
  }

  const typical = median(Array.from(edge));
  const busyAbove = Math.max(BUSY_MIN, BUSY_FACTOR * typical);
  const occupiedCell = new Uint8Array(count);
  for (let c = 0; c < count; c++) if (edge[c]! > busyAbove) occupiedCell[c] = 1;
  // On the floor, a patch far from the row's usual floor colour is an object even where its inside is smooth.
  const firstFloorCellRow = Math.ceil(floorRow / CELL);
  for (let cy = firstFloorCellRow; cy < cellsY; cy++) {
    const reference = [0, 1, 2].map((k) =>
      median(Array.from({ length: cellsX }, (_, cx) => colour[(cy * cellsX + cx) * 3 + k]!)),
    );
    for (let cx = 0; cx < cellsX; cx++) {
      const c = cy * cellsX + cx;
      const distance = Math.hypot(...[0, 1, 2].map((k) => colour[c * 3 + k]! - reference[k]!));
      if (distance > FOREIGN_COLOUR) occupiedCell[c] = 1;
    }
  }

  const taken = withEnclosed(occupiedCell, cellsX, cellsY);
  const occupied = new Uint32Array((cellsX + 1) * (cellsY + 1));
  for (let cy = 0; cy < cellsY; cy++) {
    let rowSum = 0;
    for (let cx = 0; cx < cellsX; cx++) {
      rowSum += taken[cy * cellsX + cx]!;
      occupied[(cy + 1) * (cellsX + 1) + cx + 1] = occupied[cy * (cellsX + 1) + cx + 1]! + rowSum;
    }
  }
  return {
    width,
    height,
    floorTop: Math.round((floorRow / mh) * height),
    cellsX,
    cellsY,
    cellWidth: (CELL * width) / mw,
    cellHeight: (CELL * height) / mh,
    occupied,
  };
}

/**
 * Busy cells plus every patch they enclose (the smooth seat of a sofa inside its outline, the glass inside a
 * window frame): the free cells that a flood from the picture's edges cannot reach.
 */
function withEnclosed(busy: Uint8Array, cellsX: number, cellsY: number): Uint8Array {
  const reached = new Uint8Array(busy.length);
  const queue: number[] = [];
  const visit = (x: number, y: number) => {
    const c = y * cellsX + x;
    if (busy[c] || reached[c]) return;
    reached[c] = 1;
    queue.push(c);
  };
  for (let cx = 0; cx < cellsX; cx++) {
    visit(cx, 0);
    visit(cx, cellsY - 1);
  }
  for (let cy = 0; cy < cellsY; cy++) {
    visit(0, cy);
    visit(cellsX - 1, cy);
  }
  for (let head = 0; head < queue.length; head++) {
    const c = queue[head]!;
    const x = c % cellsX;
    const y = (c - x) / cellsX;
    if (x > 0) visit(x - 1, y);
    if (x < cellsX - 1) visit(x + 1, y);
    if (y > 0) visit(x, y - 1);
    if (y < cellsY - 1) visit(x, y + 1);
  }
  const taken = new Uint8Array(busy.length);
  for (let c = 0; c < taken.length; c++) taken[c] = reached[c] ? 0 : 1;
  return taken;
}

/**
 * The wall-to-floor line: the row in the middle and lower part of the picture where the mean colour of the rows
 * just above differs most from the rows just below.
 */
function findFloorRow(px: Buffer, mw: number, mh: number, channels: number): number {
  const rows = new Float32Array(mh * 3);
  for (let y = 0; y < mh; y++) {
    for (let x = 0; x < mw; x++) {
      const i = (y * mw + x) * channels;
      for (let k = 0; k < 3; k++) rows[y * 3 + k]! += px[i + k]! / mw;
    }
  }
  const window = Math.max(2, Math.round(0.05 * mh));
  const mean = (from: number, to: number, k: number) => {
    let sum = 0;
    for (let y = from; y < to; y++) sum += rows[y * 3 + k]!;
    return sum / (to - from);
  };
  let best = Math.round(FALLBACK_FLOOR * mh);
  let bestStep = MIN_FLOOR_STEP;
  for (let y = Math.max(window, Math.round(0.3 * mh)); y <= Math.min(mh - window, Math.round(0.92 * mh)); y++) {
    const step = Math.hypot(...[0, 1, 2].map((k) => mean(y - window, y, k) - mean(y, y + window, k)));
    if (step > bestStep) {
      bestStep = step;
      best = y;
    }
  }
  return best;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = values.sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Share (0–1) of the box's cells that are occupied; a box outside the picture counts as fully occupied. */
export function occupiedShare(map: RoomMap, box: Box): number {
  const cx0 = Math.max(0, Math.floor(box.x / map.cellWidth));
  const cy0 = Math.max(0, Math.floor(box.y / map.cellHeight));
  const cx1 = Math.min(map.cellsX, Math.ceil((box.x + box.width) / map.cellWidth));
  const cy1 = Math.min(map.cellsY, Math.ceil((box.y + box.height) / map.cellHeight));
  if (cx1 <= cx0 || cy1 <= cy0) return box.width > 0 && box.height > 0 ? 1 : 0;
  const stride = map.cellsX + 1;
  const sum =
    map.occupied[cy1 * stride + cx1]! -
    map.occupied[cy0 * stride + cx1]! -
    map.occupied[cy1 * stride + cx0]! +
    map.occupied[cy0 * stride + cx0]!;
  return sum / ((cx1 - cx0) * (cy1 - cy0));
}

export function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}
