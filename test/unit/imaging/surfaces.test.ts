import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { FIDELITY_MIN, scoreFidelity } from '../../../server/imaging/fidelity/index.js';
import { decodeSmall, type Grey } from '../../../server/imaging/fidelity/picture.js';
import { recolouredSurfaces } from '../../../server/imaging/fidelity/surfaces.js';
import { realRoomsDir } from '../../fixtures/fidelity-real-set.js';

// recolouredSurfaces on its own, at the working size, with no edge changed anywhere: the case of a real staging where
// a rug laid under new furniture is framed by the furniture and the floor's lines it hides rather than by an outline of
// its own (outside the set, three virtual-staging services' bedrooms and living rooms read so as a floor recoloured).
// The herringbone office's parquet (a floor with a grain of its own) with SnapStager's real cream rug, tinted the
// grey-brown of theirs, laid over a stretch of it; the pieces stand for the furniture the check finds on it.
const set = (file: string) => readFileSync(`${realRoomsDir()}/${file}`);
const RUG_AT = { left: 300, top: 640, width: 520, height: 180 }; // of the office's 1264 × 844
const SCALE = 320 / 1264;

async function withRug(): Promise<Buffer> {
  const { left, top, width, height } = RUG_AT;
  const rug = await sharp(set('outputs/snap-empty-living-staged.jpg'))
    .extract({ left: 330, top: 900, width: 280, height: 200 })
    .resize(width, height, { fit: 'fill' })
    .composite([{ input: { create: { width, height, channels: 3, background: '#8a7a70' } }, blend: 'multiply' }])
    .png()
    .toBuffer();
  return sharp(set('photos/mx-herringbone-office.jpg'))
    .composite([{ input: rug, left, top }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** The office's own parquet under the rug's rectangle, re-stained the rug's colour: the grain kept. */
async function restained(): Promise<Buffer> {
  const { left, top, width, height } = RUG_AT;
  const photo = set('photos/mx-herringbone-office.jpg');
  const patch = await sharp(photo)
    .extract({ left, top, width, height })
    .composite([{ input: { create: { width, height, channels: 3, background: '#b0a8a8' } }, blend: 'screen' }])
    .png()
    .toBuffer();
  return sharp(photo)
    .composite([{ input: patch, left, top }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

type Box = { left: number; top: number; right: number; bottom: number };

/** recolouredSurfaces with no edge lost, and none added but the `lines` given (boxes in work pixels). */
function surfaces(before: Grey, after: Grey, pieces: Box[], lines: Box[] = []) {
  const count = before.width * before.height;
  const added = new Uint8Array(count);
  for (const { left, top, right, bottom } of lines)
    for (let y = top; y <= bottom; y++) for (let x = left; x <= right; x++) added[y * before.width + x] = 1;
  return recolouredSurfaces(before, after, new Float32Array(count).fill(1), new Uint8Array(count), added, pieces);
}

/** A piece of furniture standing on the rug, `grow` times the rug's size about its middle, in work pixels. */
function pieceOver(grow: number) {
  const { left, top, width, height } = RUG_AT;
  const [cx, cy] = [(left + width / 2) * SCALE, (top + height / 2) * SCALE];
  const [w, h] = [width * SCALE * grow, height * SCALE * grow];
  return { left: cx - w / 2, top: cy - h / 2, right: cx + w / 2, bottom: cy + h / 2 };
}

describe('a floor region whose colour moved, by new furniture', () => {
  it('is a recoloured surface with no furniture by it', async () => {
    const before = await decodeSmall(set('photos/mx-herringbone-office.jpg'));
    const found = surfaces(before, await decodeSmall(await withRug()), []);
    expect(found.map((change) => change.kind)).toEqual(['surface_recoloured']);
  });

  it("is a rug laid under the furniture when it brings no grain of the photo's", async () => {
    const before = await decodeSmall(set('photos/mx-herringbone-office.jpg'));
    expect(surfaces(before, await decodeSmall(await withRug()), [pieceOver(1.2)])).toEqual([]);
  });

  it('is a flat piece standing against a line, whose top edge lies on the line and is found no change', async () => {
    // The piece found begins at its first changed edge, up to a cell and a half under its true top (the drawn room's
    // skirting under a flat sofa flush with it, as the fakes' declutter pictures drew it); the region's top row may be
    // the one above the piece's own. The piece as found: the rug's width and a little more, down past the rug.
    const before = await decodeSmall(set('photos/mx-herringbone-office.jpg'));
    const after = await decodeSmall(await withRug());
    const rug = pieceOver(1);
    const found = (lower: number) => ({ ...pieceOver(1.2), top: rug.top + lower, bottom: rug.bottom + 24 });
    for (const lower of [4, 8, 12]) expect(surfaces(before, after, [found(lower)]), `${lower} px lower`).toEqual([]);
    // Two cells and more under it, the region reaches above the piece: a wall or a floor recoloured behind it.
    expect(surfaces(before, after, [found(24)]).map((change) => change.kind)).toEqual(['surface_recoloured']);
  });

  it("is still a floor recoloured when it keeps the photo's grain, or reaches past the furniture", async () => {
    const before = await decodeSmall(set('photos/mx-herringbone-office.jpg'));
    const stain = surfaces(before, await decodeSmall(await restained()), [pieceOver(1.2)]);
    expect(stain.map((change) => change.kind)).toEqual(['surface_recoloured']);
    const past = surfaces(before, await decodeSmall(await withRug()), [pieceOver(0.6)]);
    expect(past.map((change) => change.kind)).toEqual(['surface_recoloured']);
  });
});

// The whole check on the empty living room's white side wall (its wall sample, 320 × 405 of the photo's 1600 × 900)
// under a soft-edged change of colour, the way an engine that draws the room again draws its light again: the patch
// is multiplied by one colour, its edge blurred over 40 photo pixels.
const WALL_AT = { left: 1200, top: 90, width: 320, height: 405 };

async function wallUnder([r, g, b]: [number, number, number]): Promise<Buffer> {
  const photo = set('photos/snap-empty-living.jpg');
  const { width, height } = await sharp(photo).metadata();
  const patch = { width: WALL_AT.width, height: WALL_AT.height, channels: 3 as const, background: { r, g, b } };
  const sharpEdged = await sharp({ create: { width, height, channels: 3, background: '#ffffff' } })
    .composite([{ input: { create: patch }, left: WALL_AT.left, top: WALL_AT.top }])
    .png()
    .toBuffer();
  const shade = await sharp(sharpEdged).blur(40).png().toBuffer();
  return sharp(photo)
    .composite([{ input: shade, blend: 'multiply' }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

describe('a wall in another light', () => {
  it('passes a tenth darker with its colour kept (a patch of sun gone, a lamp no longer lighting it)', async () => {
    const result = await scoreFidelity(set('photos/snap-empty-living.jpg'), await wallUnder([230, 230, 230]));
    expect(result.changes).toEqual([]);
    expect(result.score).toBeGreaterThanOrEqual(FIDELITY_MIN);
  });

  it('is a wall recoloured a quarter darker, or a tenth darker and bluer', async () => {
    for (const colour of [
      [191, 191, 191],
      [217, 230, 247],
    ] as const) {
      const result = await scoreFidelity(set('photos/snap-empty-living.jpg'), await wallUnder([...colour]));
      expect(result.changes.map((change) => change.kind)).toEqual(['surface_recoloured']);
      expect(result.score).toBeLessThan(FIDELITY_MIN);
    }
  });

  it('is a plane drawn again when a new line no furniture accounts for bounds it', async () => {
    // The same tenth darker, its edge along a new vertical line at the patch's left side: an engine that split the
    // wall in two and shaded one side apart (a wall line added).
    const before = await decodeSmall(set('photos/snap-empty-living.jpg'));
    const after = await decodeSmall(await wallUnder([230, 230, 230]));
    const scale = before.width / 1600;
    const x = Math.round(WALL_AT.left * scale);
    const line = { left: x - 1, right: x + 1, top: 0, bottom: Math.round((WALL_AT.top + WALL_AT.height) * scale) };
    expect(surfaces(before, after, [])).toEqual([]);
    expect(surfaces(before, after, [], [line]).map((change) => change.kind)).toEqual(['surface_recoloured']);
    // The same line as the outline of a piece of furniture standing there is light falling past it.
    const piece = { left: x - 24, right: x + 24, top: line.top, bottom: line.bottom };
    expect(surfaces(before, after, [piece], [line])).toEqual([]);
  });
});
