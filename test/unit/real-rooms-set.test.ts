/**
 * The real-room evaluation set (test/fixtures/real-rooms) is consistent: every picture it names is there, small
 * enough, licensed and annotated inside its own frame; and the hand edits made from it are reproducible for a seed.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { makeRealEdits } from '../../scripts/make-real-edits.js';

const SET = fileURLToPath(new URL('../fixtures/real-rooms/', import.meta.url));
type Box = [number, number, number, number];
const manifest = JSON.parse(await readFile(path.join(SET, 'manifest.json'), 'utf8')) as {
  photos: Array<{
    id: string;
    file: string;
    source: string;
    licence: string;
    kind: string;
    openings: Array<{ type: string; box: Box }>;
    walls: Box[];
    floor: Box[];
    ceiling: Box[];
    builtins: Box[];
    corners?: Box[];
    decor?: Array<{ box: Box }>;
    curtains?: Box[];
  }>;
  pairs: Array<{
    id: string;
    before: string;
    after: string;
    source: string;
    licence: string;
    tool: string;
    class: string;
    label: string;
    why: string;
    cutouts?: Array<{ kind: string; box: Box; from?: 'before' | 'after'; outline?: Array<Array<[number, number]>> }>;
  }>;
};
const sources = await readFile(path.join(SET, 'SOURCES.md'), 'utf8');
/** Licences that allow the pictures to be redistributed in this repository. */
const REDISTRIBUTABLE = [
  'MIT',
  'Apache-2.0',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'GPL-3.0',
  'CC-BY-4.0',
  'CC0-1.0',
  'Unlicense',
];

async function size(file: string) {
  const { width, height } = await sharp(path.join(SET, file)).metadata();
  return { width: width ?? 0, height: height ?? 0 };
}

function expectInside(box: Box, { width, height }: { width: number; height: number }, what: string) {
  const [x, y, w, h] = box;
  expect(w > 0 && h > 0, `${what}: empty box ${box}`).toBe(true);
  expect(x >= 0 && y >= 0 && x + w <= width && y + h <= height, `${what}: ${box} outside ${width}×${height}`).toBe(
    true,
  );
}

function expectFile(file: string, what: string) {
  expect(existsSync(path.join(SET, file)), `${what}: ${file} is missing`).toBe(true);
  expect(sources.includes(`\`${file}\``), `${what}: ${file} has no line in SOURCES.md`).toBe(true);
}

describe('the real-room set', () => {
  it('names only pictures that are there, at most 1600 px, licensed, with annotations inside the frame', async () => {
    expect(manifest.photos.length).toBeGreaterThanOrEqual(10);
    const ids = new Set<string>();
    for (const photo of manifest.photos) {
      expect(ids.has(photo.id), `duplicate id ${photo.id}`).toBe(false);
      ids.add(photo.id);
      expectFile(photo.file, photo.id);
      expect(REDISTRIBUTABLE, `${photo.id}: licence`).toContain(photo.licence);
      expect(photo.source, `${photo.id}: source`).toMatch(/^github\.com\/[^ ]+ [^ ]+ @ [0-9a-f]{12}$/);
      expect(['empty', 'furnished']).toContain(photo.kind);
      const dims = await size(photo.file);
      expect(Math.max(dims.width, dims.height), `${photo.id}: long edge`).toBeLessThanOrEqual(1600);
      for (const o of photo.openings) {
        expect(['window', 'door', 'archway']).toContain(o.type);
        expectInside(o.box, dims, `${photo.id} ${o.type}`);
      }
      const boxes = [
        ...photo.walls,
        ...photo.floor,
        ...photo.ceiling,
        ...photo.builtins,
        ...(photo.corners ?? []),
        ...(photo.decor ?? []).map((d) => d.box),
        ...(photo.curtains ?? []),
      ];
      for (const b of boxes) expectInside(b, dims, photo.id);
    }
  });

  it('pairs each real before photo with a real output, labelled and explained', async () => {
    expect(manifest.pairs.filter((p) => p.class === 'staging').length).toBeGreaterThanOrEqual(20);
    expect(manifest.pairs.some((p) => p.class === 'enhancement')).toBe(true);
    for (const pair of manifest.pairs) {
      expectFile(pair.before, pair.id);
      expectFile(pair.after, pair.id);
      expect(
        manifest.photos.some((p) => p.file === pair.before),
        `${pair.id}: before is not annotated`,
      ).toBe(true);
      expect(REDISTRIBUTABLE, `${pair.id}: licence`).toContain(pair.licence);
      expect(['staging', 'enhancement']).toContain(pair.class);
      expect(['pass', 'refuse']).toContain(pair.label);
      expect(pair.why.length, `${pair.id}: why`).toBeGreaterThan(30);
      expect(pair.tool.length).toBeGreaterThan(3);
      const dims = await size(pair.after);
      expect(Math.max(dims.width, dims.height), `${pair.id}: long edge`).toBeLessThanOrEqual(1600);
      for (const c of pair.cutouts ?? []) {
        expectInside(c.box, dims, `${pair.id} cutout`);
        // A hand-drawn outline is in the pixels of the picture it cuts from, and each polygon encloses an area.
        const from = c.from === 'before' ? await size(pair.before) : dims;
        for (const polygon of c.outline ?? []) {
          expect(polygon.length, `${pair.id} outline`).toBeGreaterThanOrEqual(3);
          for (const [x, y] of polygon) {
            expect(x >= 0 && x <= from.width && y >= 0 && y <= from.height, `${pair.id} outline point ${x},${y}`).toBe(
              true,
            );
          }
        }
      }
    }
  });
});

describe('makeRealEdits', () => {
  const work: string[] = [];
  afterAll(async () => {
    for (const dir of work) await rm(dir, { recursive: true, force: true });
  });

  /** A two-photo set (small pictures, one honest staging to cut furniture from), so the test stays fast. */
  async function smallSet() {
    const dir = await mkdtemp(path.join(tmpdir(), 'real-rooms-'));
    work.push(dir);
    const photos = manifest.photos.filter((p) => p.id === 'mp-panelled-bedroom' || p.id === 'dd-bedroom');
    const pairs = manifest.pairs.filter((p) => p.id === 'mp-panelled-bedroom-final1');
    expect(photos).toHaveLength(2);
    expect(pairs).toHaveLength(1);
    for (const file of [...photos.map((p) => p.file), ...pairs.map((p) => p.after)]) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await copyFile(path.join(SET, file), path.join(dir, file));
    }
    await writeFile(path.join(dir, 'manifest.json'), JSON.stringify({ photos, pairs }));
    return dir;
  }

  it('makes the same labelled edits, byte for byte, for the same seed', async () => {
    const set = await smallSet();
    const runs = [];
    for (const name of ['a', 'b']) {
      const out = path.join(set, `out-${name}`);
      runs.push({ out, edits: await makeRealEdits(set, out, 1) });
    }
    const [a, b] = runs as [(typeof runs)[0], (typeof runs)[0]];
    const shape = (r: typeof a) => r.edits.map((e) => ({ ...e, after: path.relative(r.out, e.after) }));
    expect(shape(b)).toEqual(shape(a));
    const classes = new Set(a.edits.map((e) => e.class));
    for (const cls of ['window_removed', 'window_added', 'door_removed', 'wall_moved', 'walls_recoloured', 'tone'])
      expect(classes, cls).toContain(cls);
    expect(classes).toContain('furniture_composite');
    for (const [i, edit] of a.edits.entries()) {
      const same = (await readFile(edit.after)).equals(await readFile(b.edits[i]!.after));
      expect(same, `${edit.id} differs between two runs with seed 1`).toBe(true);
    }
    for (const edit of a.edits) {
      expect(edit.label).toBe(edit.expect ? 'refuse' : 'pass');
      if (!edit.expect) continue;
      const { width = 0, height = 0 } = await sharp(edit.before).metadata();
      expect([
        'opening_removed',
        'opening_added',
        'opening_moved',
        'wall_moved',
        'builtin_changed',
        'surface_recoloured',
      ]).toContain(edit.expect.kind);
      expectInside(edit.expect.box, { width, height }, edit.id);
    }
  });
});
