/**
 * Writes the before/after samples in docs/samples/: a drawn empty room and two staged versions of it.
 * Run: npx tsx scripts/make-sample-images.ts
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { createImageEngine } from '../server/imaging/sharp-engine.js';
import { emptyRoomImage } from '../server/imaging/synthetic-room.js';

const outDir = new URL('../docs/samples/', import.meta.url);
await mkdir(outDir, { recursive: true });

const engine = createImageEngine();
const empty = await emptyRoomImage(1600, 1067);
await writeFile(new URL('empty-room.jpg', outDir), empty);

const variants = [
  { style: 'modern', roomType: 'living_room' },
  { style: 'scandinavian', roomType: 'bedroom' },
] as const;
for (const { style, roomType } of variants) {
  const staged = await engine.stage(empty, { style, roomType });
  const name = `staged-${style}-${roomType}.jpg`;
  await writeFile(new URL(name, outDir), staged.data);
  console.log(`${name}: ${staged.width}×${staged.height}, ${(staged.data.length / 1024).toFixed(0)} KB`);
}
