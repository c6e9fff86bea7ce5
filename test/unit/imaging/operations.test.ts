import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { SPONSORED_PRODUCTS } from '../../../server/imaging/catalog-data.js';
import { createImageEngine } from '../../../server/imaging/sharp-engine.js';
import { emptyRoomImage, meanDifference } from './fixtures.js';

const engine = createImageEngine({ concurrency: 2 });
let room: Buffer;

beforeAll(async () => {
  room = await emptyRoomImage(1200, 800);
});

describe('stage', () => {
  it('keeps the width and height and furnishes the floor visibly', async () => {
    const staged = await engine.stage(room, { style: 'modern', roomType: 'living_room' });
    expect(staged).toMatchObject({ contentType: 'image/jpeg', width: 1200, height: 800 });
    expect(await sharp(staged.data).metadata()).toMatchObject({ format: 'jpeg', width: 1200, height: 800 });
    const floor = { x: 0, y: 480, width: 1200, height: 320 };
    expect(await meanDifference(room, staged.data, floor)).toBeGreaterThan(15);
  });

  it('gives two styles visibly different results', async () => {
    const [modern, industrial] = await Promise.all([
      engine.stage(room, { style: 'modern', roomType: 'living_room' }),
      engine.stage(room, { style: 'industrial', roomType: 'living_room' }),
    ]);
    expect(
      await meanDifference(modern.data, industrial.data, { x: 0, y: 0, width: 1200, height: 800 }),
    ).toBeGreaterThan(8);
  });

  it('stages every room type in every style', async () => {
    const small = await emptyRoomImage(400, 300);
    const { ROOM_TYPES, STYLES } = await import('../../../server/imaging/catalog-data.js');
    for (const roomType of ROOM_TYPES) {
      for (const style of STYLES) {
        const staged = await engine.stage(small, { style, roomType });
        expect([staged.width, staged.height]).toEqual([400, 300]);
      }
    }
  }, 60_000);

  it('honours EXIF orientation and strips EXIF and GPS from the output', async () => {
    const withExif = await sharp(room)
      .withExif({ IFD0: { Make: 'TestCam' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' } })
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    expect((await sharp(withExif).metadata()).exif).toBeDefined();
    const staged = await engine.stage(withExif, { style: 'coastal', roomType: 'bedroom' });
    expect([staged.width, staged.height]).toEqual([800, 1200]);
    const metadata = await sharp(staged.data).metadata();
    expect(metadata.exif).toBeUndefined();
    expect(metadata.orientation).toBeUndefined();
  });
});

describe('enhance', () => {
  it('makes the long edge 3840 px for a landscape input, keeping the aspect ratio', async () => {
    const enhanced = await engine.enhance(room);
    expect(enhanced.width).toBe(3840);
    expect(Math.abs(enhanced.height - (3840 * 800) / 1200)).toBeLessThanOrEqual(1);
    expect(await sharp(enhanced.data).metadata()).toMatchObject({ width: enhanced.width, height: enhanced.height });
  });

  it('makes the long edge 3840 px for a portrait input', async () => {
    const portrait = await emptyRoomImage(600, 900);
    const enhanced = await engine.enhance(portrait);
    expect(enhanced.height).toBe(3840);
    expect(Math.abs(enhanced.width - (3840 * 600) / 900)).toBeLessThanOrEqual(1);
  });
});

describe('placeProducts', () => {
  const products = SPONSORED_PRODUCTS.map(({ id, name, brand, category, asset }) => ({
    id,
    name,
    brand,
    category,
    asset,
  }));

  it('places up to maxProducts in non-overlapping boxes inside the image and draws them', async () => {
    const result = await engine.placeProducts(room, { products, maxProducts: 5 });
    expect([result.width, result.height]).toEqual([1200, 800]);
    expect(result.placements.length).toBeGreaterThan(0);
    expect(result.placements.length).toBeLessThanOrEqual(5);
    for (const [i, a] of result.placements.entries()) {
      expect(
        Number.isInteger(a.x) && Number.isInteger(a.y) && Number.isInteger(a.width) && Number.isInteger(a.height),
      ).toBe(true);
      expect(a.x).toBeGreaterThanOrEqual(0);
      expect(a.y).toBeGreaterThanOrEqual(0);
      expect(a.x + a.width).toBeLessThanOrEqual(1200);
      expect(a.y + a.height).toBeLessThanOrEqual(800);
      for (const b of result.placements.slice(i + 1)) {
        const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
        expect(apart).toBe(true);
      }
      // A thin arc lamp covers little of its box, so the bar is lower than for a solid piece.
      expect(await meanDifference(room, result.data, a)).toBeGreaterThan(6);
    }
  });

  it('places no more than maxProducts', async () => {
    const result = await engine.placeProducts(room, { products, maxProducts: 1 });
    expect(result.placements).toHaveLength(1);
    expect(result.placements[0]).toMatchObject({ product_id: products[0]!.id, brand: products[0]!.brand });
  });
});
