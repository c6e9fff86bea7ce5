/**
 * Finds a box for a sponsored product where the photo is free: standing on the floor (or hanging on the wall, or
 * lying flat for a rug), clear of the given obstacles and of the busy parts of the room map. Candidates lie on a
 * fixed grid and the cheapest wins (closest to the category's preferred slots and depth), so the answer is
 * deterministic.
 */
import { bucketWidth } from './assets.js';
import type { ProductSlotSpec } from './furniture-sets.js';
import { type Box, occupiedShare, overlaps, type RoomMap } from './room-map.js';

/** At most this share of the cells a product covers may be busy. */
const MAX_OCCUPIED_SHARE = 0.03;
const STEPS_ACROSS = 48;
const STEPS_DEEP = 24;

/** The size unit staging and placement share: u = min(width, 1.5·height), so pieces keep proportions on panoramas. */
export function layoutUnit(width: number, height: number): number {
  return Math.min(width, 1.5 * height);
}

/** Where pieces at the back of the floor put their feet: halfway down the floor. */
export function floorBaseline(map: Pick<RoomMap, 'floorTop' | 'height'>): number {
  return map.floorTop + 0.5 * (map.height - map.floorTop);
}

/** Nearer the camera (lower in the picture) a piece is drawn larger: ×0.75 at the back of the floor, ×1.25 at the front. */
export function depthScale(depth: number): number {
  return 0.75 + 0.5 * depth;
}

export function findFreeBox(
  map: RoomMap,
  spec: ProductSlotSpec,
  aspect: number,
  obstacles: readonly Box[],
): Box | null {
  const { width, height, floorTop } = map;
  const unit = layoutUnit(width, height);
  const margin = Math.round(0.03 * height);
  const best = { box: null as Box | null, cost: Infinity };
  const slotDistance = (x: number, w: number) =>
    Math.min(...spec.slots.map((slot) => Math.abs((x + w / 2) / width - slot)));
  /** `checked` is the part of the box that must be free (for a standing piece: its part below the wall line). */
  const consider = (box: Box, checked: Box, cost: number) => {
    if (cost >= best.cost) return;
    if (box.x < 0 || box.y < 0 || box.x + box.width > width || box.y + box.height > height) return;
    if (obstacles.some((other) => overlaps(box, other))) return;
    // One cell of clearance beside (and, on the wall, above and below) so a product never touches what is there.
    const clearance = {
      x: checked.x - map.cellWidth,
      y: checked.y - (spec.zone === 'wall' ? map.cellHeight : 0),
      width: checked.width + 2 * map.cellWidth,
      height: checked.height + (spec.zone === 'wall' ? 2 * map.cellHeight : 0),
    };
    if (occupiedShare(map, clearance) > MAX_OCCUPIED_SHARE) return;
    best.box = box;
    best.cost = cost;
  };
  const across = (w: number, visit: (x: number) => void) => {
    for (let i = 0; i <= STEPS_ACROSS; i++) visit(Math.round((i / STEPS_ACROSS) * (width - w)));
  };

  if (spec.zone === 'wall') {
    const w = Math.min(width, bucketWidth(spec.width * unit));
    const h = Math.max(1, Math.round(w * aspect));
    const highest = Math.round(0.04 * height) + h;
    const lowest = floorTop - margin;
    if (lowest < highest) return null;
    const preferred = Math.min(lowest, Math.max(highest, floorBaseline(map) - (spec.wallGap ?? 0.3) * unit));
    for (let i = 0; i <= STEPS_DEEP; i++) {
      const bottom = Math.round(highest + ((lowest - highest) * i) / STEPS_DEEP);
      across(w, (x) => {
        const box = { x, y: bottom - h, width: w, height: h };
        consider(box, box, slotDistance(x, w) + (0.8 * Math.abs(bottom - preferred)) / height);
      });
    }
    return best.box;
  }

  const band = height - floorTop;
  if (band < 0.1 * height) return null;
  const rug = spec.zone === 'rug';
  const preferredDepth = rug ? 0.7 : Math.min(0.95, Math.max(0.15, 0.45 + ((spec.lift ?? 0) * unit) / band));
  for (let i = 0; i <= STEPS_DEEP; i++) {
    const depth = 0.12 + (0.87 * i) / STEPS_DEEP;
    const bottom = Math.round(floorTop + depth * band);
    const w = Math.min(width, bucketWidth(spec.width * unit * depthScale(depth)));
    const h = Math.max(1, Math.round(w * aspect));
    const y = bottom - h;
    if (rug && y < floorTop + margin) continue;
    const checkedTop = Math.max(y, floorTop + margin);
    if (checkedTop >= bottom) continue;
    across(w, (x) => {
      const box = { x, y, width: w, height: h };
      const checked = { x, y: checkedTop, width: w, height: bottom - checkedTop };
      consider(box, checked, slotDistance(x, w) + 0.8 * Math.abs(depth - preferredDepth));
    });
  }
  return best.box;
}
