import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOM_TYPES, SPONSORED_PRODUCTS, type RoomType } from '../../../server/imaging/catalog-data.js';
import type { Placement } from '../../../server/imaging/engine.js';
import { analyseRoom, overlaps } from '../../../server/imaging/room-map.js';
import { SharpImageEngine } from '../../../server/imaging/sharp-engine.js';
import { emptyRoomImage, meanDifference } from './fixtures.js';

const engine = new SharpImageEngine({ concurrency: 2 });
const productsFor = (roomType: RoomType) =>
  SPONSORED_PRODUCTS.filter((product) => product.room_types.includes(roomType))
    .sort((a, b) => b.revenue_per_mille_cents - a.revenue_per_mille_cents)
    .map(({ id, name, brand, category, asset }) => ({ id, name, brand, category, asset }));
const boxOf = ({ x, y, width, height }: { x: number; y: number; width: number; height: number }) => ({
  x,
  y,
  width,
  height,
});

let room: Buffer;
beforeAll(async () => {
  room = await emptyRoomImage(1200, 800);
});

describe('staging records its scene', () => {
  it('reports every piece it drew with its category and a box inside the picture', async () => {
    const staged = await engine.stage(room, { style: 'modern', roomType: 'living_room' });
    const categories = staged.scene.pieces.map((piece) => piece.category).sort();
    expect(categories).toEqual(['armchair', 'artwork', 'coffee_table', 'lamp', 'plant', 'rug', 'side_table', 'sofa']);
    for (const piece of staged.scene.pieces) {
      expect(piece.x).toBeGreaterThanOrEqual(0);
      expect(piece.y).toBeGreaterThanOrEqual(0);
      expect(piece.x + piece.width).toBeLessThanOrEqual(1200);
      expect(piece.y + piece.height).toBeLessThanOrEqual(800);
      expect(await meanDifference(room, staged.data, piece)).toBeGreaterThan(5);
    }
  });

  it('re-renders the original with the scene into the very same pixels', async () => {
    const staged = await engine.stage(room, { style: 'industrial', roomType: 'bedroom' });
    const again = await engine.placeProducts(room, { products: [], maxProducts: 0, scene: staged.scene });
    expect(again.data.equals(staged.data)).toBe(true);
  });
});

describe('placing products in a staged scene', () => {
  it('puts a product in the box of the staged piece of its category, drawn inside that box', async () => {
    const staged = await engine.stage(room, { style: 'modern', roomType: 'living_room' });
    const sofa = staged.scene.pieces.find((piece) => piece.category === 'sofa')!;
    const product = productsFor('living_room').find((p) => p.category === 'sofa')!;
    const placed = await engine.placeProducts(room, { products: [product], maxProducts: 1, scene: staged.scene });
    expect(placed.placements).toEqual([
      { product_id: product.id, name: product.name, brand: product.brand, category: 'sofa', ...boxOf(sofa) },
    ]);
    expect(placed.scene.pieces.filter((piece) => piece.category === 'sofa')).toEqual([
      { ...sofa, source: 'products', asset: product.asset, product_id: product.id },
    ]);
    expect(placed.scene.pieces).toHaveLength(staged.scene.pieces.length);
    // The staged sofa is gone (not painted over): the box now differs from the staged picture, the rest does not.
    expect(await meanDifference(staged.data, placed.data, sofa)).toBeGreaterThan(8);
    expect(await meanDifference(staged.data, placed.data, { x: 0, y: 0, width: 1200, height: 120 })).toBeLessThan(0.5);
  });

  it.each(ROOM_TYPES)('never puts a product over staged furniture of another category (%s)', async (roomType) => {
    const staged = await engine.stage(room, { style: 'scandinavian', roomType });
    const placed = await engine.placeProducts(room, {
      products: productsFor(roomType),
      maxProducts: 5,
      scene: staged.scene,
    });
    expect(placed.placements.length).toBeGreaterThan(0);
    for (const placement of placed.placements) {
      const replaced = staged.scene.pieces.find((piece) => piece.category === placement.category);
      if (replaced) {
        // It took the staged piece's box, so it touches only what that piece touched (the rug under a sofa).
        expect(boxOf(placement)).toEqual(boxOf(replaced));
        continue;
      }
      for (const piece of staged.scene.pieces)
        expect(overlaps(placement, piece), `${placement.category} over ${piece.category}`).toBe(false);
    }
    // Products in free space keep clear of each other too (replacements may overlap, as the staged pieces did).
    expectApart(
      placed.placements.filter(
        (placement) => !staged.scene.pieces.some((piece) => piece.category === placement.category),
      ),
    );
  });
});

describe('placing products in other photos', () => {
  it('finds the floor line of a room photo', async () => {
    const map = await analyseRoom(room, { width: 1200, height: 800 });
    expect(Math.abs(map.floorTop - 0.62 * 800)).toBeLessThan(0.02 * 800);
  });

  it('keeps clear of a busy region drawn where the first product would otherwise go', async () => {
    const products = productsFor('living_room');
    const clean = await engine.placeProducts(room, { products, maxProducts: 3 });
    const first = clean.placements[0]!;
    const busy = {
      x: first.x,
      y: Math.max(first.y, 520),
      width: first.width,
      height: first.y + first.height - Math.max(first.y, 520),
    };
    const cluttered = await sharp(room)
      .composite([{ input: await checkerboard(busy.width, busy.height), left: busy.x, top: busy.y }])
      .jpeg({ quality: 90 })
      .toBuffer();
    const placed = await engine.placeProducts(cluttered, { products, maxProducts: 3 });
    expect(placed.placements.length).toBeGreaterThan(0);
    for (const placement of placed.placements)
      expect(overlaps(placement, busy), `${placement.category} over the clutter`).toBe(false);
    expectApart(placed.placements);
  });

  it.each(ROOM_TYPES)('does not draw over the furniture already in a furnished photo (%s)', async (roomType) => {
    // A staged picture handed over as a plain photo: the engine sees only its pixels.
    const furnished = await engine.stage(room, { style: 'coastal', roomType });
    const bare = await engine.placeProducts(room, {
      products: [],
      maxProducts: 0,
      scene: { style: 'coastal', pieces: [] },
    });
    const placed = await engine.placeProducts(furnished.data, { products: productsFor(roomType), maxProducts: 5 });
    expect(placed.placements.length).toBeGreaterThan(0);
    const [furniture, products] = await Promise.all([
      changedPixels(bare.data, furnished.data),
      changedPixels(furnished.data, placed.data),
    ]);
    let covered = 0;
    let drawn = 0;
    for (let i = 0; i < products.length; i++) {
      if (!products[i]) continue;
      drawn++;
      if (furniture[i]) covered++;
    }
    expect(covered / drawn).toBeLessThan(0.02);
    expectApart(placed.placements);
  });

  it('places the same products in the same boxes every time', async () => {
    const products = productsFor('bedroom');
    const [a, b] = await Promise.all([1, 2].map(() => engine.placeProducts(room, { products, maxProducts: 5 })));
    expect(a!.placements).toEqual(b!.placements);
  });
});

function expectApart(placements: Placement[]) {
  for (const [i, a] of placements.entries())
    for (const b of placements.slice(i + 1)) expect(overlaps(a, b)).toBe(false);
}

/** Where two renders of the same room differ clearly: what was drawn (a piece and its contact shadow). */
async function changedPixels(before: Buffer, after: Buffer): Promise<Uint8Array> {
  const [a, b] = await Promise.all([before, after].map((image) => sharp(image).removeAlpha().raw().toBuffer()));
  const changed = new Uint8Array(a!.length / 3);
  for (let p = 0; p < changed.length; p++) {
    const difference =
      Math.abs(a![p * 3]! - b![p * 3]!) +
      Math.abs(a![p * 3 + 1]! - b![p * 3 + 1]!) +
      Math.abs(a![p * 3 + 2]! - b![p * 3 + 2]!);
    if (difference > 60) changed[p] = 1;
  }
  return changed;
}

/** High-contrast squares: what a cluttered corner looks like to the free-space finder. */
function checkerboard(width: number, height: number, square = 12): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const dark = (Math.floor(x / square) + Math.floor(y / square)) % 2 === 0;
      pixels.fill(dark ? 30 : 230, (y * width + x) * 3, (y * width + x) * 3 + 3);
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}
