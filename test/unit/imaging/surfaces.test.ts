import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
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

function surfaces(
  before: Grey,
  after: Grey,
  pieces: Array<{ left: number; top: number; right: number; bottom: number }>,
) {
  const count = before.width * before.height;
  const none = new Uint8Array(count);
  return recolouredSurfaces(before, after, new Float32Array(count).fill(1), none, none, pieces);
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

  it("is still a floor recoloured when it keeps the photo's grain, or reaches past the furniture", async () => {
    const before = await decodeSmall(set('photos/mx-herringbone-office.jpg'));
    const stain = surfaces(before, await decodeSmall(await restained()), [pieceOver(1.2)]);
    expect(stain.map((change) => change.kind)).toEqual(['surface_recoloured']);
    const past = surfaces(before, await decodeSmall(await withRug()), [pieceOver(0.6)]);
    expect(past.map((change) => change.kind)).toEqual(['surface_recoloured']);
  });
});
