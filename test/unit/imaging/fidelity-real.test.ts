import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type Column,
  curtainedWindows,
  loadRealCases,
  PROBE_COLUMNS,
  paintedOver,
  REAL_CLASSES,
  type RealCase,
  type RealCut,
  type RealGroup,
  realCuts,
  realRoomsDir,
  realSetPresent,
  type SetPhoto,
  withColumn,
  withColumnsBeside,
  withCurtains,
  withPasted,
  withWindowWidened,
} from '../../fixtures/fidelity-real-set.js';
import { jpegOf, load, paintOver } from '../../../scripts/make-real-edits.js';
import { CHANGE_KINDS, FIDELITY_MIN, scoreFidelity } from '../../../server/imaging/fidelity/index.js';
import { decodeSmall } from '../../../server/imaging/fidelity/picture.js';
import { roomLines } from '../../../server/imaging/fidelity/room-lines.js';

/*
 * The fidelity targets on a sample of the real-photo set (REAL_ROOMS_DIR, default test/fixtures/real-rooms):
 * every third photo and pair, with the hand edits scripts/make-real-edits.ts makes of those photos. Each class must be
 * right at least as often as its target asks, or, where the check does not meet the target yet, as often as the
 * regression guard below says;
 * `npm run bench:fidelity-real` measures the whole set.
 */
const dir = realRoomsDir();
const present = realSetPresent(dir);
const SAMPLE_EVERY = 3;

/** A box as the manifest writes it: left, top, width, height. */
type Rect = [number, number, number, number];

/** The set's manifest: its photos, and its real pairs with the cutouts taken from their stagings. */
interface Manifest {
  photos: SetPhoto[];
  pairs: Array<{ id: string; cutouts?: Array<{ box: Rect; outline?: Array<Array<[number, number]>> }> }>;
}

function readManifest(): Manifest {
  return JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
}

/** One of the set's photos by its id: its manifest entry and its bytes. */
function photoOfSet(id: string): { entry: SetPhoto; bytes: Buffer } {
  const entry = readManifest().photos.find((each) => each.id === id);
  if (!entry) throw new Error(`${id} is missing from the set`);
  return { entry, bytes: readFileSync(join(dir, entry.file)) };
}

/** A copy of the set's manifest with every SAMPLE_EVERY-th photo and pair, beside links to its pictures. */
function sampleSet(): string {
  const manifest = readManifest();
  const every = <T>(items: T[] | undefined) => (items ?? []).filter((_, index) => index % SAMPLE_EVERY === 0);
  const sample = mkdtempSync(join(tmpdir(), 'real-rooms-sample-'));
  for (const folder of ['photos', 'outputs']) symlinkSync(join(dir, folder), join(sample, folder));
  writeFileSync(
    join(sample, 'manifest.json'),
    JSON.stringify({ ...manifest, photos: every(manifest.photos), pairs: every(manifest.pairs) }),
  );
  return sample;
}

/** Two real windows of the set's photos (the panelled bedroom's, the arched room's): the photo and the window's box. */
const REAL_WINDOWS = [
  { source: 'mp-panelled-bedroom.jpg', box: { left: 214, top: 116, width: 58, height: 90 } },
  { source: 'mx-arched-windows.jpg', box: { left: 176, top: 532, width: 185, height: 308 } },
] as const;

/** The television in front of mx-loft-renovated-furnished's kitchen, in that real AI staging: its file and box. */
const REAL_TELEVISION = {
  file: 'outputs/mx-loft-renovated-furnished.jpg',
  box: { left: 267, top: 378, width: 118, height: 66 },
} as const;

/**
 * The potted olive tree a real AI staging (mx-tiled-living-staged) set on the balcony, seen through the door: its
 * file and box, and the colours it is cut by from the bright balcony behind it (no brighter than TREE_GREY, and no
 * redder than green by more than TREE_RED). That keeps the crown's leaves and most of the pot; the thin brown trunk
 * falls away, so the crown stands apart from its pot as n07's does outside the set, and a few specks of the door's
 * frame along the box's left side come with it.
 */
const REAL_TREE = {
  file: 'outputs/mx-tiled-living-staged.jpg',
  box: { left: 508, top: 616, width: 80, height: 170 },
} as const;
const TREE_GREY = 175;
const TREE_RED = 12;

interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** A piece's outline: the corners of a polygon, in pixels of the box it is cut from. */
type Outline = ReadonlyArray<readonly [number, number]>;

/** A box as the manifest writes it (left, top, width, height) as sharp takes it. */
const boxOf = ([left, top, width, height]: Rect): Box => ({ left, top, width, height });

/**
 * The herringbone office's stack of moving boxes (the decluttered pair's first cutout, cut along its outline from the
 * photo), `width` pixels wide at its own aspect ratio, laid with its left side at `left` and its foot at `bottom`.
 */
async function movingBoxes(width: number, left: number, bottom: number) {
  const cutout = readManifest().pairs.find((pair) => pair.id === 'mx-herringbone-office-decluttered')?.cutouts?.[0];
  if (!cutout?.outline?.[0]) throw new Error("the herringbone office's boxes are missing");
  const box = boxOf(cutout.box);
  const outline = cutout.outline[0].map(([x, y]) => [x - box.left, y - box.top] as const);
  const height = Math.round((width * box.height) / box.width);
  const input = await cutOut('photos/mx-herringbone-office.jpg', box, { width, height }, outline);
  return { input, left, top: bottom - height };
}

/**
 * The `box` of one of the set's pictures (`file`, under the set's folder: photos/… or outputs/…) stretched to `size`,
 * as a PNG with alpha; cut as an ellipse (`'oval'`: a round mirror) or along an outline (a sofa) when `shape` says so.
 */
async function cutOut(
  file: string,
  box: Box,
  size: { width: number; height: number },
  shape?: 'oval' | Outline,
): Promise<Buffer> {
  const cut = await sharp(readFileSync(join(dir, file)))
    .extract(box)
    .resize(size.width, size.height, { fit: 'fill' })
    .ensureAlpha()
    .png()
    .toBuffer();
  if (!shape) return cut;
  const { width: w, height: h } = size;
  const points = (outline: Outline) =>
    outline.map(([x, y]) => `${(x * w) / box.width},${(y * h) / box.height}`).join(' ');
  const mask =
    shape === 'oval'
      ? `<ellipse cx="${w / 2}" cy="${h / 2}" rx="${w / 2}" ry="${h / 2}" fill="#fff"/>`
      : `<polygon points="${points(shape)}" fill="#fff"/>`;
  return sharp(cut)
    .composite([{ input: Buffer.from(`<svg width="${w}" height="${h}">${mask}</svg>`), blend: 'dest-in' }])
    .png()
    .toBuffer();
}

/** `picture` with each piece laid on at its place, as a JPEG of `quality`: what a composite edit returns. */
function laidOn(
  picture: Buffer,
  pieces: Array<{ input: Buffer; left: number; top: number }>,
  quality = 90,
): Promise<Buffer> {
  return sharp(picture).composite(pieces).jpeg({ quality }).toBuffer();
}

/** `picture` with `box` of the set's photo `source` laid on at `at`, `height` pixels tall at its own aspect ratio. */
async function hungAt(
  picture: Buffer,
  source: string,
  box: Box,
  height: number,
  at: { left: number; top: number },
): Promise<Buffer> {
  const size = { width: Math.round((height * box.width) / box.height), height };
  return laidOn(picture, [{ input: await cutOut(`photos/${source}`, box, size), ...at }]);
}

/** `picture` with a real window (one of REAL_WINDOWS) resized to `size` and pasted at `at`, as a JPEG of quality 92. */
async function withWindow(
  picture: Buffer,
  { source, box }: (typeof REAL_WINDOWS)[number],
  size: { width: number; height: number },
  at: { left: number; top: number },
): Promise<Buffer> {
  return laidOn(picture, [{ input: await cutOut(`photos/${source}`, box, size), ...at }], 92);
}

describe.skipIf(!present)('the fidelity check on real photographs (a sample of the set)', () => {
  const results = new Map<RealGroup, Array<{ item: RealCase; score: number; kinds: string[] }>>();

  beforeAll(async () => {
    const { cases } = await loadRealCases({ dir: sampleSet() });
    for (const item of cases) {
      const result = await scoreFidelity(readFileSync(item.before), readFileSync(item.after));
      const list = results.get(item.group) ?? [];
      list.push({ item, score: result.score, kinds: result.changes.map((change) => change.kind) });
      results.set(item.group, list);
    }
    for (const group of results.keys()) {
      const { right, count, missed } = rightShare(group);
      console.log(
        `real-set sample, ${group}: ${right} of ${count} right`,
        missed.length ? `(missed: ${missed.join(', ')})` : '',
      );
    }
    // About a minute alone; several while the rest of the suite shares the machine's cores.
  }, 300_000);

  const rightShare = (group: RealGroup) => {
    const list = results.get(group) ?? [];
    const right = list.filter(({ item, score }) => score < FIDELITY_MIN === (item.label === 'refuse'));
    const missed = list.filter((entry) => !right.includes(entry)).map(({ item, score }) => `${item.id} ${score}`);
    return { share: list.length ? right.length / list.length : 0, right: right.length, count: list.length, missed };
  };

  /*
   * Where the check does not meet a class's target yet, a regression guard at the share it reliably reaches on this
   * sample today (a little below it, so a harmless change of one case does not trip it); null: the target is met and
   * asserted. See docs/api/fidelity.md for the whole set's figures.
   */
  const GUARD: Record<'staging' | 'enhancement' | 'openings' | 'surfaces' | 'composites', number | null> = {
    // 4 of 4 on the sample since round things taken down are told (the barn's lanterns), 11 of 11 on the whole set.
    staging: null,
    // 119 of 119 on the sample (with the HDR-like variant and the photos only reframed), 338 of 338 on the whole set.
    enhancement: null,
    // Since the HomeStagePro photos joined the set (2026-12-04) the sample holds the fireplace living room's edits, and
    // the other photos' windows pasted are drawn from a larger pool: 62 of 72 (56 of 61 before, with the check
    // unchanged: three of the room's windows painted over or added pass); one fewer is 0.847.
    openings: 0.84,
    surfaces: 0.92, // 75 of 80 (70 of 72 before the HomeStagePro photos: that room's floor recoloured twice passes)
    // 45 of 54 (37 of 45 before the HomeStagePro photos; 34 before framed prints crossed by lines of their own were
    // told from panes by the view); one case fewer is 81 %.
    composites: 0.8,
  };
  for (const group of ['staging', 'enhancement', 'openings', 'surfaces', 'composites'] as const) {
    const { title, target } = REAL_CLASSES[group];
    const guard = GUARD[group];
    const name =
      guard === null
        ? `${title}: at least ${target * 100} %`
        : `${title}: at least ${Math.round(guard * 100)} % (target ${target * 100} %, not met yet: a regression guard)`;
    it(name, () => {
      const { share, count, missed } = rightShare(group);
      expect(count, `no ${group} cases in the sample`).toBeGreaterThan(0);
      expect(share, missed.join(', ')).toBeGreaterThanOrEqual(guard ?? target);
    });
  }

  it('names every refusal with kinds the API knows', () => {
    for (const list of results.values())
      for (const { kinds } of list) for (const kind of kinds) expect(CHANGE_KINDS).toContain(kind);
  });
});

describe.skipIf(!present)('the fidelity check on a real photo brightened until its whites crowd together', () => {
  // A bedroom with a white louvred closet: brightened by 15–20 %, the closet's louvres and frame are squeezed into the
  // last few grey levels below white without quite clipping (they once read as an opening removed, 0.81).
  it('passes the brighter exposure', async () => {
    const photo = readFileSync(join(dir, 'photos/mp-panelled-bedroom.jpg'));
    for (const brightness of [1.15, 1.2]) {
      const brighter = await sharp(photo).modulate({ brightness }).jpeg({ quality: 90 }).toBuffer();
      const result = await scoreFidelity(photo, brighter);
      expect(result.score, `brightness ×${brightness}`).toBeGreaterThanOrEqual(FIDELITY_MIN);
    }
  });
});

describe.skipIf(!present)('a real photo with its local contrast or its shadows brought up', () => {
  // HDR-like local contrast (CLAHE, tiles a tenth of the short side) and a gamma lift of the shadows raise faint
  // detail above what the photo draws: a closet's louvres, the shadowed corners of a reading room and a classroom.
  // Matched against the photo's edges as they were, that detail read as openings added (slope 4: the bedroom 0.83,
  // the reading room 0.88; the classroom's lift 0.85); the edges both pictures share show how much the
  // neighbourhood's contrast rose.
  const photos = join(dir, 'photos');
  const clahe = async (photo: Buffer, maxSlope: number) => {
    const { width = 0, height = 0 } = await sharp(photo).metadata();
    const tile = Math.round(Math.min(width, height) / 10);
    return sharp(photo).clahe({ width: tile, height: tile, maxSlope }).jpeg({ quality: 92 }).toBuffer();
  };
  it('passes', async () => {
    for (const name of ['mp-panelled-bedroom', 'dd-reading-room'])
      for (const slope of [3, 4]) {
        const photo = readFileSync(join(photos, `${name}.jpg`));
        const result = await scoreFidelity(photo, await clahe(photo, slope));
        expect(result.score, `${name}, slope ${slope}`).toBeGreaterThanOrEqual(FIDELITY_MIN);
      }
    const classroom = readFileSync(join(photos, 'dicm-classroom.jpg'));
    const lifted = await sharp(classroom).gamma(2, 2.2).jpeg({ quality: 92 }).toBuffer();
    expect((await scoreFidelity(classroom, lifted)).score).toBeGreaterThanOrEqual(FIDELITY_MIN);
  });
  it('is still refused with a real window pasted on its plain wall', async () => {
    const photo = readFileSync(join(photos, 'mp-panelled-bedroom.jpg'));
    const lifted = await clahe(photo, 4);
    for (const [window, at] of [
      [REAL_WINDOWS[0], { left: 80, top: 100 }],
      [REAL_WINDOWS[1], { left: 95, top: 80 }],
    ] as const) {
      const pasted = await withWindow(lifted, window, { width: 40, height: 60 }, at);
      const result = await scoreFidelity(photo, pasted);
      expect(result.score, window.source).toBeLessThan(FIDELITY_MIN);
      expect(result.changes.map((change) => change.kind)).toContain('opening_added');
    }
  });
});

describe.skipIf(!present)('a dim real room brought up from near-black by a low-light enhancer, grain and all', () => {
  // Zero-DCE's own figure of a sitting room: the walls come out of the dark, the window's view clips to white and the
  // sensor grain comes up with everything else. Compared pixel by pixel, that grain made the window's side, where the
  // curtain's folds appear, read as new content (0.81); compared over 2 × 2 blocks it is the photo's (0.93).
  const photo = () => readFileSync(join(dir, 'photos/zdce-chairs-room.jpg'));
  const enhanced = () => readFileSync(join(dir, 'outputs/zdce-chairs-room-enhanced.jpg'));
  it('passes', async () => {
    expect((await scoreFidelity(photo(), enhanced())).score).toBeGreaterThanOrEqual(FIDELITY_MIN);
  });
  it('is still refused with a real window pasted on the lifted wall', async () => {
    for (const window of REAL_WINDOWS) {
      const pasted = await withWindow(enhanced(), window, { width: 130, height: 190 }, { left: 1250, top: 250 });
      const result = await scoreFidelity(photo(), pasted);
      expect(result.score, window.source).toBeLessThan(FIDELITY_MIN);
      expect(result.changes.map((change) => change.kind)).toContain('opening_added');
    }
  });
});

describe.skipIf(!present)('a dark real study lifted unevenly by a low-light enhancer', () => {
  // EnlightenGAN's own figure: the room comes out of near-darkness, each part by its own amount, so the wall above
  // the French doors comes out darker and a near-black corner brighter than one picture-wide change predicts. Judged
  // by its colour there, the lift read as repainted (0.65); where the photo is dark and lifted, only hue is judged.
  const photo = () => readFileSync(join(dir, 'photos/egan-study.jpg'));
  const enhanced = () => readFileSync(join(dir, 'outputs/egan-study-enhanced.jpg'));
  it('passes', async () => {
    expect((await scoreFidelity(photo(), enhanced())).score).toBeGreaterThanOrEqual(FIDELITY_MIN);
  });
  it('is still refused with the lifted wall beside the doors repainted in a colour of its own, named there', async () => {
    const { width = 0, height = 0 } = await sharp(enhanced()).metadata();
    // The strip of wall between the bookcase and the doors, dark in the photo (x 125–163 of 379).
    const wall = { left: Math.round(width * 0.33), width: Math.round(width * 0.1), height: Math.round(height * 0.6) };
    for (const colour of ['#7f93a8', '#a8d08a']) {
      const paint = await sharp({ create: { ...wall, channels: 3, background: colour } })
        .png()
        .toBuffer();
      const repainted = await sharp(enhanced())
        .composite([{ input: paint, left: wall.left, top: 0, blend: 'multiply' }])
        .jpeg({ quality: 90 })
        .toBuffer();
      const result = await scoreFidelity(photo(), repainted);
      expect(result.score, colour).toBeLessThan(FIDELITY_MIN);
      const onStrip = result.changes.filter(
        ({ kind, box: [x, , w] }) => kind === 'surface_recoloured' && x < wall.left + wall.width && x + w > wall.left,
      );
      expect(onStrip, colour).not.toHaveLength(0);
    }
  });
});

describe.skipIf(!present)('a real photo given a strong exposure that blows a fifth of it out', () => {
  // A home office given exposure ×1.3–1.4 and more contrast: about a fifth of its pixels go to white. Fitted with those
  // clipped cells, the picture-wide colour change bent until the sunlit wall beside the window read as repainted
  // (0.82 for each of these); the clipped cells say only "at least this bright" and stay out of the fit. (×1.4 with
  // the smaller offset, -22, is still refused.)
  const photo = () => readFileSync(join(dir, 'photos/dd-home-office.jpg'));
  it('passes', async () => {
    for (const [gain, offset] of [
      [1.3, -22],
      [1.35, -22],
      [1.4, -35],
    ] as const) {
      const exposed = await sharp(photo()).linear(gain, offset).jpeg({ quality: 90 }).toBuffer();
      const result = await scoreFidelity(photo(), exposed);
      expect(result.score, `×${gain} ${offset}`).toBeGreaterThanOrEqual(FIDELITY_MIN);
    }
  });
  it('is still refused with the wall beside the window repainted', async () => {
    const exposed = await sharp(photo()).linear(1.3, -22).png().toBuffer();
    const { width = 0, height = 0 } = await sharp(exposed).metadata();
    const wall = { left: Math.round(width * 0.74), width: Math.round(width * 0.1), height: Math.round(height * 0.5) };
    const paint = await sharp({ create: { ...wall, channels: 3, background: '#7f93a8' } })
      .png()
      .toBuffer();
    const repainted = await sharp(exposed)
      .composite([{ input: paint, left: wall.left, top: 0, blend: 'multiply' }])
      .jpeg({ quality: 90 })
      .toBuffer();
    const result = await scoreFidelity(photo(), repainted);
    expect(result.score).toBeLessThan(FIDELITY_MIN);
    expect(result.changes.map((change) => change.kind)).toContain('surface_recoloured');
  });
});

describe.skipIf(!present)(
  'a real photo rendered bright in its shadows against a stronger exposure that blows its windows out',
  () => {
    // Two renderings of one scene, as a low-light enhancer makes: the photo with its shadows lifted by a curve (sharp's
    // gamma 1 → 2.2), the output exposed linearly ×1.3 or ×1.6, which clips the windows' views to white. Against the
    // walls the windows lose brightness as the picture-wide tone curve says they must, and their lost panes are no
    // opening removed (the kitchen 0.74, the kids' room 0.75, the classroom 0.82, the study 0.69 before).
    const photos = join(dir, 'photos');
    const renderings = async (name: string, gain: number) => {
      const photo = readFileSync(join(photos, `${name}.jpg`));
      const shadowsLifted = await sharp(photo).gamma(1, 2.2).jpeg({ quality: 90 }).toBuffer();
      const exposed = await sharp(photo).linear(gain, 0).png().toBuffer();
      return { shadowsLifted, exposed };
    };
    it('passes', async () => {
      for (const [name, gain] of [
        ['dd-kitchen', 1.3],
        ['dd-kids-room', 1.3],
        ['dicm-classroom', 1.6],
        ['egan-study', 1.6],
      ] as const) {
        const { shadowsLifted, exposed } = await renderings(name, gain);
        const result = await scoreFidelity(shadowsLifted, await sharp(exposed).jpeg({ quality: 90 }).toBuffer());
        expect(result.score, `${name} ×${gain}`).toBeGreaterThanOrEqual(FIDELITY_MIN);
      }
    });
    it("is still refused with the classroom's window painted over in its wall's colour", async () => {
      const { shadowsLifted, exposed } = await renderings('dicm-classroom', 1.6);
      const walledUp = await paintedOver(
        exposed,
        { left: 520, top: 290, width: 80, height: 130 },
        { left: 370, top: 192, width: 110, height: 235 },
        90,
      );
      const result = await scoreFidelity(shadowsLifted, walledUp);
      expect(result.score).toBeLessThan(FIDELITY_MIN);
      expect(result.changes.map((change) => change.kind)).toContain('opening_removed');
    });
  },
);

describe.skipIf(!present)('real curtain panels hung either side of a real window', () => {
  // The conference room's left panel, hung over the frames of the red dining room's windows: the frames' edges are
  // lost and the folds drawn where they stood, so the panels' added edges said little (0.68 and 0.61 before). Their
  // own picture is dense upright folds in a colour of their own.
  const photos = join(dir, 'photos');
  const hang = async (photoName: string, window: Box) => {
    const width = Math.round(window.width / 4);
    const panel = await cutOut(
      'photos/dd-conference.jpg',
      { left: 211, top: 24, width: 39, height: 178 },
      { width, height: Math.round(window.height * 1.15) },
    );
    const top = Math.max(0, Math.round(window.top - window.height * 0.05));
    const photo = readFileSync(join(photos, photoName));
    const hung = await laidOn(photo, [
      { input: panel, left: Math.max(0, Math.round(window.left - width * 0.6)), top },
      { input: panel, left: Math.round(window.left + window.width - width * 0.4), top },
    ]);
    return scoreFidelity(photo, hung);
  };
  it('passes', async () => {
    for (const window of [
      { left: 275, top: 14, width: 96, height: 192 },
      { left: 403, top: 14, width: 128, height: 212 },
    ])
      expect((await hang('dd-red-dining.jpg', window)).score, `window at ${window.left}`).toBeGreaterThanOrEqual(
        FIDELITY_MIN,
      );
  });
  describe("beside a window that shows no daylight, in the wall's hue but darker", () => {
    // egan-study's dark curtain, hung either side of mp-hallway's window, whose blinds are down: its hue is the cream
    // wall's (0.02 apart) and no daylight shows beside it, so it read as a wall line moved (0.59 and 0.70). Fabric's
    // folds in a shade of its own (three quarters of the wall's brightness at most) are a curtain; the loft's concrete
    // pillar at the same spots, paler, is still refused.
    const SPOTS: Array<{ left: number; top: number }> = [
      { left: 33, top: 86 },
      { left: 58, top: 86 },
    ];
    /** `box` of `file` stretched to a panel 12 by 110 pixels, set at each of `spots` on mp-hallway: its score. */
    const setAt = async (file: string, box: Box, spots: Array<{ left: number; top: number }>) => {
      const { bytes: photo } = photoOfSet('mp-hallway');
      const piece = await cutOut(file, box, { width: 12, height: 110 });
      const pieces = spots.map((at) => ({ input: piece, ...at }));
      return (await scoreFidelity(photo, await laidOn(photo, pieces))).score;
    };
    it('passes, each panel alone and both', async () => {
      const curtain = { left: 341, top: 0, width: 30, height: 244 };
      for (const spots of [SPOTS.slice(0, 1), SPOTS.slice(1), SPOTS])
        expect(await setAt('photos/egan-study.jpg', curtain, spots), JSON.stringify(spots)).toBeGreaterThanOrEqual(
          FIDELITY_MIN,
        );
    });
    it("refuses the loft's concrete pillar there", async () => {
      const pillar = { left: 130, top: 20, width: 64, height: 520 };
      for (const at of SPOTS)
        expect(await setAt('photos/mx-loft-shell.jpg', pillar, [at]), `at ${at.left}`).toBeLessThan(FIDELITY_MIN);
    });
  });
  it('refuses a column on a plain wall, away from any window, as upright as folds or in a colour of its own', async () => {
    // The loft's concrete pillar, from the ceiling line to the floor line found on each of these photos' back walls.
    // In the fireplace living room it is as dense and upright as fabric's folds, in the wall's grey; on the others its
    // added edges are upright and its grey unlike the wall's, which read as a curtain (1.00 each) while a curtain
    // needed no window beside it.
    const pillar = { left: 130, top: 20, width: 64, height: 520 };
    for (const [name, at] of [
      ['ade-fireplace-living', { left: 630, top: 146, width: 16, height: 128 }],
      ['mx-tiled-living', { left: 145, top: 428, width: 77, height: 625 }],
      ['snap-empty-living', { left: 541, top: 105, width: 54, height: 435 }],
      ['egan-study', { left: 136, top: 23, width: 17, height: 138 }],
    ] as const) {
      const photo = readFileSync(join(photos, `${name}.jpg`));
      const column = await cutOut('photos/mx-loft-shell.jpg', pillar, { width: at.width, height: at.height });
      const built = await laidOn(photo, [{ input: column, left: at.left, top: at.top }]);
      expect((await scoreFidelity(photo, built)).score, name).toBeLessThan(FIDELITY_MIN);
    }
  });
});

describe.skipIf(!present)('real pale or patterned curtains hung as a pair either side of a real window', () => {
  // The furnished bedroom's floral curtain and the RoomGPT living room's pale linen one, a panel a quarter of the
  // window's width hung either side of it over its frame, from a little above it to a fifth below its sill. Neither
  // shows fabric's dense upright folds or a colour of its own against these pale walls, so each panel read as an
  // opening added or a wall line moved (0.04 to 0.66). Two panels alike either side of a window that the output keeps
  // are a pair of curtains (curtains.ts).
  const CURTAINS: Record<'floral' | 'linen', Pick<Column, 'file' | 'box'>> = {
    floral: { file: 'photos/furnet-bedroom-lamps.jpg', box: [500, 0, 38, 470] },
    linen: { file: 'photos/roomgpt-living.jpg', box: [288, 276, 144, 276] },
  };
  type Curtain = keyof typeof CURTAINS;
  const HUNG: Array<[string, number, Curtain]> = [
    ['hs-panelled-bedroom', 0, 'floral'],
    ['dd-billiard', 0, 'floral'],
    ['dd-billiard', 0, 'linen'],
    ['sdwc-living-windows', 0, 'floral'],
    ['sdwc-living-windows', 1, 'linen'],
  ];
  /** `picture` with a pair of `curtain` panels hung either side of the window `box` (fidelity-real-set.ts). */
  const hang = async (picture: Buffer, box: readonly number[], curtain: Curtain) => {
    const { width = 0, height = 0 } = await sharp(picture).metadata();
    return withCurtains(dir, picture, { width, height }, box, CURTAINS[curtain]);
  };
  const windowOf = (id: string, index: number) => {
    const { entry, bytes } = photoOfSet(id);
    const window = entry.openings?.filter((opening) => opening.type === 'window')[index];
    if (!window) throw new Error(`${id} has no window ${index}`);
    return { entry, bytes, box: window.box };
  };
  it('passes', async () => {
    for (const [id, index, curtain] of HUNG) {
      const { bytes, box } = windowOf(id, index);
      const { score } = await scoreFidelity(bytes, await hang(bytes, box, curtain));
      expect(score, `${curtain} at ${id}'s window ${index}`).toBeGreaterThanOrEqual(FIDELITY_MIN);
    }
  });
  it('refuses the same pairs either side of the window painted over', async () => {
    for (const [id, index, curtain] of HUNG) {
      const { entry, bytes, box } = windowOf(id, index);
      const img = await load(join(dir, entry.file));
      paintOver(img, box, () => 0.5);
      const result = await scoreFidelity(bytes, await hang(await jpegOf(img), box, curtain));
      expect(result.score, `${curtain} at ${id}'s window ${index}`).toBeLessThan(FIDELITY_MIN);
    }
  });
  it('refuses them either side of a real window pasted on a plain wall, which the photo does not have', async () => {
    for (const [id, spot, window] of [
      ['dd-red-dining', [40, 60, 90, 150], REAL_WINDOWS[0]],
      ['hs-fireplace-living', [380, 180, 130, 180], REAL_WINDOWS[1]],
    ] as const) {
      const { bytes } = photoOfSet(id);
      const [left, top, width, height] = spot;
      const withIt = await withWindow(bytes, window, { width, height }, { left, top });
      for (const curtain of ['floral', 'linen'] as const) {
        const { score } = await scoreFidelity(bytes, await hang(withIt, spot, curtain));
        expect(score, `${curtain} at ${id}`).toBeLessThan(FIDELITY_MIN);
      }
    }
  });
  it('refuses a pair of columns set up beside the window, from the ceiling line to the floor line', async () => {
    // The probes' concrete pillar and built-in side, a quarter of the window wide, either side of it beside its frame:
    // as alike as a pair of curtains, but on wall, covering none of the window's view. Four of these five passed
    // (1.00) while curtains were not asked to hang over the window's sides.
    const [pillar, builtIn] = PROBE_COLUMNS as [Column, Column];
    for (const [id, index, column] of [
      ['hs-panelled-bedroom', 0, pillar],
      ['dd-billiard', 0, builtIn],
      ['sdwc-living-windows', 0, pillar],
      ['sdwc-living-windows', 0, builtIn],
      ['sdwc-living-windows', 1, builtIn],
    ] as const) {
      const { entry, bytes, box } = windowOf(id, index);
      const { score } = await scoreFidelity(bytes, await withColumnsBeside(dir, entry, box, column));
      expect(score, `${column.name} at ${id}'s window ${index}`).toBeLessThan(FIDELITY_MIN);
    }
  });
  it('refuses two lamps taken away either side of a bed, alike as they are, by the tool that blotted the ceiling', async () => {
    // The set's FurNet pair: its nightstands and lamps, either side of the bed, are gone, and so are their outlines:
    // taken away, they add next to nothing (0.94 when they were told as a pair of curtains).
    const photo = readFileSync(join(dir, 'photos/furnet-bedroom-lamps.jpg'));
    const output = readFileSync(join(dir, 'outputs/furnet-bedroom-lamps-removed.jpg'));
    expect((await scoreFidelity(photo, output)).score).toBeLessThan(FIDELITY_MIN);
  });
});

describe.skipIf(!present)('a real window made wider', () => {
  // The window's own picture, frame and view, stretched to half as wide again about its middle (the probes' windows
  // widened; fidelity-real-set.ts). About one in four of the set's windows widened so still passes, and half of those
  // made 1.3 times as wide (docs/api/fidelity.md); these are refused, with their changes named.
  it('is refused', async () => {
    for (const [id, index] of [
      ['hs-panelled-bedroom', 0],
      ['dd-red-dining', 0],
      ['dd-billiard', 0],
      ['sdwc-living-windows', 0],
      ['da2-sunroom', 1],
    ] as const) {
      const { entry, bytes } = photoOfSet(id);
      const window = curtainedWindows(entry)[index];
      if (!window) throw new Error(`${id} has no window ${index}`);
      const widened = await withWindowWidened(bytes, entry, window, 1.5);
      if (!widened) throw new Error(`${id}'s window ${index} cannot be widened within the picture`);
      const { score, changes } = await scoreFidelity(bytes, widened);
      expect(score, `${id}'s window ${index}`).toBeLessThan(FIDELITY_MIN);
      expect(changes.length, `${id}'s window ${index}`).toBeGreaterThan(0);
    }
  });
});

describe.skipIf(!present)('a real window pasted low on a real wall, where furniture stands', () => {
  // Low on the wall, with its sill on the floor line or on a chair, a window's box sits where furniture stands, and
  // it was taken for furniture (1.00 each before). A window is divided into panes and shows daylight the photo did
  // not; a pale bookcase, divided by its shelves, shows less of what reads as daylight, and still passes.
  const photos = join(dir, 'photos');
  const paste = async (photoName: string, source: string, box: Box, at: Box) => {
    const photo = readFileSync(join(photos, photoName));
    const piece = await cutOut(`photos/${source}`, box, at);
    return scoreFidelity(photo, await laidOn(photo, [{ input: piece, left: at.left, top: at.top }]));
  };
  /** Each window (a photo of the set and the window's box) pasted at each spot (a photo and where on it) is refused. */
  const refusedAt = async (
    windows: ReadonlyArray<readonly [string, Box]>,
    spots: ReadonlyArray<readonly [string, Box]>,
  ) => {
    for (const [source, box] of windows)
      for (const [photo, at] of spots) {
        const result = await paste(photo, source, box, at);
        expect(result.score, `${source} on ${photo}`).toBeLessThan(FIDELITY_MIN);
        expect(result.changes.map((change) => change.kind)).toContain('opening_added');
      }
  };
  const spots = [
    ['dicm-hall.jpg', { left: 190, top: 330, width: 90, height: 180 }],
    ['zdce-chairs-room.jpg', { left: 680, top: 560, width: 150, height: 300 }],
  ] as const;
  /** The sunlit living room's window: trees seen through its panes, a plant in front of it. */
  const gardenWindow = ['sdwc-living-windows.jpg', { left: 80, top: 65, width: 172, height: 155 }] as const;
  it('is refused', async () => {
    await refusedAt([gardenWindow, ['dicm-classroom.jpg', { left: 370, top: 192, width: 110, height: 235 }]], spots);
  });
  it('passes a pale bookcase at the same spot', async () => {
    const result = await paste(
      'dicm-hall.jpg',
      'cn-bedroom-study.jpg',
      { left: 78, top: 85, width: 128, height: 360 },
      spots[0][1],
    );
    expect(result.score).toBeGreaterThanOrEqual(FIDELITY_MIN);
  });
  // On a pale wall the wall itself is near white and grey, as daylight is, so the window's daylight says nothing
  // there (1.00 each before); the foliage or sky seen through its panes does.
  const paleSpots = [
    ['dd-kitchenette.jpg', { left: 203, top: 226, width: 74, height: 115 }],
    ['dd-billiard.jpg', { left: 227, top: 185, width: 39, height: 62 }],
  ] as const;
  it('is refused on a pale wall by the view through its panes', async () => {
    await refusedAt(
      [['snap-empty-living.jpg', { left: 808, top: 149, width: 160, height: 319 }], gardenWindow],
      paleSpots,
    );
  });
  it('passes a real landscape painting there, as green and blue as a view but not divided into panes', async () => {
    for (const [photo, at] of paleSpots) {
      const result = await paste(photo, 'jt-roomgpt-living.jpg', { left: 0, top: 181, width: 280, height: 320 }, at);
      expect(result.score, photo).toBeGreaterThanOrEqual(FIDELITY_MIN);
    }
  });
});

describe.skipIf(!present)("the back wall's lines in real photos", () => {
  // The outermost of the strong lines across the room, not the strongest: what draws lines as strong stands between
  // them. The back of a sofa against the wall hides the wall's foot and stands above it: in the roomGPT living room
  // and in the sunlit living room the sofas' backs (rows 109 and 118 of the working picture) were taken for the floor
  // line, while the wall's foot lies at about the sofas' base (about 149 and 135); taken that high, the floor line
  // made windows pasted low on the wall read as furniture standing on the floor. A curtain's pelmet hangs below the
  // ceiling line: in the FurNet bedroom its bottom edge (row 128) was taken for it, the crown moulding is at about 90.
  /** The back wall's lines in a photo of the set, with the working picture's height they are rows of. */
  const linesOf = async (name: string) => {
    const picture = await decodeSmall(readFileSync(join(dir, 'photos', name)));
    return { ...roomLines(picture), height: picture.height };
  };
  it('puts the floor line at the foot of the wall, below the back of the sofa against it', async () => {
    expect((await linesOf('roomgpt-living.jpg')).floor).toBeGreaterThanOrEqual(135);
    expect((await linesOf('sdwc-living-windows.jpg')).floor).toBeGreaterThanOrEqual(128);
  });
  it("puts the ceiling line at the top of the wall, above the curtain's pelmet", async () => {
    const { ceiling } = await linesOf('furnet-bedroom-chandelier.jpg');
    expect(ceiling).toBeGreaterThanOrEqual(80);
    expect(ceiling).toBeLessThanOrEqual(100);
  });
  // The ceiling is above the camera, so its line lies above the middle of a level photo. In the loft's shell, whose
  // window walls are glazed over two storeys, a transom across the glazing (row 104 of 213, just above the middle) was
  // taken for it: a wall read that short makes anything standing in front of the glass rise higher than furniture
  // may. Outside the set, a dining room's wall of windows re-encoded as JPEG put it at row 132 of 213, and its staged
  // table was refused as something as tall as a door.
  it('looks for the ceiling line well above the middle of the picture, below which a window wall draws its lines', async () => {
    const { ceiling, floor, height } = await linesOf('mx-loft-shell.jpg');
    expect(ceiling).toBeLessThanOrEqual(0.45 * height);
    expect(floor - ceiling).toBeGreaterThanOrEqual(0.4 * height);
  });
});

describe.skipIf(!present)("a real staging's shadow beside its new sofa", () => {
  // mx-tiled-living-staged darkens the floor corner beside and below its sofa (0.63 of its colour, the hue kept): it
  // read as a recoloured floor (0.83). Darkened the same way out of the furniture's reach, or across the whole floor,
  // the floor is still a recoloured surface.
  const photo = () => readFileSync(join(dir, 'photos/mx-tiled-living.jpg'));
  const staged = () => readFileSync(join(dir, 'outputs/mx-tiled-living-staged.jpg'));
  const darkened = async (box: { left: number; top: number; width: number; height: number }) => {
    const shade = await sharp({ create: { width: box.width, height: box.height, channels: 3, background: '#a0a0a0' } })
      .png()
      .toBuffer();
    return sharp(staged())
      .composite([{ input: shade, left: box.left, top: box.top, blend: 'multiply' }])
      .jpeg({ quality: 90 })
      .toBuffer();
  };
  it('passes', async () => {
    const result = await scoreFidelity(photo(), staged());
    expect(result.score).toBeGreaterThanOrEqual(FIDELITY_MIN);
    expect(result.changes.map((change) => change.kind)).not.toContain('surface_recoloured');
  });
  it("refuses the floor darkened out of the furniture's reach, or all of it", async () => {
    for (const box of [
      { left: 160, top: 1160, width: 330, height: 240 },
      { left: 700, top: 1150, width: 349, height: 250 },
      { left: 0, top: 1000, width: 1049, height: 400 },
    ]) {
      const result = await scoreFidelity(photo(), await darkened(box));
      expect(result.score, JSON.stringify(box)).toBeLessThan(FIDELITY_MIN);
      expect(result.changes.map((change) => change.kind)).toContain('surface_recoloured');
    }
  });
});

describe.skipIf(!present)('a real round mirror hung on a real wall', () => {
  // The round mirror over ade-fireplace-living's mantel, cut as an ellipse and hung on dd-conference's walls: it
  // reflects a bright room and once read as a window added (0.70–0.82). A round outline leaves the corners of its
  // bounds empty, which a window's never does: the same walls with a real window pasted are still refused.
  const photos = join(dir, 'photos');
  const wall = () => readFileSync(join(photos, 'dd-conference.jpg'));
  const hang = async (
    source: string,
    box: Box,
    size: { width: number; height: number },
    at: { left: number; top: number },
    oval: boolean,
  ) => laidOn(wall(), [{ input: await cutOut(`photos/${source}`, box, size, oval ? 'oval' : undefined), ...at }]);
  /** The round mirror's box in ade-fireplace-living.jpg. */
  const MIRROR: Box = { left: 338, top: 116, width: 87, height: 76 };
  /**
   * Two real windows, square and arched: the classroom's (a bright sky over a building) and the arched room's. The
   * red dining room's, which looks into a lit room and shows no foliage or sky, hung this small below the ceiling
   * line passes as a framed print of a room since prints crossed by lines of their own are told from panes by the view
   * (appraise.ts, OUTDOOR_*).
   */
  const WINDOWS: Array<[string, Box]> = [
    ['dicm-classroom.jpg', { left: 370, top: 192, width: 110, height: 235 }],
    ['mx-arched-windows.jpg', { left: 176, top: 532, width: 185, height: 308 }],
  ];
  const spots = [
    { size: { width: 46, height: 40 }, at: { left: 20, top: 96 } },
    { size: { width: 60, height: 52 }, at: { left: 16, top: 70 } },
    { size: { width: 46, height: 40 }, at: { left: 560, top: 60 } },
  ];
  it('passes', async () => {
    for (const { size, at } of spots) {
      const hung = await hang('ade-fireplace-living.jpg', MIRROR, size, at, true);
      const result = await scoreFidelity(wall(), hung);
      expect(result.score, `${size.width} px at ${at.left},${at.top}`).toBeGreaterThanOrEqual(FIDELITY_MIN);
    }
  });
  it("passes a tall oval mirror the picture's side cuts, in a real staging and hung on a real wall", async () => {
    // mx-tiled-living-staged hangs one beside the doorway, cut by the picture's right edge; it reflects the balcony's
    // window and read as a window added (its score is held under the minimum by its relit floor corner still).
    const staged = await scoreFidelity(
      readFileSync(join(photos, 'mx-tiled-living.jpg')),
      readFileSync(join(dir, 'outputs', 'mx-tiled-living-staged.jpg')),
    );
    expect(staged.changes.filter((change) => change.kind === 'opening_added' && change.box[0] > 850)).toEqual([]);
    // The same mirror's shape on mp-hallway's right wall, a third of it past the picture's edge.
    for (const top of [50, 90]) {
      const hallway = readFileSync(join(photos, 'mp-hallway.jpg'));
      const hung = await cutAtRightEdge(hallway, 'ade-fireplace-living.jpg', MIRROR, top, true);
      const result = await scoreFidelity(hallway, hung);
      expect(result.score, `mirror at ${top}`).toBeGreaterThanOrEqual(FIDELITY_MIN);
    }
  });
  it("refuses a real window, square or arched, that the picture's side cuts at the same spots", async () => {
    // A frame cut by the edge reaches as far at its top and sill as in its middle; an arch's sill is square.
    for (const [source, box] of WINDOWS)
      for (const top of [50, 90]) {
        const hallway = readFileSync(join(photos, 'mp-hallway.jpg'));
        const pasted = await cutAtRightEdge(hallway, source, box, top, false);
        const result = await scoreFidelity(hallway, pasted);
        expect(result.score, `${source} at ${top}`).toBeLessThan(FIDELITY_MIN);
        expect(result.changes.map((change) => change.kind)).toContain('opening_added');
      }
  });
  /** `source`'s `box`, 50 × 110 (an oval when `oval`), hung at `top` with its right 20 pixels past `photo`'s right edge. */
  const cutAtRightEdge = async (photo: Buffer, source: string, box: Box, at: number, oval: boolean) => {
    const size = { width: 50, height: 110 };
    const visible = 30;
    const shown = await sharp(await cutOut(`photos/${source}`, box, size, oval ? 'oval' : undefined))
      .extract({ left: 0, top: 0, width: visible, height: size.height })
      .toBuffer();
    const { width: photoWidth } = await sharp(photo).metadata();
    return laidOn(photo, [{ input: shown, left: (photoWidth as number) - visible, top: at }]);
  };
  it('a real window, square or arched, pasted on the same walls is refused', async () => {
    // Kept clear of the sideboards' tops: a window that stands on furniture reads as part of it. An arched window's
    // top is round, but its sill fills the bottom corners.
    for (const [source, box] of WINDOWS)
      for (const at of [
        { left: 24, top: 70 },
        { left: 560, top: 40 },
      ]) {
        const pasted = await hang(source, box, { width: 40, height: 72 }, at, false);
        const result = await scoreFidelity(wall(), pasted);
        expect(result.score, `${source} at ${at.left},${at.top}`).toBeLessThan(FIDELITY_MIN);
        expect(result.changes.map((change) => change.kind)).toContain('opening_added');
      }
  });
});

describe.skipIf(!present)('a real television hung on real walls', () => {
  // The television in front of mx-loft-renovated-furnished's kitchen (a real AI staging's), hung on dd-conference's
  // and snap-empty-living's side walls. Near the camera, a side wall's screen looks taller than the back wall allows
  // a picture to be, and it is darker than any window: the larger one on the living room's wall read as a window
  // added (0.52). A screen is dark and even in its middle and ends on the wall; real windows hung at the same spots,
  // and the same screen drawn down to the skirting like a dark door, are still refused.
  const photos = join(dir, 'photos');
  const screen = (size: { width: number; height: number }) => cutOut(REAL_TELEVISION.file, REAL_TELEVISION.box, size);
  const spots = [
    { photo: 'dd-conference.jpg', size: { width: 90, height: 50 }, at: { left: 525, top: 60 } },
    { photo: 'dd-conference.jpg', size: { width: 60, height: 34 }, at: { left: 14, top: 80 } },
    { photo: 'snap-empty-living.jpg', size: { width: 200, height: 112 }, at: { left: 1270, top: 160 } },
    { photo: 'snap-empty-living.jpg', size: { width: 330, height: 185 }, at: { left: 1250, top: 130 } },
  ];
  const hang = async (photo: Buffer, piece: Buffer, at: { left: number; top: number }) =>
    laidOn(photo, [{ input: piece, ...at }]);
  it('passes', async () => {
    for (const { photo, size, at } of spots) {
      const wall = readFileSync(join(photos, photo));
      const result = await scoreFidelity(wall, await hang(wall, await screen(size), at));
      expect(result.score, `${photo}, ${size.width} px at ${at.left},${at.top}`).toBeGreaterThanOrEqual(FIDELITY_MIN);
    }
  });
  it('refuses a real window hung at the same spots', async () => {
    for (const window of REAL_WINDOWS)
      for (const { photo, size, at } of spots) {
        const wall = readFileSync(join(photos, photo));
        const result = await scoreFidelity(wall, await withWindow(wall, window, size, at));
        expect(result.score, `${window.source} on ${photo} at ${at.left},${at.top}`).toBeLessThan(FIDELITY_MIN);
        expect(result.changes.map((change) => change.kind)).toContain('opening_added');
      }
  });
  it('refuses the screen drawn down to the skirting, as a dark door', async () => {
    // The skirting on that wall, there, runs at 680–700 px.
    const wall = readFileSync(join(photos, 'snap-empty-living.jpg'));
    const door = await hang(wall, await screen({ width: 150, height: 490 }), { left: 1280, top: 200 });
    const result = await scoreFidelity(wall, door);
    expect(result.score).toBeLessThan(FIDELITY_MIN);
    expect(result.changes.map((change) => change.kind)).toContain('opening_added');
  });
});

describe.skipIf(!present)('a real potted tree set on real floors before plain walls', () => {
  // A plant's leaves are drawn in no straight line and the wall shows between them; a window's frame and bars, a
  // door's jambs and a wall's corner are straight lines, and an opening hides the wall inside its frame. The real
  // olive tree of a real staging (REAL_TREE), set on two real floors with its crown before the wall, read as a window
  // added (0.53 and 0.86): the crown's leaves fill too little of its box for framed decor (11 % of it) and it is taller
  // than wide. It passes now. The set's real windows at the same spots and size are still refused.
  const spots = [
    { photo: 'hs-panelled-bedroom.jpg', size: { width: 147, height: 312 }, at: { left: 867, top: 134 } },
    { photo: 'mx-tiled-living.jpg', size: { width: 157, height: 333 }, at: { left: 331, top: 471 } },
  ];
  /** The tree `size` pixels, with what is not leaf, trunk or pot left transparent. */
  const tree = async (size: { width: number; height: number }) => {
    const { data, info } = await sharp(readFileSync(join(dir, REAL_TREE.file)))
      .extract(REAL_TREE.box)
      .resize(size.width, size.height, { fit: 'fill' })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const cut = Buffer.alloc(info.width * info.height * 4);
    for (let i = 0; i < info.width * info.height; i++) {
      const [r, g, b] = [data[3 * i] as number, data[3 * i + 1] as number, data[3 * i + 2] as number];
      const plant = (r + g + b) / 3 <= TREE_GREY && r - g <= TREE_RED;
      cut.set([r, g, b, plant ? 255 : 0], 4 * i);
    }
    return sharp(cut, { raw: { width: info.width, height: info.height, channels: 4 } })
      .png()
      .toBuffer();
  };
  it('passes', async () => {
    for (const { photo, size, at } of spots) {
      const room = readFileSync(join(dir, 'photos', photo));
      const result = await scoreFidelity(room, await laidOn(room, [{ input: await tree(size), ...at }]));
      expect(result.score, photo).toBeGreaterThanOrEqual(FIDELITY_MIN);
    }
  });
  it('refuses a real window at the same spots and size', async () => {
    for (const window of REAL_WINDOWS)
      for (const { photo, size, at } of spots) {
        const room = readFileSync(join(dir, 'photos', photo));
        const result = await scoreFidelity(room, await withWindow(room, window, size, at));
        expect(result.score, `${window.source} on ${photo}`).toBeLessThan(FIDELITY_MIN);
        expect(result.changes.map((change) => change.kind)).toContain('opening_added');
      }
  });
});

describe.skipIf(!present)('a real passer-by taken out of a real photo', () => {
  // IOPaint's own demo: a woman walking behind a child in a dance studio, removed and the blinds filled in behind
  // her. Her torso against the blinds read as a window painted over (0.78); OpenCV's people detector finds her in the
  // photo and nowhere in the output, so she is a declutter. What the output changes of the building beside her is
  // still refused.
  const pair = 'iop-dance-studio-person-removed';
  const photo = () => readFileSync(join(dir, 'photos', 'iop-dance-studio.jpg'));
  const output = () => join(dir, 'outputs', `${pair}.jpg`);
  it('passes', async () => {
    const result = await scoreFidelity(photo(), readFileSync(output()));
    expect(result.score).toBeGreaterThanOrEqual(FIDELITY_MIN);
  });
  it('refuses the same output with the pier between its windows painted over with their blinds', async () => {
    // The pier (the manifest's wall between the two windows, with the two framed pictures on it) filled from the
    // blinds either side, as if the two windows were one.
    const { entry } = photoOfSet('iop-dance-studio');
    const [left, right] = entry.openings ?? [];
    if (!left || !right) throw new Error('the dance studio has two windows');
    const pier: Rect = [left.box[0] + left.box[2], 0, right.box[0] - left.box[0] - left.box[2], right.box[3] + 12];
    const img = await load(output());
    expect(paintOver(img, pier, () => 0.5)).not.toBeNull();
    const result = await scoreFidelity(photo(), await jpegOf(img));
    expect(result.score).toBeLessThan(FIDELITY_MIN);
    expect(result.changes.map((change) => change.kind)).toContain('opening_removed');
  });
});

describe.skipIf(!present)('real paper lanterns taken down from under a real roof', () => {
  // IOPaint's own demo: four paper lanterns hanging under a barn's roof, removed and the timber behind them filled in.
  // Each lantern's outline and the rafters drawn where it hung read as openings (0.23); the photo draws each outline
  // all round a circle, which the output no longer does, so they are a declutter. A window painted out holds circles
  // touching its frame and bars, but not one drawn all round: the fireplace room's windows painted out, whose circles
  // come nearest (0.6 of their points), are still refused.
  const pair = 'iop-timber-barn-hall-lanterns-removed';
  it('passes', async () => {
    const photo = readFileSync(join(dir, 'photos', 'iop-timber-barn-hall.jpg'));
    const result = await scoreFidelity(photo, readFileSync(join(dir, 'outputs', `${pair}.jpg`)));
    expect(result.score).toBeGreaterThanOrEqual(FIDELITY_MIN);
  });
  it("refuses the fireplace room's windows painted out from the wall either side", async () => {
    const { entry, bytes } = photoOfSet('hs-fireplace-living');
    const windows = (entry.openings ?? []).filter((opening) => opening.type === 'window').slice(0, 2);
    expect(windows).toHaveLength(2);
    for (const [n, window] of windows.entries()) {
      const img = await load(join(dir, entry.file));
      expect(paintOver(img, window.box, () => 0.5 + 0.1 * n)).not.toBeNull();
      const result = await scoreFidelity(bytes, await jpegOf(img));
      expect(result.score).toBeLessThan(FIDELITY_MIN);
      expect(result.changes.map((change) => change.kind)).toContain('opening_removed');
    }
  });
});

describe.skipIf(!present)('real framed decor hung large on a real side wall near the camera', () => {
  // snap-empty-living's right wall runs past the camera: the picture shows it taller than the back wall, and decor hung
  // there, 0.38 of the picture tall, was measured against the back wall's height and read as a window added (refused
  // at 0.00–0.18). It is measured against the wall it hangs on, found in the photo's own columns: plain wall down to
  // a skirting lower than the back wall's floor line. The set's two real windows hung at the same spot and size show
  // daylight or panes onto a view, and are still refused.
  const wall = () => readFileSync(join(dir, 'photos', 'snap-empty-living.jpg'));
  const DECOR: Array<[string, Box]> = [
    ['roomgpt-living.jpg', { left: 779, top: 379, width: 85, height: 73 }],
    ['roomgpt-living.jpg', { left: 1232, top: 332, width: 64, height: 88 }],
    ['dd-billiard.jpg', { left: 21, top: 42, width: 145, height: 171 }],
    ['jt-roomgpt-living.jpg', { left: 0, top: 181, width: 280, height: 320 }],
  ];
  /** `box` of `source`, 342 pixels tall at its own aspect ratio, centred on the side wall at 1360, 292. */
  const hang = async (source: string, box: Box) => {
    const size = { width: Math.round((342 * box.width) / box.height), height: 342 };
    const at = { left: Math.round(1360 - size.width / 2), top: 121 };
    return laidOn(wall(), [{ input: await cutOut(`photos/${source}`, box, size), ...at }]);
  };
  it('passes', async () => {
    for (const [source, box] of DECOR) {
      const result = await scoreFidelity(wall(), await hang(source, box));
      expect(result.score, `${source} at ${box.left},${box.top}`).toBeGreaterThanOrEqual(FIDELITY_MIN);
    }
  });
  it('refuses a real window hung at the same spot and size', async () => {
    for (const { source, box } of REAL_WINDOWS) {
      const result = await scoreFidelity(wall(), await hang(source, box));
      expect(result.score, source).toBeLessThan(FIDELITY_MIN);
      expect(result.changes.map((change) => change.kind)).toContain('opening_added');
    }
  });
});

describe.skipIf(!present)('real framed decor hung large on a side wall whose ceiling line climbs', () => {
  // mp-hallway's right wall runs past the camera: its ceiling line climbs steeply toward the picture's edge, and it is
  // seen about half again as tall as the back wall. Decor hung there 0.38 of the picture tall was measured against the
  // back wall and read as a window added (0.00): the photo's skirting under this sample is not low enough for the
  // side-wall measure. It is measured against that wall now, from the ceiling line above it to as far below the
  // horizon, when it shows almost no daylight. The cost: 4 of the set's 26 uncovered windows hung there pass as prints
  // (2 did before: the loft's narrow one and the columned hall's; now the bedroom study's and the dance studio's
  // behind its blinds too, dim, showing no daylight, sky band or view the check sees). The HomeStagePro photos'
  // three, which joined the set later, are refused. A fifth passes since a television's lower part may stand among
  // furniture: the red dining room's night window onto a lit room, dark and even in its middle, its lower part in the
  // wall's lower half, reads as a screen that ends on the wall.
  let hallway: SetPhoto;
  let photo: Buffer;
  let cuts: RealCut[];
  beforeAll(async () => {
    ({ entry: hallway, bytes: photo } = photoOfSet('mp-hallway'));
    cuts = (await realCuts(dir, readManifest().photos)).filter((cut) => cut.from !== hallway.id);
  });
  /** `cut`'s score hung there, or null where it does not fit. */
  const score = async (cut: RealCut) => {
    const pasted = await withPasted(photo, hallway, cut, 'mid', 0.38);
    return pasted && (await scoreFidelity(photo, pasted)).score;
  };
  it('passes', async () => {
    const decor = cuts.filter(
      (cut) =>
        cut.kind === 'decor' &&
        ((cut.from === 'roomgpt-living' && cut.width < 70) || (cut.from === 'dd-billiard' && cut.width > 140)),
    );
    expect(decor).toHaveLength(3);
    for (const cut of decor) {
      const scored = await score(cut);
      if (scored === null) throw new Error(`${cut.from}'s decor does not fit`);
      expect(scored, `${cut.from}, ${cut.width} wide`).toBeGreaterThanOrEqual(FIDELITY_MIN);
    }
  });
  it('refuses the windows that show daylight, a sky band or a view there', async () => {
    const windows = cuts.filter((cut) => cut.kind === 'window');
    let refused = 0;
    let fitted = 0;
    for (const cut of windows) {
      const scored = await score(cut);
      if (scored === null) continue;
      fitted++;
      if (scored < FIDELITY_MIN) refused++;
    }
    expect(fitted).toBe(26);
    expect(refused).toBeGreaterThanOrEqual(21);
  });
});

/**
 * Each of `cuts` of `kind` hung on `room`, `height` pixels tall at its own aspect ratio, centred on column `centre`
 * with its top at row `top`, where it fits between columns `from` and `to`: how many fit, and how many of those pass.
 */
async function tallyHung(
  room: Buffer,
  cuts: readonly RealCut[],
  kind: RealCut['kind'],
  { height, centre, top, from, to }: { height: number; centre: number; top: number; from: number; to: number },
): Promise<{ passed: number; count: number }> {
  let passed = 0;
  let count = 0;
  for (const cut of cuts.filter((each) => each.kind === kind)) {
    const width = Math.max(8, Math.round((height * cut.width) / cut.height));
    const left = Math.round(centre - width / 2);
    if (left < from || left + width > to) continue;
    const scaled = await sharp(cut.image).resize(width, height, { fit: 'fill' }).png().toBuffer();
    count++;
    if ((await scoreFidelity(room, await laidOn(room, [{ input: scaled, left, top }]))).score >= FIDELITY_MIN) passed++;
  }
  return { passed, count };
}

/**
 * The two tests of a wall the set's decor and windows are hung on (tallyHung): with every other photo's cuts hung on
 * photo `id` at `place`, `decor` as many pieces of decor fit and pass, and of `windows.count` windows that fit at
 * least `windows.refused` are refused.
 */
function hungOnWall(
  id: string,
  place: Parameters<typeof tallyHung>[3],
  { decor, windows }: { decor: { passed: number; count: number }; windows: { count: number; refused: number } },
): void {
  let cuts: RealCut[];
  const room = () => readFileSync(join(dir, 'photos', `${id}.jpg`));
  beforeAll(async () => {
    cuts = (await realCuts(dir, readManifest().photos)).filter((cut) => cut.from !== id);
  });
  it('passes', async () => {
    expect(await tallyHung(room(), cuts, 'decor', place)).toEqual(decor);
  });
  it('refuses the windows that show daylight, a sky band or a view there', async () => {
    const { passed, count } = await tallyHung(room(), cuts, 'window', place);
    expect(count).toBe(windows.count);
    expect(count - passed).toBeGreaterThanOrEqual(windows.refused);
  });
}

describe.skipIf(!present)('real framed decor hung high where no ceiling is in view', () => {
  // dd-kids-room shows no ceiling: the back wall's ceiling line is found on the wall, below where prints hang. Framed
  // decor crossed by lines of its own that rose above that line was taken for the building's (as a column set from
  // the ceiling line is) and read as a window added. What has plain wall between its top and the first line above it
  // in the photo (here none: the wall runs out of the picture) hangs below the ceiling. Hung 96 pixels tall high on
  // the right wall, 15 of the set's 17 pieces of decor pass (8 before; 14 before prints in a light mat were told by
  // their darker middle); of its 29 uncovered windows 25 are refused (all of them before; the HomeStagePro photos'
  // four, which joined the set later, are refused): the dim ones pass as prints there as they do lower down (the red
  // dining room's two, which look into a lit room, the dance studio's behind its blinds and the low-light study's).
  hungOnWall(
    'dd-kids-room',
    { height: 96, centre: 560, top: 96, from: 0, to: 640 },
    {
      decor: { passed: 15, count: 17 },
      windows: { count: 29, refused: 25 },
    },
  );
});

describe.skipIf(!present)('real framed decor hung large above a real mantel shelf', () => {
  // jt-roomgpt-living's back wall shows no ceiling line over its fireplace: the line is found on the mantel shelf's
  // edge, and the wall it bounds (shelf to floor) is shorter than the plain wall above the shelf where pictures hang.
  // Measured against it, a picture 260 pixels tall there was too tall for decor and read as a window added. What rises
  // past that line with plain wall above it hangs on a wall that runs up to the first line above it. 13 of the set's
  // 14 pieces of decor that fit the wall pass (3 before); of its 27 windows 22 are refused (all of them before): the
  // dim ones pass as prints there as they do lower down (the red dining room's two, which look into a lit room, the
  // dance studio's behind its blinds, the classroom's and the low-light study's).
  const HEIGHT = 260;
  hungOnWall(
    'jt-roomgpt-living',
    { height: HEIGHT, centre: 1325, top: 240 - HEIGHT / 2, from: 1150, to: 1500 },
    {
      decor: { passed: 13, count: 14 },
      windows: { count: 27, refused: 22 },
    },
  );
});

describe.skipIf(!present)('real prints on white paper hung on a dim wall', () => {
  // dd-bathroom's back wall is beige in warm lamplight. A print's white paper or a white jersey hung there is a third
  // brighter than the wall and nearly grey, as daylight is, and framed decor that shows daylight was read as a window
  // added. It is lit by the same lamps as the tub beside it, though: its brightest tenth is at most four fifths as
  // bright as the photo's brightest hundredth, where a view is daylight. Hung 72 pixels tall on that wall, 12 of the
  // set's 17 pieces of decor pass (7 before); of its 30 windows 25 are refused: the dim ones pass as prints here as
  // they do elsewhere (the red dining room's two onto a lit room, the dance studio's behind its blinds, which is
  // new, the hall's and the low-light study's).
  hungOnWall(
    'dd-bathroom',
    { height: 72, centre: 170, top: 36, from: 64, to: 282 },
    {
      decor: { passed: 12, count: 17 },
      windows: { count: 30, refused: 25 },
    },
  );
});

describe.skipIf(!present)('real landscape decor hung large on a real wall', () => {
  // The set's landscape pieces of decor hung 0.28 of the picture tall on the hallway's wall sample: the back wall's
  // lines found there make each of them taller than framed decor may be, and they read as windows added (0.00). In one
  // piece, wider than tall, showing no daylight, sky or view, they are decor whatever the lines say. The set's
  // landscape windows hung at the same spot and size show daylight or a view, and are still refused.
  const SHARE = 0.28;
  let hallway: SetPhoto;
  let photo: Buffer;
  let cuts: RealCut[];
  beforeAll(async () => {
    ({ entry: hallway, bytes: photo } = photoOfSet('mp-hallway'));
    cuts = (await realCuts(dir, readManifest().photos)).filter((cut) => cut.width > 1.1 * cut.height);
  });
  const hung = (cut: RealCut) => withPasted(photo, hallway, cut, 'mid', SHARE);
  it('passes', async () => {
    const decor = cuts.filter(
      (cut) =>
        cut.kind === 'decor' && ['ade-fireplace-living', 'dd-billiard', 'furnet-bedroom-chandelier'].includes(cut.from),
    );
    expect(decor).toHaveLength(3);
    for (const cut of decor) {
      const pasted = await hung(cut);
      if (!pasted) throw new Error(`${cut.from}'s decor does not fit`);
      const result = await scoreFidelity(photo, pasted);
      expect(result.score, cut.from).toBeGreaterThanOrEqual(FIDELITY_MIN);
    }
  });
  it('refuses a real landscape window hung at the same spot and size', async () => {
    let tried = 0;
    for (const cut of cuts.filter((each) => each.kind === 'window')) {
      const pasted = await hung(cut);
      if (!pasted) continue;
      tried++;
      const result = await scoreFidelity(photo, pasted);
      expect(result.score, cut.from).toBeLessThan(FIDELITY_MIN);
      expect(result.changes.map((change) => change.kind)).toContain('opening_added');
    }
    expect(tried).toBeGreaterThanOrEqual(3);
  });
});

/**
 * The scores of each of `cuts` that fits on `room`'s first wall sample, hung mid and high there (withPasted), `share`
 * of the picture's height tall where given.
 */
async function scoresHung(room: string, cuts: readonly RealCut[], share?: number): Promise<number[]> {
  const { entry, bytes } = photoOfSet(room);
  const scores: number[] = [];
  for (const cut of cuts)
    for (const place of ['mid', 'high'] as const) {
      const pasted = await withPasted(bytes, entry, cut, place, share);
      if (pasted) scores.push((await scoreFidelity(bytes, pasted)).score);
    }
  return scores;
}

describe.skipIf(!present)('a real window barred near its sides, hung on real walls', () => {
  // da2-sunroom's wide window is a casement between fixed panes: its bars stand a fifth of its width in from its sides,
  // not across its middle, so nothing divided it into panes and, framed on the wall, it passed as a print (1.00 on
  // hs-fireplace-living's wall). A bar crossing it inside its frame with a view between (trees, as bright against
  // the wall as a view is) makes it a window. jt-roomgpt-living's painted landscape, greens and sky darker than the
  // wall, still passes on dd-bedroom's (the larger of its two pieces of decor; the other is a round mirror).
  let cuts: RealCut[];
  beforeAll(async () => {
    cuts = await realCuts(dir, readManifest().photos);
  });
  it('refuses the window', async () => {
    const wide = cuts.filter((cut) => cut.from === 'da2-sunroom' && cut.kind === 'window' && cut.width > cut.height);
    const scores = await scoresHung('hs-fireplace-living', wide);
    expect(scores).toHaveLength(2);
    for (const score of scores) expect(score).toBeLessThan(FIDELITY_MIN);
  });
  it('passes the painted landscape', async () => {
    const painting = cuts.filter((cut) => cut.from === 'jt-roomgpt-living' && cut.kind === 'decor' && cut.width > 200);
    const scores = await scoresHung('dd-bedroom', painting);
    expect(scores).toHaveLength(2);
    for (const score of scores) expect(score).toBeGreaterThanOrEqual(FIDELITY_MIN);
  });
});

describe.skipIf(!present)('a real room shown on a television, hung on real walls', () => {
  // A television shows pictures of anything. jt-roomgpt-living's photo on a screen (a dark bezel around it, 0.25 of
  // the picture's height tall) is framed decor crossed by lines of its own, and the shaded blues of its sofa and the
  // darkest greens of its painted landscape and its fig read as sky and foliage: on five rooms' walls it was refused
  // as a window added 9 times of 10 (2 now). A view is lit by day; counted against the wall it hangs on, that picture
  // shows neither. The set's two real windows with a view, hung at the same places and size, are still refused all 20
  // times.
  const ROOMS = [
    'roomgpt-living',
    'mx-herringbone-office',
    'mp-hallway',
    'ade-fireplace-living',
    'hs-panelled-bedroom',
  ];
  const SHARE = 0.25;
  /** `box` of the set's `file` as a cut (RealCut), at its own size (cutOut). */
  const cutOf = async (file: string, box: Box, kind: RealCut['kind']): Promise<RealCut> => ({
    from: file,
    kind,
    image: await cutOut(file, box, box),
    width: box.width,
    height: box.height,
  });
  it('passes', async () => {
    // The whole photo, a dark bezel of 0.03 of its width drawn around it.
    const { width = 0, height = 0 } = await sharp(readFileSync(join(dir, 'photos/jt-roomgpt-living.jpg'))).metadata();
    const shown = await cutOf('photos/jt-roomgpt-living.jpg', { left: 0, top: 0, width, height }, 'decor');
    const edge = Math.round(0.03 * width);
    const television = {
      ...shown,
      image: await sharp(shown.image)
        .extend({ top: edge, bottom: edge, left: edge, right: edge, background: '#111111' })
        .png()
        .toBuffer(),
      width: width + 2 * edge,
      height: height + 2 * edge,
    };
    const scores = (await Promise.all(ROOMS.map((room) => scoresHung(room, [television], SHARE)))).flat();
    expect(scores).toHaveLength(10);
    expect(scores.filter((score) => score >= FIDELITY_MIN).length).toBeGreaterThanOrEqual(8);
  });
  it('refuses the real windows hung at the same places and size', async () => {
    const windows = await Promise.all(REAL_WINDOWS.map(({ source, box }) => cutOf(`photos/${source}`, box, 'window')));
    const scores = (await Promise.all(ROOMS.map((room) => scoresHung(room, windows, SHARE)))).flat();
    expect(scores).toHaveLength(20);
    for (const score of scores) expect(score).toBeLessThan(FIDELITY_MIN);
  });
});

describe.skipIf(!present)('real framed prints crossed by lines of their own, hung on real walls', () => {
  // Two matted photographs from iop-dance-studio's wall and a print from dicm-hall's, hung on dd-conference's walls:
  // a mat's inner edge or the print's own lines cross the middle of the frame like a glazing bar, and they read as
  // windows added (0.61–0.74). Panes look out of doors, onto foliage or sky; a print shows neither. The set's two real
  // windows hung at the same spots and sizes are still refused.
  const photos = join(dir, 'photos');
  const wall = () => readFileSync(join(photos, 'dd-conference.jpg'));
  const PRINTS: Array<[string, Box]> = [
    ['iop-dance-studio.jpg', { left: 528, top: 8, width: 72, height: 88 }],
    ['iop-dance-studio.jpg', { left: 524, top: 112, width: 68, height: 80 }],
    ['dicm-hall.jpg', { left: 182, top: 187, width: 116, height: 130 }],
  ];
  const spots = [
    { left: 20, top: 90 },
    { left: 560, top: 50 },
  ];
  /** `box` of `source`, 56 pixels tall at its own aspect ratio, hung on the wall at `at`. */
  const hang = (source: string, box: Box, at: { left: number; top: number }) => hungAt(wall(), source, box, 56, at);
  it('passes', async () => {
    for (const [source, box] of PRINTS)
      for (const at of spots) {
        const result = await scoreFidelity(wall(), await hang(source, box, at));
        expect(result.score, `${source} at ${at.left},${at.top}`).toBeGreaterThanOrEqual(FIDELITY_MIN);
      }
  });
  it('refuses a real window hung at the same spots', async () => {
    for (const { source, box } of REAL_WINDOWS)
      for (const at of spots) {
        const result = await scoreFidelity(wall(), await hang(source, box, at));
        expect(result.score, `${source} at ${at.left},${at.top}`).toBeLessThan(FIDELITY_MIN);
        expect(result.changes.map((change) => change.kind)).toContain('opening_added');
      }
  });
  it('refuses a stone-clad column from the ceiling line down, crossed by lines like a print', async () => {
    // The loft's built-in (stone cladding and a stair's treads) set on the reading room's wall as the probes set it
    // (withColumn): a chair hides its foot, and its top part alone is framed and crossed by lines. What runs up to the
    // ceiling line is the building's, whatever it shows (it passed at 1.00 without that condition).
    const { entry: room, bytes: photo } = photoOfSet('dd-reading-room');
    const builtIn = PROBE_COLUMNS.find((column) => column.name === 'built-in');
    if (!builtIn) throw new Error('the probes’ built-in is missing');
    const built = await withColumn(dir, room, builtIn);
    if (!built) throw new Error('the reading room has no plain-wall sample');
    const result = await scoreFidelity(photo, built);
    expect(result.score).toBeLessThan(FIDELITY_MIN);
  });
});

describe.skipIf(!present)('real prints in a light mat, brighter than the wall, hung on real walls', () => {
  // The chandelier bedroom's two prints (gilt frames, cream mats around darker pictures), hung on the tan bathroom's
  // and the beige conference room's walls: the mats outshine those walls, grey as daylight through glass, and the
  // prints read as windows added (0.43–0.69). A print's middle is darker than its mat; a view is no darker than its
  // frame. The set's two real windows hung at the same spots and sizes are still refused.
  const PRINTS: Box[] = [
    { left: 151, top: 217, width: 59, height: 50 },
    { left: 410, top: 217, width: 44, height: 75 },
  ];
  const SPOTS = [
    { wall: 'dd-bathroom', left: 344, top: 40 },
    { wall: 'dd-bathroom', left: 120, top: 40 },
    { wall: 'dd-conference', left: 520, top: 72 },
    { wall: 'dd-conference', left: 30, top: 70 },
  ] as const;
  /** `box` of `source`, 64 pixels tall at its own aspect ratio, hung at `spot`: the photo and the output. */
  const hang = async (source: string, box: Box, { wall, left, top }: (typeof SPOTS)[number]) => {
    const { bytes: photo } = photoOfSet(wall);
    return { photo, hung: await hungAt(photo, source, box, 64, { left, top }) };
  };
  it('passes', async () => {
    for (const box of PRINTS)
      for (const spot of SPOTS) {
        const { photo, hung } = await hang('furnet-bedroom-chandelier.jpg', box, spot);
        const where = `print at ${box.left} on ${spot.wall} at ${spot.left}`;
        expect((await scoreFidelity(photo, hung)).score, where).toBeGreaterThanOrEqual(FIDELITY_MIN);
      }
  });
  it('refuses a real window hung at the same spots', async () => {
    for (const { source, box } of REAL_WINDOWS)
      for (const spot of SPOTS) {
        const { photo, hung } = await hang(source, box, spot);
        const where = `${source} on ${spot.wall} at ${spot.left}`;
        expect((await scoreFidelity(photo, hung)).score, where).toBeLessThan(FIDELITY_MIN);
      }
  });
});

describe.skipIf(!present)('a real canvas hung over a real sofa', () => {
  // The sofa of mx-tiled-living's real staging, cut along its outline, set on snap-empty-living's floor against the
  // right wall, with a real canvas (the landscape over jt-roomgpt-living's sofa) hung just above it: the commonest
  // staging there is. The two had read as one thing rising higher than furniture and reaching lower than decor hangs,
  // neither (0.32). What rises above furniture height, cut where it ends, is now judged on its own as a thing hung
  // there; a real window or a real door behind the same sofa is still refused.
  const room = () => readFileSync(join(dir, 'photos', 'snap-empty-living.jpg'));
  /** The sofa's box in the staging, its outline in that box, and where it stands. */
  const SOFA_BOX: Box = { left: 100, top: 720, width: 400, height: 280 };
  const SOFA_OUTLINE: Outline = [
    [18, 135],
    [50, 100],
    [200, 45],
    [280, 20],
    [335, 25],
    [372, 38],
    [378, 65],
    [372, 95],
    [360, 110],
    [300, 160],
    [200, 235],
    [190, 265],
    [25, 245],
    [15, 200],
  ];
  /** The same staging's floor lamp, its shade and its stem, in its box (the manifest's lamp cutout). */
  const LAMP_OUTLINE: Outline = [
    [16, 23],
    [56, 23],
    [60, 63],
    [41, 63],
    [41, 153],
    [35, 153],
    [35, 63],
    [12, 63],
  ];
  const sofa = async () => ({
    input: await cutOut('outputs/mx-tiled-living-staged.jpg', SOFA_BOX, { width: 420, height: 300 }, SOFA_OUTLINE),
    left: 1150,
    top: 430,
  });
  /** The staging's floor lamp (its shade and stem) stretched to 161 × 400, standing at `left`, `top`. */
  const floorLamp = async (left: number, top: number) => ({
    input: await cutOut(
      'outputs/mx-tiled-living-staged.jpg',
      { left: 420, top: 602, width: 73, height: 182 },
      { width: 161, height: 400 },
      LAMP_OUTLINE,
    ),
    left,
    top,
  });
  /** A piece of one of the set's pictures: its file, its box there, the size it is stretched to and where it is set. */
  type Placed = [string, Box, { width: number; height: number }, [number, number]];
  /** `file`'s `box` stretched to `size` and set at `at`, behind the sofa (and whatever else stands `beside` it). */
  const overSofa = async (
    file: string,
    box: Box,
    size: { width: number; height: number },
    at: [number, number],
    beside: Array<{ input: Buffer; left: number; top: number }> = [],
  ) => laidOn(room(), [{ input: await cutOut(file, box, size), left: at[0], top: at[1] }, await sofa(), ...beside]);
  it('passes', async () => {
    // Hung a little above the sofa's back (touching it at its right end), and higher up.
    const canvas: Box = { left: 0, top: 181, width: 280, height: 320 };
    const hung: Placed[] = [
      ['photos/jt-roomgpt-living.jpg', canvas, { width: 280, height: 200 }, [1210, 215]],
      ['photos/jt-roomgpt-living.jpg', canvas, { width: 280, height: 200 }, [1210, 180]],
    ];
    for (const [file, box, size, at] of hung) {
      const result = await scoreFidelity(room(), await overSofa(file, box, size, at));
      expect(result.score, `${file} at ${at.join(',')}`).toBeGreaterThanOrEqual(FIDELITY_MIN);
    }
  });
  it('passes with a real floor lamp standing in front of the picture, and refuses real windows there', async () => {
    // The staging's own floor lamp (its shade and stem) stands beside the sofa, its shade in front of a real framed
    // picture: no row cuts the picture apart from the lamp, and a lamp's shade is no decor by its shape. Refused at
    // 0.00 until what rises above furniture height was asked only whether it lets in daylight; the set's real windows
    // at the same spots still do, and are refused.
    const lamp = await floorLamp(1140, 280);
    // Two of the set's framed pictures (the one by jt-roomgpt-living's window, dd-billiard's largest), as hung.
    const framed: Box = { left: 887, top: 152, width: 169, height: 175 };
    const billiard: Box = { left: 21, top: 42, width: 145, height: 171 };
    const asHung = { width: 280, height: 200 };
    const pictures: Placed[] = [
      ['photos/jt-roomgpt-living.jpg', framed, asHung, [1210, 200]],
      ['photos/jt-roomgpt-living.jpg', framed, asHung, [1210, 230]],
      ['photos/dd-billiard.jpg', billiard, asHung, [1210, 230]],
    ];
    for (const [file, box, size, at] of pictures) {
      const result = await scoreFidelity(room(), await overSofa(file, box, size, at, [lamp]));
      expect(result.score, `${file} at ${at.join(',')}`).toBeGreaterThanOrEqual(FIDELITY_MIN);
    }
    for (const { source, box } of REAL_WINDOWS)
      for (const top of [140, 200, 230]) {
        const pasted = await overSofa(`photos/${source}`, box, { width: 200, height: 300 }, [1210, top], [lamp]);
        const result = await scoreFidelity(room(), pasted);
        expect(result.score, `${source} at ${top}`).toBeLessThan(FIDELITY_MIN);
      }
  });
  it('refuses a real window or a real door behind the same sofa', async () => {
    const openings: Placed[] = [
      ...REAL_WINDOWS.map(
        ({ source, box }): Placed => [`photos/${source}`, box, { width: 200, height: 300 }, [1250, 140]],
      ),
      [
        'photos/mx-herringbone-office.jpg',
        { left: 373, top: 266, width: 126, height: 325 },
        { width: 220, height: 560 },
        [1240, 200],
      ],
      [
        'photos/m3d-library-room.jpg',
        { left: 240, top: 396, width: 144, height: 384 },
        { width: 220, height: 560 },
        [1240, 200],
      ],
    ];
    for (const [file, box, size, at] of openings) {
      const result = await scoreFidelity(room(), await overSofa(file, box, size, at));
      expect(result.score, file).toBeLessThan(FIDELITY_MIN);
      expect(result.changes.map((change) => change.kind)).toContain('opening_added');
    }
  });
  describe('with a real television hung high on the near wall above them', () => {
    // The television of mx-loft-renovated-furnished's real staging hung high on the near right wall, over the sofa, a
    // floor lamp beside it joining the two: one change standing on the floor whose top rises past the back wall's
    // ceiling line as found (the soffit's edge), over plain wall. Such a change was refused however it looked (a
    // wall's new corner runs up to that line); what rises clearly past it, with the photo's plain wall above, is seen
    // nearer the camera (an outside staging's television on the near wall, refused so). A real window there with
    // daylight is still refused. The panelled bedroom's dim window passes at all three spots (at the first before too:
    // dim windows pass as prints).
    /** The television's, or a window's, `box` in `file` stretched to `width` × `height` and hung at `left`, `top`. */
    const hungHigh = async (file: string, box: Box, [left, top, width, height]: Rect, at: [number, number]) =>
      laidOn(room(), [
        { input: await cutOut(file, box, { width, height }), left, top },
        await sofa(),
        await floorLamp(...at),
      ]);
    /** Where the television (left, top, width, height) and the lamp (left, top) are. */
    const spots: Array<{ hung: Rect; lamp: [number, number] }> = [
      { hung: [1260, 70, 300, 168], lamp: [1140, 200] },
      { hung: [1260, 60, 300, 168], lamp: [1160, 220] },
      { hung: [1280, 75, 280, 157], lamp: [1160, 220] },
    ];
    it('passes', async () => {
      for (const { hung, lamp: at } of spots) {
        const result = await scoreFidelity(room(), await hungHigh(REAL_TELEVISION.file, REAL_TELEVISION.box, hung, at));
        expect(result.score, `at ${hung.join(',')}`).toBeGreaterThanOrEqual(FIDELITY_MIN);
      }
    });
    it('refuses a real window with daylight there', async () => {
      const { source, box } = REAL_WINDOWS[1];
      for (const { hung, lamp: at } of spots) {
        const result = await scoreFidelity(room(), await hungHigh(`photos/${source}`, box, hung, at));
        expect(result.score, `at ${hung.join(',')}`).toBeLessThan(FIDELITY_MIN);
        expect(result.changes.map((change) => change.kind)).toContain('opening_added');
      }
    });
  });
  describe("with a real television running off the picture's edge, a real floor lamp's shade against it", () => {
    // The television of mx-loft-renovated-furnished's real staging, large on the near right wall and cut by the
    // picture's edge, the staging's floor lamp beside it, its shade against the screen's lower part: the lamp joins
    // the screen to the floor, so the change above furniture height holds only the screen's top, and the band below
    // that was the screen again, read as a dark opening added (0.76; an outside staging's television over a console,
    // a plant against it, was refused so). The band is now looked for below where the screen ends. The same screen
    // drawn down to the skirting, a dark door, and a real window there, are still refused.
    const [left, top, width, height] = [1380, 200, 220, 330];
    /** The screen (or a window's `box` in `file`), `tall` pixels tall, cut at the picture's edge, and the lamp. */
    const byLamp = async (file: string, box: Box, tall: number, stretch: number) => {
      const whole = await cutOut(file, box, { width: Math.round(stretch * width), height: tall });
      const shown = await sharp(whole).extract({ left: 0, top: 0, width, height: tall }).png().toBuffer();
      return laidOn(room(), [{ input: shown, left, top }, await floorLamp(left - 100, top + height - 150)]);
    };
    it('passes', async () => {
      const result = await scoreFidelity(room(), await byLamp(REAL_TELEVISION.file, REAL_TELEVISION.box, height, 1.7));
      expect(result.score).toBeGreaterThanOrEqual(FIDELITY_MIN);
    });
    it('refuses the screen drawn down to the skirting, and a real window with daylight there', async () => {
      for (const [file, box, tall, stretch] of [
        [REAL_TELEVISION.file, REAL_TELEVISION.box, 560, 1.7],
        [`photos/${REAL_WINDOWS[1].source}`, REAL_WINDOWS[1].box, height, 1],
      ] as const) {
        const result = await scoreFidelity(room(), await byLamp(file, box, tall, stretch));
        expect(result.score, file).toBeLessThan(FIDELITY_MIN);
        expect(result.changes.map((change) => change.kind)).toContain('opening_added');
      }
    });
  });
});

describe.skipIf(!present)('real cardboard boxes stacked before a real glass door painted over', () => {
  // Two copies of the herringbone office's stack of moving boxes (the decluttered pair's first cutout, cut along its
  // outline from the photo) stand on the tiled living room's floor, the one behind hiding the left half of the balcony
  // door, and the door is painted over with the colour of the wall sample beside it. The stack's flat faces add few
  // edges while the door's frame behind it is lost, as when furniture is taken away; the door removed must still be
  // found.
  let photo: Buffer;
  let door: Box;
  let wall: Box;
  beforeAll(() => {
    const room = readManifest().photos.find((each) => each.id === 'mx-tiled-living');
    const opening = room?.openings?.find((each) => each.type === 'door');
    if (!room || !opening) throw new Error('the living room or its door is missing');
    door = boxOf(opening.box);
    // The wall sample that ends nearest the door on its left.
    const beside = room.walls
      .filter(([x, , w]) => x + w <= door.left)
      .sort(([xa, , wa], [xb, , wb]) => xb + wb - (xa + wa))[0];
    if (!beside) throw new Error('no wall sample left of the living room’s door');
    wall = boxOf(beside);
    photo = readFileSync(join(dir, room.file));
  });
  it('is refused as a door removed', async () => {
    const { dominant } = await sharp(photo).extract(wall).stats();
    const paint = await sharp({ create: { width: door.width, height: door.height, channels: 3, background: dominant } })
      .png()
      .toBuffer();
    const output = await laidOn(photo, [
      { input: paint, left: door.left, top: door.top },
      await movingBoxes(313, 380, 993),
      await movingBoxes(346, 247, 1280),
    ]);
    const result = await scoreFidelity(photo, output);
    expect(result.score).toBeLessThan(FIDELITY_MIN);
    expect(result.changes.map((change) => change.kind)).toContain('opening_removed');
  });
});

describe.skipIf(!present)('a tall real window standing on the floor, painted over', () => {
  // The fireplace living room's lower window (the manifest's first opening) stands on the floor and ends just under
  // furniture height on its back wall. Painted out the way the set's edits do (make-real-edits.ts, paintOver: rows
  // cloned from the strips of wall either side, here the plain wall and the fireplace's cladding), the patch's top edge
  // rises a little past that height wherever the patch reaches a few pixels above the frame. Measured for width over
  // those few rows alone, that top read as a floor lamp's narrow shade and the window's loss as furniture (1.00).
  it('is refused as an opening removed, however far above the frame the patch reaches', async () => {
    const { entry, bytes } = photoOfSet('hs-fireplace-living');
    const window = entry.openings?.[0];
    if (window?.type !== 'window') throw new Error("the fireplace living room's lower window is missing");
    // The patch grows the window's box by 6 % to 10 % of its shorter side, and these fixed draws by 7 % to 10 %.
    for (const draw of [0.25, 0.5, 0.75, 1]) {
      const img = await load(join(dir, entry.file));
      paintOver(img, window.box, () => draw);
      const result = await scoreFidelity(bytes, await jpegOf(img));
      expect(result.score, `patch drawn at ${draw}`).toBeLessThan(FIDELITY_MIN);
      expect(result.changes.map((change) => change.kind)).toContain('opening_removed');
    }
  });
  // Painted over flat in the colour of the wall beside it, the window leaves no edge above furniture height: all it
  // loses stands on the floor below that height, as furniture taken away does, and weighed nothing (1.00). A window
  // is recognised where it was taken away as where it was added, by its panes and daylight (appraise.ts, glazed, with
  // the pictures' roles swapped), and what it lost keeps its weight.
  it("is refused painted over flat in its wall's colour, as an opening removed", async () => {
    const { entry, bytes } = photoOfSet('hs-fireplace-living');
    const window = entry.openings?.[0];
    const wall = entry.walls?.[0];
    if (window?.type !== 'window' || !wall) throw new Error("the fireplace living room's lower window is missing");
    const result = await scoreFidelity(bytes, await paintedOver(bytes, boxOf(wall), boxOf(window.box), 90));
    expect(result.score).toBeLessThan(FIDELITY_MIN);
    expect(result.changes.map((change) => change.kind)).toContain('opening_removed');
  });
  it('passes moving boxes stood before it in the photo and taken away, which leaves the window whole', async () => {
    // Two stacks of moving boxes before the window's lower half: taken away, they lose their outline and the window
    // shows more of its view, not less.
    const { bytes } = photoOfSet('hs-fireplace-living');
    const cluttered = await laidOn(bytes, [await movingBoxes(150, 70, 690), await movingBoxes(170, 150, 720)]);
    const result = await scoreFidelity(cluttered, bytes);
    expect(result.score, JSON.stringify(result.changes)).toBeGreaterThanOrEqual(FIDELITY_MIN);
  });
});

/**
 * Each of the set's windows (inside its photo's bounds; `room`'s own left out when asked) cut out at `place.height`
 * pixels tall (and at most `place.widest` wide) and pasted on `room`'s photo with its top left at `place`: how many
 * were tried and how many refused. Each one refused must be named an opening added.
 */
async function windowsPastedOn(
  room: string,
  place: { left: number; top: number; height: number; widest?: number },
  { ownLeftOut = false } = {},
): Promise<{ tried: number; refused: number }> {
  const { bytes } = photoOfSet(room);
  let refused = 0;
  let tried = 0;
  for (const photo of readManifest().photos)
    for (const opening of photo.openings ?? []) {
      if (opening.type !== 'window' || (ownLeftOut && photo.id === room)) continue;
      const [left, top, width, height] = opening.box;
      const { width: fullWidth = 0, height: fullHeight = 0 } = await sharp(join(dir, photo.file)).metadata();
      if (left + width > fullWidth || top + height > fullHeight) continue;
      const scaledWidth = Math.round((place.height * width) / height);
      const size = { width: Math.min(place.widest ?? scaledWidth, scaledWidth), height: place.height };
      const cut = await cutOut(photo.file, { left, top, width, height }, size);
      const pasted = await laidOn(bytes, [{ input: cut, left: place.left, top: place.top }]);
      const result = await scoreFidelity(bytes, pasted);
      tried++;
      if (result.score >= FIDELITY_MIN) continue;
      refused++;
      expect(result.changes.map((change) => change.kind)).toContain('opening_added');
    }
  return { tried, refused };
}

describe.skipIf(!present)('real windows pasted low in a hall, standing where furniture stands', () => {
  // Each of the set's windows, 78 pixels tall, pasted on the hall's wall by the stair (the set's dicm-hall) with its
  // foot down on the floor line: it stands where furniture does, so its edges below furniture height weigh nothing.
  // Panes and daylight have many of them recognised as windows rather than furniture there, but what was left of
  // them weighed too little to refuse the picture: none of the 38 was refused (0.95 to 0.98 where recognised). A
  // window recognised there caps the score as a window's panes and daylight do anywhere (0.85), and is named an
  // opening added: 14 of the 38 are refused.
  it('refuses those recognised as windows, as openings added', async () => {
    const { tried, refused } = await windowsPastedOn('dicm-hall', { left: 610, top: 416, height: 78 });
    expect(tried).toBe(38);
    expect(refused).toBeGreaterThanOrEqual(14);
  });
});

describe.skipIf(!present)('real windows pasted on a low wall below the floor line found', () => {
  // The dance studio's (the set's iop-dance-studio) floor line is found at its windows' sills, above the low wall that
  // runs under them to the floor: nothing is compared below that line. Each of the set's windows, 60 pixels tall,
  // pasted on that low wall stands where furniture stands; panes and daylight have some of them recognised as windows
  // there, but none of their edges weighed anything and no change was left to name: none of the 36 was refused. A
  // window recognised there is an opening added however little it weighs: 19 of the 36 are refused.
  it('refuses those recognised as windows, as openings added', async () => {
    const place = { left: 625, top: 298, height: 60, widest: 120 };
    const { tried, refused } = await windowsPastedOn('iop-dance-studio', place, { ownLeftOut: true });
    expect(tried).toBe(36);
    expect(refused).toBeGreaterThanOrEqual(19);
  });
});

describe.skipIf(!present)('a real tall narrow window hung near the ceiling, where a curtain hangs', () => {
  // The hallway's (the set's mp-hallway) window is five times as tall as wide, its panes bright with daylight. Hung
  // on other rooms' walls up near the ceiling line, it hangs as a curtain does and draws upright lines as densely as
  // folds, and 7 of these 10 placings passed as a curtain (1.00). Fabric on what was plain wall is lit by the room:
  // showing daylight on more than a fifth of it and brighter than the wall, it is a window: 8 of the 10 are refused
  // (high on the study's and the columned hall's walls, its edges alone bring the score only to 0.93 and 0.91).
  it('refuses it', async () => {
    const cuts = (await realCuts(dir, readManifest().photos)).filter(
      (cut) => cut.from === 'mp-hallway' && cut.kind === 'window',
    );
    expect(cuts).toHaveLength(1);
    const scores: number[] = [];
    for (const room of ['dd-home-office', 'dd-bathroom', 'm3d-library-room', 'egan-study', 'da2-columned-hall'])
      scores.push(...(await scoresHung(room, cuts)));
    expect(scores).toHaveLength(10);
    expect(scores.filter((score) => score < FIDELITY_MIN).length).toBeGreaterThanOrEqual(8);
  });
});
