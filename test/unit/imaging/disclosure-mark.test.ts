import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { MAX_AREA_SHARE, markBox, markOverlay } from '../../../server/imaging/disclosure-mark.js';
import { finishOutput } from '../../../server/imaging/finish.js';
import { arrangedSet, FURNITURE_SETS } from '../../../server/imaging/furniture-sets.js';

describe('the disclosure mark', () => {
  it.each([
    [4000, 3000],
    [3000, 4000],
    [640, 400],
    [200, 200],
    [10_000, 200],
    [200, 10_000],
  ])('fits a %i × %i picture: inside it, in the bottom-right corner, under 6 %% of its area', (width, height) => {
    const box = markBox(width, height);
    expect(box.left + box.width).toBeLessThanOrEqual(width);
    expect(box.top + box.height).toBeLessThanOrEqual(height);
    expect(box.left).toBeGreaterThan(width / 2 - box.width);
    expect(box.top).toBeGreaterThan(height / 2);
    expect(box.width * box.height).toBeLessThanOrEqual(MAX_AREA_SHARE * width * height);
  });

  it('is about 2.5 % of the short edge high on a 4000 px photo, so it stays legible on a 390 px thumbnail', () => {
    const box = markBox(4000, 3000);
    // The capitals are 10 of the mark's ~19.8 glyph units: 75 px on 3000, 7 px on the 390 px thumbnail.
    expect(box.height).toBeGreaterThan(0.04 * 3000);
    expect(box.height).toBeLessThan(0.06 * 3000);
    expect((box.height * 390) / 4000).toBeGreaterThan(12);
  });

  it('draws white text on a dark backing, without any font installed', async () => {
    const picture = sharp({ create: { width: 800, height: 600, channels: 3, background: '#808080' } });
    const marked = await finishOutput(picture, { width: 800, height: 600 }, { label: 'virtually_staged' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    const box = markBox(800, 600);
    let light = 0;
    let dark = 0;
    for (let y = box.top; y < box.top + box.height; y++) {
      for (let x = box.left; x < box.left + box.width; x++) {
        const value = marked.data[(y * 800 + x) * marked.info.channels] ?? 0;
        if (value > 220) light += 1;
        if (value < 70) dark += 1;
      }
    }
    expect(light).toBeGreaterThan(0.1 * box.width * box.height);
    expect(dark).toBeGreaterThan(0.3 * box.width * box.height);
    expect(markOverlay(800, 600)).toMatchObject({ left: box.left, top: box.top });
  });
});

describe('furniture arrangements by seed', () => {
  it('gives the same arrangement for the same seed and mirrors the room on odd seeds', () => {
    expect(arrangedSet('living_room', 12)).toEqual(arrangedSet('living_room', 12));
    const even = arrangedSet('living_room', 12).find((piece) => piece.key === 'sofa')!;
    const odd = arrangedSet('living_room', 13).find((piece) => piece.key === 'sofa')!;
    const chair = (seed: number) => arrangedSet('living_room', seed).find((piece) => piece.key === 'chair')!.cx;
    expect(chair(12)).toBeGreaterThan(0.5);
    expect(chair(13)).toBeLessThan(0.5);
    expect(even.width).not.toBe(odd.width);
    expect(arrangedSet('bedroom')).toBe(FURNITURE_SETS.bedroom);
  });
});
