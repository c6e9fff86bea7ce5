import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIDELITY_MIN, scoreFidelity } from '../../../server/imaging/fidelity/index.js';
import { decodeSmall } from '../../../server/imaging/fidelity/picture.js';
import {
  project,
  type Raster,
  type Registration,
  refineRegistration,
  registerByLines,
  registerOutput,
} from '../../../server/imaging/register.js';
import { levelled, paintedOver, realRoomsDir } from '../../fixtures/fidelity-real-set.js';

// A real photo (a furnished living room with windows, an archway and wall art) at the fidelity check's working size.
const PHOTO = `${realRoomsDir()}/photos/roomgpt-living.jpg`;

describe('registerOutput', () => {
  let photo: Buffer;
  let before: Raster;

  beforeAll(async () => {
    photo = readFileSync(PHOTO);
    before = (await decodeSmall(photo)).colour;
  });

  const small = async (image: Buffer) => (await decodeSmall(image)).colour;

  it('takes an output of the same size that only gained things as it is, without warping it', async () => {
    const { width = 0, height = 0 } = await sharp(photo).metadata();
    // A dark sofa-sized block on the floor and a bright one on the wall: new edges where there were none.
    const block = (w: number, h: number, colour: string) =>
      sharp({ create: { width: w, height: h, channels: 3, background: colour } })
        .png()
        .toBuffer();
    const staged = await sharp(photo)
      .composite([
        { input: await block(Math.round(width / 3), Math.round(height / 5), '#3a2f28'), left: 300, top: 800 },
        { input: await block(Math.round(width / 10), Math.round(height / 8), '#f0e8d8'), left: 900, top: 300 },
      ])
      .modulate({ brightness: 1.1 })
      .jpeg({ quality: 85 })
      .toBuffer();
    const after = await small(staged);
    const registered = await registerOutput(before, after);
    expect(registered?.warped).toBe(false);
    expect(registered?.image).toBe(after);
    expect(registered?.valid.every((v) => v === 1)).toBe(true);
  });

  it('warps an output of the same size that was shifted, zoomed or cropped, instead of taking it as it is', async () => {
    const { width = 0, height = 0 } = await sharp(photo).metadata();
    // Shifted by 2 % of its width: 6 pixels at the working size, more than the in-place test's reach.
    const shift = Math.round(0.02 * width);
    const shifted = await sharp(photo)
      .extract({ left: shift, top: 0, width: width - shift, height })
      .resize(width, height, { fit: 'fill' })
      .jpeg()
      .toBuffer();
    // Zoomed in by 4 % around the centre and cut back to the photo's size.
    const zoomed = await sharp(photo)
      .resize(Math.round(1.04 * width), Math.round(1.04 * height))
      .extract({ left: Math.round(0.02 * width), top: Math.round(0.02 * height), width, height })
      .jpeg()
      .toBuffer();
    for (const output of [shifted, zoomed]) {
      const registered = await registerOutput(before, await small(output));
      expect(registered?.warped).toBe(true);
    }
  });

  /** A real photo levelled by `degrees` and zoomed by `zoom`, as enhancement tools return it, at its own size. */
  const reframe = async (file: string, degrees: number, zoom: number) => {
    const source = readFileSync(`${realRoomsDir()}/photos/${file}`);
    return { source, ...(await levelled(source, degrees, zoom)) };
  };
  // Real enhancement tools level the horizon and trim a percent or two. At the working size that moves the frame's
  // edges by 2–4 pixels, which the features see but which is too little to make the plain stretch look wrong: taken
  // as it was, a levelled reading room scored 0.25 and a billiard room zoomed by 1 % 0.71.
  it('warps an output levelled by a fraction of a degree or zoomed by 1 %, and the check then passes it', async () => {
    for (const [file, degrees, zoom] of [
      ['dd-reading-room.jpg', 0.3, 1.02],
      ['dd-billiard.jpg', 0, 1.01],
      ['mx-loft-shell.jpg', -0.3, 1.02],
    ] as const) {
      const { source, output } = await reframe(file, degrees, zoom);
      const registered = await registerOutput((await decodeSmall(source)).colour, await small(output));
      expect(registered?.warped, file).toBe(true);
      expect((await scoreFidelity(source, output)).score, file).toBeGreaterThanOrEqual(FIDELITY_MIN);
    }
  });

  // Where features are sparse (the columned hall's plain frieze and ceiling above its last matched feature, the empty
  // living room's white walls), the homography fitted to them put the corners of these levelled photos a few working
  // pixels off, which read as the room's lines moved (0.82 and 0.85). Refused on it, the output is registered again,
  // refined on every pixel.
  it('refines a levelled photo onto the rotation that made it, within a pixel at every corner', async () => {
    // Levelled and zoomed, scaled back to the photo's size (levelled() says where each output pixel comes from in the
    // photo): where each of the output's corners comes from is known. The homography fitted to features alone lands up to several pixels off (at the
    // working size) where the features are sparse; refined on every pixel, within one.
    for (const [file, degrees, zoom] of [
      ['snap-empty-living.jpg', -0.7, 1],
      ['da2-columned-hall.jpg', -0.6, 1.01],
    ] as const) {
      const { source, output, toOriginal } = await reframe(file, degrees, zoom);
      const photo = (await decodeSmall(source)).colour;
      const after = await small(output);
      const { width = 0, height = 0 } = await sharp(source).metadata();
      // An output pixel at the working size, through the full-size pictures, to the photo's at the working size.
      const truth = (x: number, y: number) => {
        const [px, py] = toOriginal((x * width) / after.width, (y * height) / after.height);
        return [(px * photo.width) / width, (py * photo.height) / height];
      };
      const miss = (m: number[]) =>
        Math.max(
          ...[
            [0, 0],
            [after.width, 0],
            [0, after.height],
            [after.width, after.height],
          ].map(([x = 0, y = 0]) => {
            const [qx, qy] = project(m, x, y) ?? [Number.NaN, Number.NaN];
            const [px, py] = truth(x, y) as [number, number];
            return Math.hypot(qx - px, qy - py);
          }),
        );
      const registered = await registerOutput(photo, after);
      const refined = await refineRegistration(photo, registered as Registration);
      expect(miss(registered?.fit?.matrix ?? []), `${file}: the fit`).toBeGreaterThan(1.5);
      expect(miss(refined?.fit?.matrix ?? []), `${file}: refined`).toBeLessThan(1);
    }
  });

  it('refines a fitted homography the features left off, and still refuses a door painted over', async () => {
    const empty = await reframe('snap-empty-living.jpg', -0.7, 1);
    expect((await scoreFidelity(empty.source, empty.output)).score).toBeGreaterThanOrEqual(FIDELITY_MIN);
    const { source, output } = await reframe('da2-columned-hall.jpg', -0.6, 1.01);
    const photo = (await decodeSmall(source)).colour;
    const registered = await registerOutput(photo, await small(output));
    expect(registered?.fit).toBeDefined();
    const refined = await refineRegistration(photo, registered as Registration);
    const [a, b] = [registered?.fit?.matrix ?? [], refined?.fit?.matrix ?? []];
    expect(Math.max(...a.map((v, k) => Math.abs(v - (b[k] ?? Number.NaN))))).toBeGreaterThan(0);
    expect((await scoreFidelity(source, output)).score).toBeGreaterThanOrEqual(FIDELITY_MIN);
    // The middle and right doors painted over with a stretch of the hall's plain wall, on the levelled output.
    for (const [left, width] of [
      [768, 176],
      [1296, 144],
    ] as const) {
      const wall = await sharp(source)
        .extract({ left: 480, top: 213, width: 144, height: 213 })
        .resize(width + 16, 274, { fit: 'fill' })
        .toBuffer();
      const painted = await sharp(output)
        .composite([{ input: wall, left: left - 8, top: 209 }])
        .jpeg({ quality: 90 })
        .toBuffer();
      const result = await scoreFidelity(source, painted);
      expect(result.score, `door at ${left}`).toBeLessThan(FIDELITY_MIN);
      expect(result.changes.map((change) => change.kind)).toContain('opening_removed');
    }
  });

  // An AI staging of an empty room from outside the set came back stretched 1.8 % across and shifted by 1.3 % of its
  // width (its left window 3 working pixels further left, its right one half a pixel further right) and was taken as
  // it is: its quarters still lined up best unshifted, and the staged room had too few features in common with the
  // empty one for a homography. Its windows read as removed (0.65). Refused so, an output is placed again by the
  // room's own lines; here the set's photos are stretched and shifted so, or zoomed 1.5 % both ways.
  it("places an output zoomed a per cent or two by the room's own lines, within 1.5 pixels at every corner", async () => {
    for (const [file, zx, zy] of [
      ['hs-fireplace-living.jpg', 1.018, 1],
      ['snap-empty-living.jpg', 1.018, 1],
      ['da2-columned-hall.jpg', 1.02, 1],
      ['dd-billiard.jpg', 1.015, 1.015],
    ] as const) {
      const source = readFileSync(`${realRoomsDir()}/photos/${file}`);
      const { width = 0, height = 0 } = await sharp(source).metadata();
      // Stretched by zx across and zy down, then cut back to the photo's size from `left`, `top`.
      const [left, top] = [Math.round(0.0134 * width), Math.round(((zy - 1) * height) / 2)];
      const output = await sharp(source)
        .resize(Math.round(zx * width), Math.round(zy * height), { fit: 'fill' })
        .extract({ left, top, width, height })
        .jpeg({ quality: 90 })
        .toBuffer();
      const photo = (await decodeSmall(source)).colour;
      const registered = await registerByLines(photo, await small(output));
      // Where each corner of the output comes from in the photo, at the working size.
      const scale = photo.width / width;
      const corners = [
        [0, 0],
        [photo.width, 0],
        [0, photo.height],
        [photo.width, photo.height],
      ] as const;
      const miss = (m: number[]) =>
        Math.max(
          ...corners.map(([x, y]) => {
            const [px, py] = project(m, x, y) ?? [Number.NaN, Number.NaN];
            return Math.hypot(px - (x + left * scale) / zx, py - (y + top * scale) / zy);
          }),
        );
      // Taken as it is, a corner is 2 pixels off or more, beyond edge matching's reach; placed, within 1.5 (0.2–1.3
      // measured: the zoom down is read from the top and bottom thirds' middles and carried out to the corners).
      expect(miss([1, 0, 0, 0, 1, 0, 0, 0, 1]), file).toBeGreaterThan(2);
      expect(miss(registered?.fit?.matrix ?? []), file).toBeLessThan(1.5);
    }
    // The photo re-encoded has nothing to place.
    const source = readFileSync(`${realRoomsDir()}/photos/hs-fireplace-living.jpg`);
    const same = await sharp(source).jpeg({ quality: 80 }).toBuffer();
    expect(await registerByLines((await decodeSmall(source)).colour, await small(same))).toBeNull();
  });

  // Diffusion tools work on squares: some pad the photo with bars to a square and return it so, others squash it.
  // The bars put the output's corners far outside the photo (no plausible reframing: unaligned, 0), and ORB matches
  // too little of a picture squashed by nearly half.
  it('places an output padded to a square with bars, or squashed to one, on the photo', async () => {
    const source = readFileSync(`${realRoomsDir()}/photos/snap-empty-living.jpg`); // 16:9
    for (const [label, output] of [
      ['black bars', await sharp(source).resize(1024, 1024, { fit: 'contain', background: '#000' }).jpeg().toBuffer()],
      ['white bars', await sharp(source).resize(1024, 1024, { fit: 'contain', background: '#fff' }).jpeg().toBuffer()],
      ['squashed', await sharp(source).resize(768, 768, { fit: 'fill' }).jpeg().toBuffer()],
    ] as const) {
      const registered = await registerOutput((await decodeSmall(source)).colour, await small(output));
      expect(registered, label).not.toBeNull();
      const covered = registered?.valid.reduce((sum, v) => sum + v, 0) ?? 0;
      expect(covered / (registered?.valid.length ?? 1), label).toBeGreaterThan(0.9);
    }
    const padded = await sharp(source).resize(1024, 1024, { fit: 'contain', background: '#000' }).jpeg().toBuffer();
    expect((await scoreFidelity(source, padded)).score).toBeGreaterThanOrEqual(FIDELITY_MIN);
  });
  // A portrait cut of a landscape photo can cover no more of it than its aspect ratio allows: the bounds on a
  // reframing are measured against the largest crop of the output's own shape, not against the whole photo. Measured
  // against the photo, a cut under 40 % of its width was no plausible reframing, and SnapStager's own marketing crop,
  // 35 % of its photo, was placed or not as JPEG quality or a slight blur moved its fit by a pixel. Its features
  // bunch in its middle (the glazed door and its view), and a homography fitted to them bent off beyond them: a cut is
  // placed by the similarity fitted to the same features unless the homography places them measurably better.
  describe('a portrait crop of a landscape photo', () => {
    const set = (file: string) => readFileSync(`${realRoomsDir()}/${file}`);
    const cut = (source: Buffer, [left, top, width, height]: readonly number[]) =>
      sharp(source)
        .extract({ left: left as number, top: top as number, width: width as number, height: height as number })
        .resize(Math.round(1.4 * (width as number)))
        .jpeg({ quality: 90 })
        .toBuffer();

    it("places a real staging's portrait crop re-encoded, softened or sharpened, as engines return it", async () => {
      const photo = set('photos/snap-empty-living.jpg');
      const staged = set('outputs/snap-empty-living-staged.jpg');
      for (const [label, output] of [
        ['as returned', staged],
        ['quality 70', await sharp(staged).jpeg({ quality: 70 }).toBuffer()],
        ['softened', await sharp(staged).blur(0.6).jpeg({ quality: 90 }).toBuffer()],
        ['sharpened', await sharp(staged).sharpen({ sigma: 1.5 }).jpeg({ quality: 90 }).toBuffer()],
      ] as const) {
        const result = await scoreFidelity(photo, output);
        // Placed precisely: nothing of the room reads as moved.
        expect(result.changes, label).toEqual([]);
        expect(result.score, label).toBeGreaterThanOrEqual(FIDELITY_MIN);
      }
    });

    it("places portrait cuts under 40 % of a real room's width, and refuses them with its archway gone", async () => {
      const photo = readFileSync(PHOTO); // 1600 × 1200; the archway at x 1472–1568
      for (const box of [
        [500, 0, 600, 1200],
        [800, 200, 500, 900],
        [900, 0, 700, 1200],
        [500, 100, 560, 1000],
        [1000, 100, 600, 1000],
      ]) {
        const result = await scoreFidelity(photo, await cut(photo, box));
        expect(result.score, box.join(',')).toBeGreaterThanOrEqual(FIDELITY_MIN);
      }
      const archwayGone = await paintedOver(
        photo,
        { left: 1400, top: 300, width: 40, height: 60 },
        { left: 1465, top: 230, width: 110, height: 380 },
        95,
      );
      for (const box of [
        [900, 0, 700, 1200],
        [1000, 100, 600, 1000],
      ]) {
        const result = await scoreFidelity(photo, await cut(archwayGone, box));
        expect(result.score, box.join(',')).toBeLessThan(FIDELITY_MIN);
        expect(result.changes.map((change) => change.kind)).toEqual(['opening_removed']);
      }
    });

    // An engine that returns a 3:2 cut of a 16:9 photo and furnished its floor matches the photo only along the window
    // wall: a band of features a fifth of the cut's height (the plain ceiling and the new floor match nothing). Such a
    // band fixes the similarity that places a cut; it was taken for one object that moved, and the cut refused as
    // unaligned. Here everything of the cut but the band is blurred away, so that only the band can match.
    it('places a cut whose features lie in a band across it, within 3 pixels at its corners', async () => {
      for (const name of ['hs-fireplace-living', 'mx-herringbone-office', 'iop-timber-barn-hall']) {
        const photo = set(`photos/${name}.jpg`);
        const { width = 0, height = 0 } = await sharp(photo).metadata();
        const cutWidth = Math.round((height * 4) / 3);
        const left = Math.round((width - cutWidth) / 2);
        const cutOut = await sharp(photo)
          .extract({ left, top: 0, width: cutWidth, height })
          .resize(1024, 768)
          .toBuffer();
        const band = await sharp(cutOut).extract({ left: 0, top: 307, width: 1024, height: 154 }).toBuffer();
        const output = await sharp(cutOut)
          .blur(30)
          .composite([{ input: band, left: 0, top: 307 }])
          .jpeg({ quality: 90 })
          .toBuffer();
        const photoSmall = (await decodeSmall(photo)).colour;
        const outputSmall = await small(output);
        const registered = await registerOutput(photoSmall, outputSmall);
        expect(registered?.warped, name).toBe(true);
        const m = registered?.fit?.matrix ?? [];
        const at = (x: number, y: number) => project(m, x, y) ?? [Number.NaN, Number.NaN];
        const scale = photoSmall.width / width;
        const expected = [
          [left * scale, 0],
          [(left + cutWidth) * scale, height * scale],
        ];
        const placed = [at(0, 0), at(outputSmall.width, outputSmall.height)];
        for (const [k, [x, y]] of placed.entries()) {
          expect(Math.abs((x as number) - (expected[k]?.[0] as number)), name).toBeLessThan(3);
          expect(Math.abs((y as number) - (expected[k]?.[1] as number)), name).toBeLessThan(3);
        }
      }
    });

    it('does not place a cut showing an eighth of the photo', async () => {
      const photo = readFileSync(PHOTO);
      const result = await scoreFidelity(photo, await cut(photo, [600, 300, 400, 600]));
      expect(result.changes.map((change) => change.kind)).toEqual(['unaligned']);
    });
  });
});
