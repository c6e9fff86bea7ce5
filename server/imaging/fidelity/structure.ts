/** Unmatched edges grouped into changes and named: an opening removed, added or moved, a wall line moved, a built-in. */
import { cellRegions, square } from './cells.js';
import type { ChangeKind, WorkChange } from './report.js';
import type { RoomLines } from './room-lines.js';
import { filled } from '../filled.js';

/** A structural change with its lost and added edge length (picture heights). */
export type EdgeChange = WorkChange & { lost: number; added: number };

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
export function structuralChanges(
  lost: Uint8Array,
  added: Uint8Array,
  weights: Float32Array,
  width: number,
  height: number,
  room?: RoomLines,
): EdgeChange[] {
  const cellsX = Math.ceil(width / REPORT_CELL);
  const cellsY = Math.ceil(height / REPORT_CELL);
  const lostCells = filled(Float32Array, cellsX * cellsY);
  const addedCells = filled(Float32Array, cellsX * cellsY);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const w = weights[i] as number;
      if (w <= 0) continue;
      const cell = Math.floor(y / REPORT_CELL) * cellsX + Math.floor(x / REPORT_CELL);
      if (lost[i]) lostCells[cell] = (lostCells[cell] as number) + w;
      if (added[i]) addedCells[cell] = (addedCells[cell] as number) + w;
    }
  const found: EdgeChange[] = [];
  const touched = (cell: number) => (lostCells[cell] as number) + (addedCells[cell] as number) > 0;
  for (const { cells, left, top, right, bottom } of cellRegions(cellsX, cellsY, touched, square(REPORT_JOIN))) {
    let lostSum = 0;
    let addedSum = 0;
    for (const cell of cells) {
      lostSum += lostCells[cell] as number;
      addedSum += addedCells[cell] as number;
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
