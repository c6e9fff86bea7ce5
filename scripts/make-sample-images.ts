/**
 * Writes the before/after samples in docs/samples/ from the real empty-room photo there (docs/samples/SOURCES.md):
 * two staged versions of it, sponsored products
 * swapped into the staged living room, and products placed in the free space of the empty room and of a furnished
 * photo (the staged bedroom, seen by the engine as pixels only).
 * Run: npx tsx scripts/make-sample-images.ts
 */
import { readFile, writeFile } from 'node:fs/promises';
import { SPONSORED_PRODUCTS } from '../server/imaging/catalog-data.js';
import { createImageEngine } from '../server/imaging/sharp-engine.js';

const outDir = new URL('../docs/samples/', import.meta.url);
const engine = createImageEngine();
const empty = await readFile(new URL('empty-room.jpg', outDir));

async function save(name: string, image: { data: Buffer; width: number; height: number }, note = '') {
  await writeFile(new URL(name, outDir), image.data);
  console.log(`${name}: ${image.width}×${image.height}, ${(image.data.length / 1024).toFixed(0)} KB${note}`);
}

const variants = [
  { style: 'modern', roomType: 'living_room' },
  { style: 'scandinavian', roomType: 'bedroom' },
] as const;
const staged = new Map<string, Awaited<ReturnType<typeof engine.stage>>>();
for (const { style, roomType } of variants) {
  const image = await engine.stage(empty, { style, roomType });
  staged.set(roomType, image);
  await save(`staged-${style}-${roomType}.jpg`, image);
}

// The products the API would pick for a living room: the best-paying first.
const products = SPONSORED_PRODUCTS.filter((product) => product.room_types.includes('living_room'))
  .sort((a, b) => b.revenue_per_mille_cents - a.revenue_per_mille_cents)
  .map(({ id, name, brand, category, asset }) => ({ id, name, brand, category, asset }));
const describe = (placements: Array<{ category: string }>) => ` (${placements.map((p) => p.category).join(', ')})`;

const swapped = await engine.placeProducts(empty, {
  products,
  maxProducts: 5,
  scene: staged.get('living_room')!.scene,
});
await save('placed-in-staged-living_room.jpg', swapped, describe(swapped.placements));
const free = await engine.placeProducts(empty, { products, maxProducts: 3 });
await save('placed-in-empty-room.jpg', free, describe(free.placements));
const furnished = await engine.placeProducts(staged.get('bedroom')!.data, { products, maxProducts: 5 });
await save('placed-in-furnished-photo.jpg', furnished, describe(furnished.placements));
