import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { renderChecked } from '../../../server/domain/staging/fidelity-check.js';
import { STYLES } from '../../../server/imaging/catalog-data.js';
import { FIDELITY_MIN } from '../../../server/imaging/fidelity/index.js';
import { createImageEngine } from '../../../server/imaging/sharp-engine.js';
import { rejection } from './fixtures.js';

/** A real photo of an empty room with warm yellow walls (docs/samples/SOURCES.md). */
const photo = readFileSync('docs/samples/empty-room.jpg');
const engine = createImageEngine({ concurrency: 2 });
/** A stretch of the left wall that no piece of any style's living-room set covers (checked below). */
const WALL = { left: 20, top: 450, width: 380, height: 350 };

async function meanColour(image: Buffer, box = WALL): Promise<number[]> {
  const { data } = await sharp(image).extract(box).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const sums = [0, 0, 0];
  for (let i = 0; i < data.length; i++) sums[i % 3]! += data[i]!;
  return sums.map((sum) => sum / (data.length / 3));
}

const clear = (piece: { x: number; y: number; width: number; height: number }) =>
  piece.x >= WALL.left + WALL.width ||
  piece.x + piece.width <= WALL.left ||
  piece.y >= WALL.top + WALL.height ||
  piece.y + piece.height <= WALL.top;

describe('the built-in engine keeps the room', () => {
  it('keeps the wall colour of a real photo in every style (each channel within 1 level of 255)', async () => {
    const before = await meanColour(photo);
    for (const style of STYLES) {
      const staged = await engine.stage(photo, { style, roomType: 'living_room' });
      expect(staged.scene?.pieces.every(clear)).toBe(true);
      const after = await meanColour(staged.data);
      // Measured: 0.0 on every channel in every style (the old colour grade moved them by 4 to 35 levels).
      for (const [channel, value] of after.entries()) expect(Math.abs(value - before[channel]!)).toBeLessThanOrEqual(1);
    }
  }, 60_000);

  it('goes through the same fidelity check as any engine: its output passes, a changed building fails at once', async () => {
    const deps = { engine, fidelityMin: FIDELITY_MIN };
    const checked = await renderChecked(deps, photo, { seed: 1, drawing: {} }, (seed) =>
      engine.stage(photo, { style: 'modern', roomType: 'living_room', seed }),
    );
    expect(checked.fidelity).toBeGreaterThanOrEqual(FIDELITY_MIN);
    // A door painted over the right-hand doorway and a new window on the left wall, outside any piece.
    let renders = 0;
    const error = await rejection(
      renderChecked(deps, photo, { seed: 1, drawing: {} }, async (seed) => {
        renders++;
        const staged = await engine.stage(photo, { style: 'modern', roomType: 'living_room', seed });
        const paint = (width: number, height: number, colour: string) =>
          sharp({ create: { width, height, channels: 3, background: colour } })
            .png()
            .toBuffer();
        const data = await sharp(staged.data)
          .composite([
            { input: await paint(120, 520, '#3a2a1c'), left: 870, top: 380 },
            { input: await paint(200, 260, '#dde8f0'), left: 90, top: 470 },
          ])
          .jpeg({ quality: 90 })
          .toBuffer();
        return { ...staged, data };
      }),
    );
    expect(error).toMatchObject({ code: 'structure_changed' });
    expect(renders).toBe(1);
  }, 60_000);
});
