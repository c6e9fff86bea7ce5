/** Walls, floors and ceilings repainted or re-surfaced: large regions whose colour moved where their edges did not. */
import type { Raster } from '../register.js';
import { cellRegions, setNear, sides } from './cells.js';
import { colourResidual, fitColourModel, predictColour } from './colour-model.js';
import type { FurniturePiece } from './furniture.js';
import type { Grey } from './picture.js';
import type { WorkChange } from './report.js';
import { filled } from '../filled.js';

/** Colour cells: COLOUR_CELL work pixels square. */
const COLOUR_CELL = 8;
/** A cell's colour moved when it lies this far (RGB levels) from what the picture-wide change predicts. */
const COLOUR_MOVED = 18;
/** A recoloured region counts from this share of the picture: a wall, a floor, a ceiling, not a cushion... */
const RECOLOUR_AREA = 0.015;
/**
 * ...with a core (the cells whose four sides all touch the region or the picture's edge) of at least this share: a
 * seam along the frame or along a strong line (a crop, a registration a pixel off, a photo's own white border) is
 * thin and has none; a wall or a floor, even a small piece of one, is broad.
 */
const RECOLOUR_CORE = 0.006;
/**
 * Cells this bright in either picture (any channel, 0–255) are not judged: a tone change clips there (a sky, a lamp,
 * a sunlit wall blown out), and no picture-wide colour change can follow the clipping.
 */
const CLIPPED = 245;
/** A region whose border is mostly new outline (at least this share) is an object laid on the room: a rug, a sofa. */
const OUTLINE_SHARE = 0.5;
/**
 * ...unless its fine detail is the photo's own: the grain, weave and shading inside its cells correlate with the
 * photo's at least this much (a surface recoloured keeps them; a rug or a sofa brings its own, uncorrelated).
 */
const SAME_TEXTURE = 0.6;
/**
 * What a new piece of furniture lays on the floor or the wall behind it (byPiece), within SHADOW_SIDE of its width
 * on either side of it and SHADOW_BELOW of its height below it, and no larger than it: its shadow (onlyDarker: darker
 * by a factor of at most SHADOW_DARKER, its colour otherwise kept within SHADOW_TINT levels a cell), or, with no grain
 * of the photo's, a rug laid under it or its reflection in a polished floor.
 */
const SHADOW_DARKER = 0.95;
const SHADOW_TINT = 20;
const SHADOW_SIDE = 0.25;
const SHADOW_BELOW = 0.5;
/**
 * A shade the photo does not show: where the photo shows a region dark (its mean level at most LIFT_DARK) and the
 * picture-wide change lifts it at least LIFT_GAIN times, only its hue is judged. A low-light enhancer lifts each part
 * of a dark room by its own amount (a local operator, not one curve), so there the output's lightness says nothing
 * about paint; its hue still does: the region is recoloured when its chromaticity (r, g, b shares) lies more than
 * LIFT_HUE from the prediction's. A repaint in a colour of its own under such a lift moves it 0.13–0.31.
 */
const LIFT_DARK = 64;
const LIFT_GAIN = 1.5;
const LIFT_HUE = 0.05;
/**
 * Another light on a surface, not another paint: a region whose chromaticity lies within RELIT_HUE of the
 * prediction's and whose level lies within RELIT_LEVEL of it (either way). An engine that draws the room again draws
 * its light again: a patch of sun on a wall gone, a wall by a window evened out, a wall a shade darker where a lamp no
 * longer lights it. Paint of another colour moves the chromaticity: of the regions the set's recoloured walls, floors
 * and ceilings leave, under 4 % keep it this close, and most of those move the level further; the few within both
 * bounds belong to edits refused for another region of theirs. A grey wall painted white moves the level well past it.
 */
const RELIT_HUE = 0.02;
const RELIT_LEVEL = 0.85;
/**
 * ...where the picture-wide change lifts the region by at most RELIT_LIFT: a strong lift (a low-light enhancer's, a
 * gamma or a doubled exposure) draws every colour toward white, and there a repaint's hue comes out within RELIT_HUE
 * of the prediction's too (the set's repaints lifted so, 1.35–1.7 times, did and passed 14 times of 406).
 */
const RELIT_LIFT = 1.3;
/** How a region's colour moved from the prediction (recolouredSurfaces, shift). */
interface Shift {
  hue: number;
  photo: number;
  predicted: number;
  output: number;
}
/** Below this spread of grey levels inside the cells (noise), a surface has no grain to compare. */
const TEXTURE_MIN = 2;

/**
 * Large regions whose colour changed where their structure did not, once the picture-wide colour and tone change
 * (fitted robustly to every calm cell: white balance, exposure, contrast, saturation, gamma) is taken out, and less
 * what only lies in another light (liftedShade, relit). `pieces`: the furniture found among the edge changes, whose
 * shadows, rugs and reflections (byPiece) are no recoloured surface.
 */
export function recolouredSurfaces(
  before: Grey,
  after: Grey,
  mask: Float32Array,
  lost: Uint8Array,
  added: Uint8Array,
  pieces: readonly FurniturePiece[] = [],
): Array<WorkChange & { area: number }> {
  const { width, height } = before;
  const cellsX = Math.floor(width / COLOUR_CELL);
  const cellsY = Math.floor(height / COLOUR_CELL);
  const count = cellsX * cellsY;
  if (count < 16) return [];
  const stats = (colour: Raster) => {
    const out = filled(Float32Array, count * 3);
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
  const usable = filled(Uint8Array, count);
  const outline = filled(Uint8Array, count);
  const changed = filled(Uint8Array, count);
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
  const calm = filled(Uint8Array, count);
  for (let cy = 0; cy < cellsY; cy++)
    for (let cx = 0; cx < cellsX; cx++)
      calm[cy * cellsX + cx] = usable[cy * cellsX + cx] && !setNear(changed, cellsX, cellsY, cx, cy) ? 1 : 0;
  // The picture-wide colour and tone change: per output channel, an affine mix of the photo's three channels plus a
  // curve of its own channel (exposure, contrast, white balance, saturation, gamma), fitted to the calm cells with
  // Tukey-weighted least squares, so the cells that moved differently (a repainted wall) do not pull it. Cells the
  // output clips are left out of the fit as they are left out of the judging: their level says only "at least this
  // bright", and fitted as it stands, a strong exposure's blown-out fifth of the picture bent the curve until a sunlit
  // wall beside a window read as repainted.
  const clipped = (cells: Float32Array, cell: number) =>
    Math.max(cells[cell * 3] as number, cells[cell * 3 + 1] as number, cells[cell * 3 + 2] as number) >= CLIPPED;
  const calmCells: number[] = [];
  for (let cell = 0; cell < count; cell++) if (calm[cell] && !clipped(b, cell)) calmCells.push(cell);
  if (calmCells.length < 16) return [];
  const model = fitColourModel(a, b, calmCells);
  // A cell moved when its colour lies far from what the picture-wide change predicts; clipped cells are not judged.
  const moved = filled(Uint8Array, count);
  for (let cell = 0; cell < count; cell++) {
    if (!usable[cell] || clipped(a, cell) || clipped(b, cell)) continue;
    if (colourResidual(model, a, b, cell) > COLOUR_MOVED) moved[cell] = 1;
  }
  const calmFound = movedRegions((cell) => moved[cell] === 1 && calm[cell] === 1, false);
  if (calmFound.length) return calmFound;
  // A surface re-textured or washed out changes its fine edges too, so none of its cells is calm: a region of moved
  // cells, calm or not, counts when its fine detail is still the photo's own (the grain and shading kept under a new
  // colour or material); furniture, curtains and rugs bring detail of their own.
  return movedRegions((cell) => moved[cell] === 1, true);

  function movedRegions(member: (cell: number) => boolean, needTexture: boolean): Array<WorkChange & { area: number }> {
    const found: Array<WorkChange & { area: number }> = [];
    for (const region of cellRegions(cellsX, cellsY, member, sides)) {
      if (region.cells.length < RECOLOUR_AREA * count) continue;
      // Its core: the cells with the region (or the picture's edge) on all four sides.
      const core: number[] = [];
      for (const cell of region.cells) {
        let inside = true;
        const cx = cell % cellsX;
        sides(cx, (cell - cx) / cellsX, (nx, ny) => {
          if (nx >= 0 && ny >= 0 && nx < cellsX && ny < cellsY && !member(ny * cellsX + nx)) inside = false;
        });
        if (inside) core.push(cell);
      }
      if (core.length < RECOLOUR_CORE * count) continue;
      // The grain is compared in the core only: along the region's edge an object's outline and the floor beside it
      // share the cells, and a flat sofa drawn over a shaded floor would borrow the floor's detail there.
      const ownDetail = ownTexture(before, after, core, cellsX);
      if (needTexture && !ownDetail) continue;
      // The cells around the region, and how much of that border is a new outline (in or beside a border cell). A
      // rug or a sofa is outlined and brings its own grain; a floor recoloured up to a ragged new edge keeps the
      // photo's.
      const border = new Set<number>();
      for (const cell of region.cells) {
        const cx = cell % cellsX;
        sides(cx, (cell - cx) / cellsX, (nx, ny) => {
          if (nx >= 0 && ny >= 0 && nx < cellsX && ny < cellsY && !member(ny * cellsX + nx))
            border.add(ny * cellsX + nx);
        });
      }
      let outlined = 0;
      // New edges on the border that no piece of furniture accounts for: a line the engine drew into the room.
      let drawn = 0;
      for (const cell of border) {
        const cx = cell % cellsX;
        const cy = (cell - cx) / cellsX;
        if (!setNear(outline, cellsX, cellsY, cx, cy)) continue;
        outlined++;
        if (!nearPiece(cx, cy)) drawn++;
      }
      if (border.size && outlined >= OUTLINE_SHARE * border.size && !ownDetail) continue;
      // A shade or a light the photo does not show is no paint; light ends softly or at furniture, a plane the engine
      // drew again (a wall line added, its two sides shaded apart) at a new line of its own.
      const moved = shift(region.cells);
      if (liftedShade(moved) || (relit(moved) && !drawn)) continue;
      const { left, top, right, bottom } = region;
      // By new furniture, a region is its shadow, or a rug or a reflection that brings no grain of the photo's: a floor
      // recoloured keeps its grain, and a wall or a floor repainted reaches past the pieces standing on it.
      const laid = byPiece(region.cells, [left, top, right, bottom]);
      if (laid && (!ownDetail || onlyDarker(region.cells))) continue;
      const area = region.cells.length * COLOUR_CELL * COLOUR_CELL;
      found.push({
        kind: 'surface_recoloured',
        box: [
          left * COLOUR_CELL,
          top * COLOUR_CELL,
          (right - left + 1) * COLOUR_CELL,
          (bottom - top + 1) * COLOUR_CELL,
        ],
        size: area / (height * height),
        area,
      });
    }
    return found;
  }

  /**
   * How a region's colour moved from the prediction: its mean chromaticity distance (r, g, b shares) per cell, and its
   * photo's, predicted and output mean levels.
   */
  function shift(cells: number[]): Shift {
    let photo = 0;
    let predicted = 0;
    let output = 0;
    let hue = 0;
    for (const cell of cells) {
      const p = [0, 1, 2].map((c) => predictColour(model, a, cell, c));
      const q = [0, 1, 2].map((c) => b[cell * 3 + c] as number);
      const pSum = p.reduce((sum, v) => sum + v, 0);
      const qSum = q.reduce((sum, v) => sum + v, 0);
      if (pSum <= 0 || qSum <= 0) return { hue: Infinity, photo: 0, predicted: 0, output: 0 };
      hue += Math.hypot(...p.map((v, c) => v / pSum - (q[c] as number) / qSum));
      photo += ((a[cell * 3] as number) + (a[cell * 3 + 1] as number) + (a[cell * 3 + 2] as number)) / 3;
      predicted += pSum / 3;
      output += qSum / 3;
    }
    const n = cells.length;
    return { hue: hue / n, photo: photo / n, predicted: predicted / n, output: output / n };
  }

  /** Whether a region is dark in the photo, lifted by the picture-wide change and kept in hue (LIFT_*). */
  function liftedShade({ hue, photo, predicted }: Shift): boolean {
    return photo <= LIFT_DARK && predicted >= LIFT_GAIN * photo && hue <= LIFT_HUE;
  }

  /** Whether a region only lies in another light: its hue kept, its level close, the picture not lifted (RELIT_*). */
  function relit({ hue, photo, predicted, output }: Shift): boolean {
    return (
      hue <= RELIT_HUE &&
      predicted <= RELIT_LIFT * photo &&
      output >= RELIT_LEVEL * predicted &&
      predicted >= RELIT_LEVEL * output
    );
  }

  /** Whether the cell at (cx, cy) lies within a cell of a new piece's box. */
  function nearPiece(cx: number, cy: number): boolean {
    const x = (cx + 0.5) * COLOUR_CELL;
    const y = (cy + 0.5) * COLOUR_CELL;
    return pieces.some(
      (piece) =>
        x >= piece.left - COLOUR_CELL &&
        x <= piece.right + COLOUR_CELL &&
        y >= piece.top - COLOUR_CELL &&
        y <= piece.bottom + COLOUR_CELL,
    );
  }

  /**
   * Whether a region (its cells, and its bounds in cells) lies within a new piece's reach, no larger than it. Its top
   * row of cells may be the one above the row that holds the piece's top: a piece's top edge blurs into that row, or
   * lies on a line the piece stands against (a flat sofa flush with the skirting), where it is no change and the
   * piece found begins at its next changed edge, up to a cell and a half lower.
   */
  function byPiece(cells: number[], [left, top, right, bottom]: [number, number, number, number]): boolean {
    const x0 = left * COLOUR_CELL;
    const x1 = (right + 1) * COLOUR_CELL;
    const y1 = (bottom + 1) * COLOUR_CELL;
    return pieces.some((piece) => {
      const w = piece.right - piece.left;
      const h = piece.bottom - piece.top;
      return (
        cells.length * COLOUR_CELL * COLOUR_CELL <= w * h &&
        x0 >= piece.left - SHADOW_SIDE * w &&
        x1 <= piece.right + SHADOW_SIDE * w &&
        top >= Math.floor(piece.top / COLOUR_CELL) - 1 &&
        y1 <= piece.bottom + SHADOW_BELOW * h
      );
    });
  }

  /**
   * Whether a region's cells are only darker than predicted: one factor of at most SHADOW_DARKER on the predicted
   * colour explains them within SHADOW_TINT levels a cell.
   */
  function onlyDarker(cells: number[]): boolean {
    // The predicted colour of each of the region's cells, channel by channel: the factor and the tint both use it.
    const predicted = new Float64Array(cells.length * 3);
    let along = 0;
    let square = 0;
    cells.forEach((cell, k) => {
      for (let c = 0; c < 3; c++) {
        const p = predictColour(model, a, cell, c);
        predicted[k * 3 + c] = p;
        along += (b[cell * 3 + c] as number) * p;
        square += p * p;
      }
    });
    const factor = square > 0 ? along / square : 1;
    if (factor > SHADOW_DARKER) return false;
    let tint = 0;
    cells.forEach((cell, k) => {
      tint += Math.hypot(
        (b[cell * 3] as number) - factor * (predicted[k * 3] as number),
        (b[cell * 3 + 1] as number) - factor * (predicted[k * 3 + 1] as number),
        (b[cell * 3 + 2] as number) - factor * (predicted[k * 3 + 2] as number),
      );
    });
    return tint / cells.length <= SHADOW_TINT;
  }
}

/**
 * Whether the fine detail inside `cells` (each pixel against its cell's mean: grain, weave, the shading within a
 * cell) is the photo's own in the output: correlated at least SAME_TEXTURE, where there is detail to compare.
 */
function ownTexture(before: Grey, after: Grey, cells: number[], cellsX: number): boolean {
  const { width } = before;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  const n = COLOUR_CELL * COLOUR_CELL;
  for (const cell of cells) {
    const x0 = (cell % cellsX) * COLOUR_CELL;
    const y0 = Math.floor(cell / cellsX) * COLOUR_CELL;
    let ma = 0;
    let mb = 0;
    for (let y = y0; y < y0 + COLOUR_CELL; y++)
      for (let x = x0, i = y * width + x0; x < x0 + COLOUR_CELL; x++, i++) {
        ma += before.data[i] as number;
        mb += after.data[i] as number;
      }
    ma /= n;
    mb /= n;
    for (let y = y0; y < y0 + COLOUR_CELL; y++)
      for (let x = x0, i = y * width + x0; x < x0 + COLOUR_CELL; x++, i++) {
        const da = (before.data[i] as number) - ma;
        const db = (after.data[i] as number) - mb;
        sab += da * db;
        saa += da * da;
        sbb += db * db;
      }
  }
  const pixels = cells.length * n;
  if (saa / pixels < TEXTURE_MIN ** 2 || sbb / pixels < TEXTURE_MIN ** 2) return false;
  return sab / Math.sqrt(saa * sbb) >= SAME_TEXTURE;
}
