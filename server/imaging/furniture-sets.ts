/**
 * Which furniture goes into each room type and where, in picture-relative units:
 * `cx` is a fraction of the picture width; `width`, `lift` and `wallGap` are fractions of the layout unit
 * u = min(width, 1.5·height), so pieces keep their proportions on very wide panoramas.
 */
import type { RoomType } from './catalog-data.js';

export type Zone =
  /** Stands on the floor; its bottom edge sits `lift` u below (negative: above) the floor baseline. */
  | 'floor'
  /** Hangs on the wall; its bottom edge is `wallGap` u above the floor baseline. */
  | 'wall'
  /** Hangs from the top edge of the picture. */
  | 'ceiling'
  /** Lies flat on the floor just in front of the baseline; drawn first, under everything. */
  | 'rug';

export interface PieceSpec {
  /** Key of the piece in its set, so others can rest on it or stand in front of it. */
  key: string;
  asset: string;
  zone: Zone;
  cx: number;
  width: number;
  lift?: number;
  wallGap?: number;
  /** Rests on top of this piece (a lamp on a nightstand); `surface` is the fraction of its height below the top edge. */
  on?: { key: string; surface: number };
  /** May overlap this piece because it stands in front of it (a chair at a desk). */
  inFrontOf?: string;
}

/**
 * What each furniture drawing is, in the words of the sponsored catalog's categories where one fits (a product of
 * that category replaces the piece); the others only ever stand in the way.
 */
export const FURNITURE_CATEGORIES: Record<string, string> = {
  'armchair.svg': 'armchair',
  'artwork.svg': 'artwork',
  'bathtub.svg': 'bathtub',
  'bed.svg': 'bed',
  'bookshelf.svg': 'bookshelf',
  'coffee-table.svg': 'coffee_table',
  'desk.svg': 'desk',
  'dining-set.svg': 'dining_set',
  'floor-lamp.svg': 'lamp',
  'kids-bed.svg': 'bed',
  'kitchen-island.svg': 'kitchen_island',
  'mirror.svg': 'mirror',
  'nightstand.svg': 'nightstand',
  'office-chair.svg': 'office_chair',
  'outdoor-lounge.svg': 'outdoor_sofa',
  'pendant.svg': 'pendant_lamp',
  'plant.svg': 'plant',
  'rug.svg': 'rug',
  'side-table.svg': 'side_table',
  'sofa.svg': 'sofa',
  'table-lamp.svg': 'table_lamp',
  'towel-rail.svg': 'towel_rail',
  'toy-box.svg': 'toy_box',
  'umbrella.svg': 'parasol',
  'vanity.svg': 'vanity',
};

export const FURNITURE_SETS: Record<RoomType, PieceSpec[]> = {
  living_room: [
    { key: 'rug', asset: 'rug.svg', zone: 'rug', cx: 0.5, width: 0.58 },
    { key: 'art', asset: 'artwork.svg', zone: 'wall', cx: 0.5, width: 0.2, wallGap: 0.22 },
    { key: 'plant', asset: 'plant.svg', zone: 'floor', cx: 0.09, width: 0.1 },
    { key: 'lamp', asset: 'floor-lamp.svg', zone: 'floor', cx: 0.245, width: 0.07 },
    { key: 'sofa', asset: 'sofa.svg', zone: 'floor', cx: 0.5, width: 0.4 },
    { key: 'chair', asset: 'armchair.svg', zone: 'floor', cx: 0.8, width: 0.17, lift: 0.02 },
    { key: 'side', asset: 'side-table.svg', zone: 'floor', cx: 0.935, width: 0.07 },
    { key: 'table', asset: 'coffee-table.svg', zone: 'floor', cx: 0.5, width: 0.25, lift: 0.085, inFrontOf: 'sofa' },
  ],
  bedroom: [
    { key: 'rug', asset: 'rug.svg', zone: 'rug', cx: 0.5, width: 0.62 },
    { key: 'art', asset: 'artwork.svg', zone: 'wall', cx: 0.5, width: 0.18, wallGap: 0.3 },
    { key: 'bed', asset: 'bed.svg', zone: 'floor', cx: 0.5, width: 0.46 },
    { key: 'standL', asset: 'nightstand.svg', zone: 'floor', cx: 0.215, width: 0.09 },
    { key: 'standR', asset: 'nightstand.svg', zone: 'floor', cx: 0.785, width: 0.09 },
    {
      key: 'lampL',
      asset: 'table-lamp.svg',
      zone: 'floor',
      cx: 0.215,
      width: 0.055,
      on: { key: 'standL', surface: 0.08 },
    },
    {
      key: 'lampR',
      asset: 'table-lamp.svg',
      zone: 'floor',
      cx: 0.785,
      width: 0.055,
      on: { key: 'standR', surface: 0.08 },
    },
    { key: 'plant', asset: 'plant.svg', zone: 'floor', cx: 0.92, width: 0.1 },
  ],
  dining_room: [
    { key: 'rug', asset: 'rug.svg', zone: 'rug', cx: 0.5, width: 0.66 },
    { key: 'pendantL', asset: 'pendant.svg', zone: 'ceiling', cx: 0.42, width: 0.06 },
    { key: 'pendantR', asset: 'pendant.svg', zone: 'ceiling', cx: 0.58, width: 0.06 },
    { key: 'art', asset: 'artwork.svg', zone: 'wall', cx: 0.15, width: 0.13, wallGap: 0.3 },
    { key: 'plantL', asset: 'plant.svg', zone: 'floor', cx: 0.1, width: 0.09 },
    { key: 'table', asset: 'dining-set.svg', zone: 'floor', cx: 0.5, width: 0.56 },
    { key: 'plantR', asset: 'plant.svg', zone: 'floor', cx: 0.9, width: 0.09 },
  ],
  kitchen: [
    { key: 'pendantL', asset: 'pendant.svg', zone: 'ceiling', cx: 0.38, width: 0.065 },
    { key: 'pendantR', asset: 'pendant.svg', zone: 'ceiling', cx: 0.62, width: 0.065 },
    { key: 'art', asset: 'artwork.svg', zone: 'wall', cx: 0.87, width: 0.13, wallGap: 0.28 },
    { key: 'plant', asset: 'plant.svg', zone: 'floor', cx: 0.1, width: 0.1 },
    { key: 'island', asset: 'kitchen-island.svg', zone: 'floor', cx: 0.5, width: 0.54 },
  ],
  office: [
    { key: 'rug', asset: 'rug.svg', zone: 'rug', cx: 0.44, width: 0.5 },
    { key: 'art', asset: 'artwork.svg', zone: 'wall', cx: 0.42, width: 0.16, wallGap: 0.27 },
    { key: 'plant', asset: 'plant.svg', zone: 'floor', cx: 0.09, width: 0.1 },
    { key: 'desk', asset: 'desk.svg', zone: 'floor', cx: 0.42, width: 0.36 },
    { key: 'chair', asset: 'office-chair.svg', zone: 'floor', cx: 0.46, width: 0.13, lift: 0.07, inFrontOf: 'desk' },
    { key: 'lamp', asset: 'floor-lamp.svg', zone: 'floor', cx: 0.665, width: 0.065 },
    { key: 'shelf', asset: 'bookshelf.svg', zone: 'floor', cx: 0.83, width: 0.17 },
  ],
  bathroom: [
    { key: 'mat', asset: 'rug.svg', zone: 'rug', cx: 0.36, width: 0.34 },
    { key: 'art', asset: 'artwork.svg', zone: 'wall', cx: 0.36, width: 0.16, wallGap: 0.26 },
    { key: 'mirror', asset: 'mirror.svg', zone: 'wall', cx: 0.78, width: 0.12, wallGap: 0.22 },
    { key: 'towels', asset: 'towel-rail.svg', zone: 'floor', cx: 0.075, width: 0.06 },
    { key: 'tub', asset: 'bathtub.svg', zone: 'floor', cx: 0.36, width: 0.44 },
    { key: 'plant', asset: 'plant.svg', zone: 'floor', cx: 0.62, width: 0.065 },
    { key: 'vanity', asset: 'vanity.svg', zone: 'floor', cx: 0.78, width: 0.25 },
  ],
  kids_room: [
    { key: 'rug', asset: 'rug.svg', zone: 'rug', cx: 0.48, width: 0.5 },
    { key: 'art', asset: 'artwork.svg', zone: 'wall', cx: 0.38, width: 0.15, wallGap: 0.28 },
    { key: 'bed', asset: 'kids-bed.svg', zone: 'floor', cx: 0.38, width: 0.4 },
    { key: 'toys', asset: 'toy-box.svg', zone: 'floor', cx: 0.71, width: 0.16 },
    { key: 'shelf', asset: 'bookshelf.svg', zone: 'floor', cx: 0.895, width: 0.13 },
  ],
  outdoor: [
    { key: 'rug', asset: 'rug.svg', zone: 'rug', cx: 0.46, width: 0.52 },
    { key: 'plant', asset: 'plant.svg', zone: 'floor', cx: 0.1, width: 0.11 },
    { key: 'lounge', asset: 'outdoor-lounge.svg', zone: 'floor', cx: 0.46, width: 0.46 },
    { key: 'table', asset: 'coffee-table.svg', zone: 'floor', cx: 0.46, width: 0.24, lift: 0.085, inFrontOf: 'lounge' },
    { key: 'umbrella', asset: 'umbrella.svg', zone: 'floor', cx: 0.835, width: 0.26 },
  ],
};

/** Where a sponsored product of each category may go, best slot first. */
export interface ProductSlotSpec {
  zone: 'floor' | 'wall' | 'rug';
  width: number;
  slots: number[];
  lift?: number;
  wallGap?: number;
}

const FLOOR_SLOTS = [0.08, 0.92, 0.27, 0.73, 0.5];
const WALL_SLOTS = [0.22, 0.78, 0.5, 0.36, 0.64];

export const PRODUCT_SLOTS: Record<string, ProductSlotSpec> = {
  sofa: { zone: 'floor', width: 0.36, slots: [0.5, 0.35, 0.65], lift: 0.04 },
  armchair: { zone: 'floor', width: 0.16, slots: [0.8, 0.2, 0.62, 0.38], lift: 0.04 },
  side_table: { zone: 'floor', width: 0.07, slots: FLOOR_SLOTS, lift: 0.04 },
  lamp: { zone: 'floor', width: 0.11, slots: [0.27, 0.73, 0.08, 0.92], lift: 0.03 },
  plant: { zone: 'floor', width: 0.09, slots: FLOOR_SLOTS, lift: 0.04 },
  bookshelf: { zone: 'floor', width: 0.11, slots: [0.92, 0.08, 0.73, 0.27], lift: 0.02 },
  pouf: { zone: 'floor', width: 0.09, slots: [0.3, 0.7, 0.5, 0.08, 0.92], lift: 0.09 },
  vase: { zone: 'floor', width: 0.055, slots: FLOOR_SLOTS, lift: 0.04 },
  bar_stool: { zone: 'floor', width: 0.06, slots: [0.35, 0.65, 0.5, 0.2, 0.8], lift: 0.05 },
  rug: { zone: 'rug', width: 0.46, slots: [0.5, 0.3, 0.7] },
  artwork: { zone: 'wall', width: 0.1, slots: WALL_SLOTS, wallGap: 0.3 },
  mirror: { zone: 'wall', width: 0.12, slots: WALL_SLOTS, wallGap: 0.3 },
};

/** Unknown categories are treated as small floor items. */
export const DEFAULT_PRODUCT_SLOT: ProductSlotSpec = { zone: 'floor', width: 0.08, slots: FLOOR_SLOTS, lift: 0.04 };

/** mulberry32: a tiny seeded generator, so one seed always gives the same arrangement on every machine. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The room's set arranged for one seed: odd seeds mirror the room left to right (so consecutive seeds, the
 * variations of one request, always look different), and every piece moves and resizes a little. Pieces that rest
 * on or stand in front of another keep their place relative to it. Without a seed the set is drawn as designed.
 */
export function arrangedSet(roomType: RoomType, seed?: number): PieceSpec[] {
  const specs = FURNITURE_SETS[roomType];
  if (seed === undefined) return specs;
  const random = seededRandom(seed);
  const mirror = seed % 2 === 1;
  const moved = new Map<string, number>();
  return specs.map((spec) => {
    const tied = spec.on?.key ?? spec.inFrontOf;
    const baseCx = mirror ? 1 - spec.cx : spec.cx;
    const shift = tied !== undefined && moved.has(tied) ? (moved.get(tied) ?? 0) : (random() - 0.5) * 0.06;
    const scale = spec.on ? 1 : 0.92 + random() * 0.16;
    moved.set(spec.key, shift);
    return { ...spec, cx: Math.min(0.97, Math.max(0.03, baseCx + shift)), width: spec.width * scale };
  });
}
