/** Without a scene: which edge changes are furniture standing on the floor (they weigh nothing). */
import { cellRegions, type Neighbourhood, square } from './cells.js';
import { HUNG_BOTTOM } from './appraise.js';
import type { RoomLines } from './room-lines.js';
import { filled } from '../filled.js';

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
 * The part of a piece that rises above furniture height is measured for width over at least this share of the wall
 * down from its top: a lamp's shade is that deep, while the top rows of something wider that barely rises there hold
 * only a corner of its outline (a window's frame, where a patch over it ends a little higher).
 */
const SHADE_DEPTH = 0.1;

/**
 * Changes one above the other in a column, at most this share of the wall apart, belong to one object: a piece of
 * furniture's top edge stands above its flat front (a headboard, a sofa's back), a lamp's shade above a thin pole.
 */
const BRIDGE = 0.12;

/**
 * A thing hung over furniture ends where the row under it holds nothing of the object at either of its sides, nor this
 * share of its width (its own frame's bottom, a window's sill), or the top of something wider on both sides.
 */
const WAIST_ACROSS = 0.5;

/** "On the floor": its bottom reaches this share of the wall above the floor line, or lower. */
const FLOOR_REACH = 0.08;

/** A piece of furniture found among the changes: its bounds in work pixels (bottom and right exclusive). */
export interface FurniturePiece {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/**
 * Without a scene, a change that stands on the floor and stays below door height is a piece of furniture: its
 * edges (its outline, and the wall it hides) weigh nothing. So is one that stands well in front of the back wall
 * and is slender where it rises high (a floor lamp), one whose part above furniture height (the row `hungAbove` is
 * given) `hungAbove` finds to be a thing hung on the wall over it (a canvas over a sofa) or no window (a gallery
 * over a bed that no row cuts apart: appraise.ts, hungAboveFurniture), and a low change floating just above a piece
 * (the top edge of a headboard over its flat front). Changes that float on the wall (a window) or reach up to door
 * or ceiling height (a door, a wall corner) keep the mask's weight, and so does one that `isOpening` recognises
 * however low it stands (a window pasted with its sill on the floor line or on a chair, or one standing so that was
 * painted over: appraise.ts, glazed, index.ts). Returns the weights, the pieces' bounds (whose shadows are no
 * recoloured floor: surfaces.ts), and the bounds of what stood as furniture would but `isOpening` recognised (a new
 * window there caps the score: index.ts).
 */
export function withoutFurniture(
  mask: Float32Array,
  lost: Uint8Array,
  added: Uint8Array,
  width: number,
  height: number,
  { ceiling, floor }: RoomLines,
  isOpening: (piece: FurniturePiece) => boolean = () => false,
  hungAbove: (piece: FurniturePiece, above: FurniturePiece[][], high: number) => boolean = () => false,
): { weights: Float32Array; pieces: FurniturePiece[]; openings: FurniturePiece[] } {
  const cellsX = Math.ceil(width / CLUSTER_CELL);
  const cellsY = Math.ceil(height / CLUSTER_CELL);
  const changed = filled(Uint8Array, cellsX * cellsY);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      if (lost[y * width + x] || added[y * width + x])
        changed[Math.floor(y / CLUSTER_CELL) * cellsX + Math.floor(x / CLUSTER_CELL)] = 1;
  const furniture: boolean[] = [];
  const objects: Array<{ top: number; bottom: number; left: number; right: number; low: boolean }> = [];
  const openings: typeof objects = [];
  const wall = Math.max(1, floor - ceiling);
  const bridge = Math.max(1, Math.round((BRIDGE * wall) / CLUSTER_CELL));
  // Touching cells, and cells up to `bridge` rows apart in one column, are one object.
  const touching: Neighbourhood = (cx, cy, visit) => {
    square(1)(cx, cy, visit);
    for (let dy = 2; dy <= bridge; dy++) {
      visit(cx, cy + dy);
      visit(cx, cy - dy);
    }
  };
  const label = filled(Int32Array, cellsX * cellsY);
  for (const { cells, top, bottom, left, right } of cellRegions(
    cellsX,
    cellsY,
    (cell) => changed[cell] === 1,
    touching,
    label,
  )) {
    // The stem: the object's width between STEM_FROM and STEM_TO of its height (a lamp's pole, not its shade or shadow).
    const stemTop = top + STEM_FROM * (bottom - top);
    const stemBottom = top + STEM_TO * (bottom - top);
    let stemLeft = cellsX;
    let stemRight = -1;
    // What rises above the height a piece of furniture reaches (FURNITURE_TOP): a lamp's shade behind a table.
    const highRow = (ceiling + FURNITURE_TOP * wall) / CLUSTER_CELL;
    // ...over at least SHADE_DEPTH of the wall down from its top.
    const shadeRow = Math.max(highRow, top + (SHADE_DEPTH * wall) / CLUSTER_CELL);
    let highLeft = cellsX;
    let highRight = -1;
    for (const cell of cells) {
      const cy = Math.floor(cell / cellsX);
      if (cy < shadeRow) {
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
    const object = {
      top: topRow,
      bottom: bottomRow,
      left: left * CLUSTER_CELL,
      right: (right + 1) * CLUSTER_CELL,
      low,
    };
    objects.push(object);
    // Furniture with something hung on the wall above it (a canvas over a sofa, a picture over a headboard): what
    // rises above furniture height, cut off at some row between there and where wall decor ends (HUNG_BOTTOM), is
    // a thing hung there; or what rises there, however it joins the furniture, lets in no daylight.
    const hungOver = () => {
      const parts = hungParts(cells, cellsX, [top, bottom], highRow, (ceiling + HUNG_BOTTOM * wall) / CLUSTER_CELL);
      return hungAbove(object, parts, highRow * CLUSTER_CELL);
    };
    const standing = onFloor && (low || slender || hungOver());
    const opening = standing && isOpening(object);
    furniture.push(standing && !opening);
    if (opening) openings.push(object);
  }
  // A low change floating just above a piece of furniture, within its width, is part of it (a headboard's top edge
  // over its flat front).
  const pieces = objects.filter((_, id) => furniture[id]);
  objects.forEach((object, id) => {
    if (furniture[id] || !object.low) return;
    if (
      !pieces.some(
        (piece) =>
          piece.left - CLUSTER_CELL <= object.left &&
          object.right <= piece.right + CLUSTER_CELL &&
          object.bottom >= piece.top - bridge * CLUSTER_CELL,
      )
    )
      return;
    if (isOpening(object)) openings.push(object);
    else furniture[id] = true;
  });
  const weights = filled(Float32Array, mask.length);
  weights.set(mask);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const id = label[Math.floor(y / CLUSTER_CELL) * cellsX + Math.floor(x / CLUSTER_CELL)] as number;
      if (id >= 0 && furniture[id]) weights[y * width + x] = 0;
    }
  }
  const bounds = ({ low: _, ...rest }: (typeof objects)[number]): FurniturePiece => rest;
  return { weights, pieces: objects.filter((_, id) => furniture[id]).map(bounds), openings: openings.map(bounds) };
}

/**
 * What of an object (its `cells`, in rows `top` to `bottom` of a grid `cellsX` wide) lies above each row from
 * `highRow` (furniture height) down to `lowestRow` (fractional rows), as its connected pieces, where each of them ends
 * there (WAIST_ACROSS): the candidates for things hung on the wall over the furniture (a picture over a dresser, another
 * over the bed beside it), in pixels (bottom and right exclusive). None when nothing of it rises above `highRow`.
 */
function hungParts(
  cells: readonly number[],
  cellsX: number,
  [top, bottom]: [number, number],
  highRow: number,
  lowestRow: number,
): FurniturePiece[][] {
  const rows = bottom - top + 1;
  const rowLeft = new Int32Array(rows).fill(cellsX);
  const rowRight = new Int32Array(rows).fill(-1);
  for (const cell of cells) {
    const k = Math.floor(cell / cellsX) - top;
    rowLeft[k] = Math.min(rowLeft[k] as number, cell % cellsX);
    rowRight[k] = Math.max(rowRight[k] as number, cell % cellsX);
  }
  // The object on a grid of its own bounds (`from` its left column), whose connected pieces above each cut are found
  // on the rows down to the cut.
  const from = Math.min(...rowLeft);
  const span = Math.max(...rowRight) - from + 1;
  const own = new Uint8Array(span * rows);
  for (const cell of cells) own[(Math.floor(cell / cellsX) - top) * span + (cell % cellsX) - from] = 1;
  const candidates: FurniturePiece[][] = [];
  for (let cy = Math.max(top, Math.ceil(highRow) - 1); cy < Math.min(bottom, Math.floor(lowestRow)); cy++) {
    // On the object's own grid: rows from its top, columns from `from`.
    const pieces = cellRegions(span, cy - top + 1, (cell) => own[cell] === 1, square(1));
    if (!pieces.length) continue;
    // Cut only where each piece ends: under it, nothing of the object goes on from either of its sides, nor across
    // half its width (a frame's bottom, a window's sill), unless it is the top of something wider on both sides (the
    // sofa's back under a picture). A window or a door cut across goes on down on its sides, and a window's sill spans
    // its width; what stands in the middle under a picture (a lamp's stem, a vase) does not count.
    const next = cy + 1 - top;
    const ends = pieces.every(({ left, right }) => {
      let under = 0;
      let sides = false;
      for (let cx = left; cx <= right; cx++) {
        if (!own[next * span + cx]) continue;
        under++;
        if (cx <= left + 1 || cx >= right - 1) sides = true;
      }
      const wider = (rowLeft[next] as number) - from < left && (rowRight[next] as number) - from > right;
      return wider || (!sides && under < WAIST_ACROSS * (right - left + 1));
    });
    if (!ends) continue;
    candidates.push(
      pieces.map((piece) => ({
        top: (piece.top + top) * CLUSTER_CELL,
        bottom: (piece.bottom + top + 1) * CLUSTER_CELL,
        left: (piece.left + from) * CLUSTER_CELL,
        right: (piece.right + from + 1) * CLUSTER_CELL,
      })),
    );
  }
  return candidates;
}
