/** Grids of cells over the working picture, and the connected regions the check groups them into. */

import { filled } from '../filled.js';

/** A connected region of cells: its cells (index `cy * cellsX + cx`) and its bounding box in cells. */
export interface CellRegion {
  cells: number[];
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The cells that count as touching cell (cx, cy): each is handed to `visit`, which ignores those off the grid. */
export type Neighbourhood = (cx: number, cy: number, visit: (nx: number, ny: number) => void) => void;

/** Every cell within `reach` cells of (cx, cy), the cell itself included (reach 1: the 8 neighbours). */
export const square =
  (reach: number): Neighbourhood =>
  (cx, cy, visit) => {
    for (let dy = -reach; dy <= reach; dy++) for (let dx = -reach; dx <= reach; dx++) visit(cx + dx, cy + dy);
  };

/** The 4 cells that share a side with (cx, cy). */
export const sides: Neighbourhood = (cx, cy, visit) => {
  visit(cx + 1, cy);
  visit(cx - 1, cy);
  visit(cx, cy + 1);
  visit(cx, cy - 1);
};

/**
 * The connected regions of the cells `member` accepts on a `cellsX` × `cellsY` grid, in the order of their first cell
 * (row by row). `label`, when given, receives each cell's region index (-1 for cells in none).
 */
export function cellRegions(
  cellsX: number,
  cellsY: number,
  member: (cell: number) => boolean,
  neighbours: Neighbourhood,
  label: Int32Array = filled(Int32Array, cellsX * cellsY),
): CellRegion[] {
  label.fill(-1);
  const regions: CellRegion[] = [];
  // The region being grown (its index: regions.length): one visitor serves them all (a visitor made per region cost
  // about a quarter of a search over a picture's pixels, where the regions are many specks).
  let region: CellRegion = { cells: [], left: 0, top: 0, right: 0, bottom: 0 };
  const visit = (nx: number, ny: number) => {
    if (nx < 0 || ny < 0 || nx >= cellsX || ny >= cellsY) return;
    const next = ny * cellsX + nx;
    if (label[next] !== -1 || !member(next)) return;
    label[next] = regions.length;
    region.cells.push(next);
  };
  for (let start = 0; start < cellsX * cellsY; start++) {
    if (label[start] !== -1 || !member(start)) continue;
    region = { cells: [start], left: cellsX, top: cellsY, right: 0, bottom: 0 };
    label[start] = regions.length;
    for (let head = 0; head < region.cells.length; head++) {
      const cell = region.cells[head] as number;
      const cx = cell % cellsX;
      const cy = (cell - cx) / cellsX;
      region.left = Math.min(region.left, cx);
      region.right = Math.max(region.right, cx);
      region.top = Math.min(region.top, cy);
      region.bottom = Math.max(region.bottom, cy);
      neighbours(cx, cy, visit);
    }
    regions.push(region);
  }
  return regions;
}

/** Whether any cell of `grid` within one cell of (cx, cy), the cell itself included, is set. */
export function setNear(grid: Uint8Array, cellsX: number, cellsY: number, cx: number, cy: number): boolean {
  for (let dy = -1; dy <= 1; dy++)
    for (let dx = -1; dx <= 1; dx++) {
      const nx = cx + dx;
      const ny = cy + dy;
      if (nx >= 0 && ny >= 0 && nx < cellsX && ny < cellsY && grid[ny * cellsX + nx]) return true;
    }
  return false;
}
