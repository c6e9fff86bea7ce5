import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ClassResult, evaluateEngine, makeCase, STRUCTURAL } from '../../fixtures/fidelity-rooms.js';
import { FIDELITY_MIN, scoreFidelity } from '../../../server/imaging/fidelity/index.js';

// A small version of `npm run bench:fidelity` (100 rooms per engine, up to 12 MP): 8 rooms per fake engine at 1 MP.
const ROOMS = 8;
const SIZE: [number, number] = [1152, 864];

describe('scoreFidelity', () => {
  let room: Buffer;
  let staged: Buffer;

  beforeAll(async () => {
    const pair = await makeCase('furniture_blobs', 4242, SIZE);
    room = pair.input;
    staged = pair.output;
  });

  it('scores an unchanged picture 1, re-encoded or not', async () => {
    expect((await scoreFidelity(room, room)).score).toBe(1);
    const reencoded = await sharp(room).jpeg({ quality: 70 }).toBuffer();
    expect((await scoreFidelity(room, reencoded)).score).toBeGreaterThan(0.97);
  });

  it('scores a picture of another room near 0', async () => {
    const other = await makeCase('furniture_blobs', 977, SIZE);
    expect((await scoreFidelity(room, other.input)).score).toBeLessThan(0.3);
  });

  it('gives the same score for the same bytes', async () => {
    const [a, b] = await Promise.all([scoreFidelity(room, staged), scoreFidelity(room, staged)]);
    expect(a).toEqual(b);
  });

  it('reads the output upright when its EXIF says it is rotated', async () => {
    const rotated = await sharp(room).rotate(90).jpeg().toBuffer();
    const tagged = await sharp(rotated).withMetadata({ orientation: 8 }).jpeg().toBuffer();
    expect((await scoreFidelity(room, tagged)).score).toBeGreaterThan(0.97);
  });

  it('checks only outside the regions a scene allows furniture in', async () => {
    const all = { x: 0, y: 0, width: SIZE[0], height: SIZE[1] };
    const other = await makeCase('window_moved', 31, SIZE);
    expect((await scoreFidelity(other.input, other.output, { allowed: [all] })).score).toBe(1);
    expect((await scoreFidelity(other.input, other.output, { allowed: [] })).score).toBeLessThan(FIDELITY_MIN);
  });
});

describe('scoreFidelity on outputs of another size or framing', () => {
  let room: Buffer;

  beforeAll(async () => {
    room = (await makeCase('furniture_blobs', 4242, SIZE)).input;
  });

  const resized = (width: number, height: number, image = room) =>
    sharp(image).resize(width, height, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();

  // refit() used to hand sharp a one-channel buffer and read three channels back: every such output scored 0.
  it('keeps the score of an output one pixel off the aspect ratio after rounding', async () => {
    const result = await scoreFidelity(room, await resized(1151, 864));
    expect(result.score).toBeGreaterThan(0.97);
    expect(result.changes).toEqual([]);
  });

  it('keeps the score of an output of another size, and of one under 320 px', async () => {
    expect((await scoreFidelity(room, await resized(2304, 1728))).score).toBeGreaterThan(0.97);
    expect((await scoreFidelity(room, await resized(288, 216))).score).toBeGreaterThan(0.9);
    expect((await scoreFidelity(room, await resized(200, 151))).score).toBeGreaterThan(0.9);
  });

  it('registers an output the engine cropped and zoomed, or returned in another aspect ratio', async () => {
    const zoomed = await sharp(room)
      .extract({ left: 58, top: 43, width: 1036, height: 778 })
      .resize(1152, 864)
      .jpeg({ quality: 90 })
      .toBuffer();
    expect((await scoreFidelity(room, zoomed)).score).toBeGreaterThan(0.95);
    const wider = await sharp(room).extract({ left: 0, top: 80, width: 1152, height: 648 }).jpeg().toBuffer();
    const result = await scoreFidelity(room, wider);
    expect(result.score).toBeGreaterThan(0.95);
    expect(result.changes.map((change) => change.kind)).not.toContain('unaligned');
  });

  it('passes a change of white balance and exposure', async () => {
    const graded = await sharp(room).linear([1.1, 1.0, 0.85], [8, 4, 0]).gamma(1.6).jpeg().toBuffer();
    const result = await scoreFidelity(room, graded);
    expect(result.score).toBeGreaterThanOrEqual(FIDELITY_MIN);
    expect(result.changes.map((change) => change.kind)).not.toContain('surface_recoloured');
  });

  it('reports an output of another shape that cannot be placed as unaligned, refused', async () => {
    const flat = await sharp({ create: { width: 900, height: 900, channels: 3, background: '#d8d0c0' } })
      .jpeg()
      .toBuffer();
    const result = await scoreFidelity(room, flat);
    expect(result.score).toBe(0);
    expect(result.changes).toEqual([{ kind: 'unaligned', box: [0, 0, SIZE[0], SIZE[1]] }]);
  });

  it("names what changed and where, in the photo's pixels", async () => {
    const added = await makeCase('window_added', 31, SIZE);
    const result = await scoreFidelity(added.input, added.output);
    expect(result.score).toBeLessThan(FIDELITY_MIN);
    expect(result.changes[0]?.kind).toBe('opening_added');
    const [x, y, w, h] = result.changes[0]?.box ?? [];
    expect(x! + w!).toBeLessThanOrEqual(SIZE[0]);
    expect(y! + h!).toBeLessThanOrEqual(SIZE[1]);
    expect(w! * h!).toBeGreaterThan(0.005 * SIZE[0] * SIZE[1]);
    const removed = await makeCase('window_removed', 32, SIZE);
    expect((await scoreFidelity(removed.input, removed.output)).changes[0]?.kind).toBe('opening_removed');
  });
});

describe('fake engines on generated rooms', () => {
  const below = (result: ClassResult) => result.scores.filter((s) => s < FIDELITY_MIN).length;
  const structural: ClassResult[] = [];

  it('passes every picture the builtin engine furnished (its scene says where)', async () => {
    const result = await evaluateEngine('builtin_engine', ROOMS, { size: SIZE });
    expect(below(result)).toBe(0);
  }, 120_000);

  // Eight rooms cannot show a 95 % rate per engine; each engine must be caught 7 times in 8 and all of them together
  // at least 95 % of the time. bench:fidelity measures each engine on 100 rooms.
  it.each(STRUCTURAL)(
    'catches an engine whose change is %s',
    async (engine) => {
      const result = await evaluateEngine(engine, ROOMS, { size: SIZE });
      structural.push(result);
      expect(below(result)).toBeGreaterThanOrEqual(ROOMS - 1);
    },
    120_000,
  );

  it('catches at least 95 % of the structural changes taken together', () => {
    expect(structural).toHaveLength(STRUCTURAL.length);
    const caught = structural.reduce((sum, result) => sum + below(result), 0);
    expect(caught / (ROOMS * STRUCTURAL.length)).toBeGreaterThanOrEqual(0.95);
  });

  it('rejects few pictures that only gained furniture when no scene says where', async () => {
    // A regression guard only: bench:fidelity measures the rate on 100 rooms (tall lamps and plants are the misses).
    const result = await evaluateEngine('furniture_blobs', ROOMS, { size: SIZE });
    expect(below(result)).toBeLessThanOrEqual(2);
  }, 120_000);

  // Rooms of bench:fidelity (seed 1) that only gained furniture and were once rejected: a bed's headboard and a
  // sofa's back whose top edges float over flat fronts (1600×900), a table with a chair and a lamp standing behind it
  // (1600×900), two pieces and a lamp merged into one change (1200×800), a near lamp with a wide shade (3000×2000).
  it.each([
    ['a headboard over its flat front', 1_374_284],
    ['a lamp behind a table', 1_580_178],
    ['a lamp merged with two pieces', 1_722_720],
    ['a near lamp with a wide shade', 1_493_069],
  ])(
    'passes furniture that once read as building: %s',
    async (_, seed) => {
      const pair = await makeCase('furniture_blobs', seed);
      expect((await scoreFidelity(pair.input, pair.output)).score).toBeGreaterThanOrEqual(FIDELITY_MIN);
    },
    60_000,
  );
});
