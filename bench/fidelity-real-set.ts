/**
 * The real-photo evaluation set for the fidelity check (REAL_ROOMS_DIR, default test/fixtures/real-rooms): its
 * manifest's before/after pairs (real stagings and enhancements by other tools, each labelled pass or refuse by a
 * person who looked at it) and the hand edits scripts/make-real-edits.ts makes from its photos (openings removed,
 * added or moved, surfaces recoloured, furniture and wall decor composited...). Used by `npm run bench:fidelity-real`
 * (the whole set) and by test/unit/imaging/fidelity-real.test.ts (a sample).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** One case: a photo, what an engine or an edit made of it, and whether the check must pass or refuse it. */
export interface RealCase {
  id: string;
  /** The row of the table it counts in (REAL_CLASSES). */
  group: RealGroup;
  before: string;
  after: string;
  label: 'pass' | 'refuse';
  /** For an edit: what the check should name, and where (photo pixels). */
  expect?: { kind: string; box: [number, number, number, number] };
}

/** The table's rows, each with its target share of cases the check gets right. */
export const REAL_CLASSES = {
  staging: { title: 'honest real stagings accepted', target: 0.95 },
  enhancement: { title: 'tone-only enhancements accepted', target: 1 },
  openings: { title: 'openings removed / added / moved refused', target: 0.95 },
  surfaces: { title: 'walls / floor / ceiling recoloured refused', target: 0.85 },
  composites: { title: 'furniture-only and wall-decor composites accepted', target: 0.97 },
  other_refused: { title: 'other building changes refused (walls, built-ins)', target: null },
  other_pass: { title: 'other real pairs labelled pass accepted', target: null },
  other_refuse: { title: 'real pairs labelled refuse refused', target: null },
} as const;
export type RealGroup = keyof typeof REAL_CLASSES;

export function realRoomsDir(): string {
  const dir = process.env.REAL_ROOMS_DIR || 'test/fixtures/real-rooms';
  return isAbsolute(dir) ? dir : join(ROOT, dir);
}

export function realSetPresent(dir = realRoomsDir()): boolean {
  return existsSync(join(dir, 'manifest.json'));
}

interface Manifest {
  pairs?: Array<{ id: string; before: string; after: string; class: string; label: 'pass' | 'refuse' }>;
}

interface Edit {
  id: string;
  before: string;
  after: string;
  class: string;
  label: 'pass' | 'refuse';
  expect?: RealCase['expect'];
}

/** The script that makes the hand edits: the repository's, or beside the set (REAL_EDITS_SCRIPT overrides both). */
function editScript(dir: string): string | null {
  const candidates = [
    process.env.REAL_EDITS_SCRIPT,
    join(ROOT, 'scripts/make-real-edits.ts'),
    join(dir, '../../../scripts/make-real-edits.ts'),
  ].filter((path): path is string => Boolean(path));
  return candidates.find((path) => existsSync(path)) ?? null;
}

const within = (dir: string, file: string) => (isAbsolute(file) ? file : join(dir, file));

/** Edits that must be refused, by what they change; the rest of the refused ones count as other building changes. */
const OPENING = /^(window|door|archway|opening)_/;
const SURFACE = /^surface_|recolou?r|retextur|repaint/;

function groupOfEdit(edit: Edit): RealGroup {
  if (edit.label === 'refuse') {
    if (OPENING.test(edit.class)) return 'openings';
    if (SURFACE.test(edit.class)) return 'surfaces';
    return 'other_refused';
  }
  // Tone and light only: an enhancement; anything added to the room (furniture, wall decor, curtains, lamps, plants).
  return edit.class === 'tone' ? 'enhancement' : 'composites';
}

/** Every case of the set: the manifest's real pairs, then the hand edits (written to `outDir`, seed `seed`). */
export async function loadRealCases(
  options: { dir?: string; outDir?: string; seed?: number } = {},
): Promise<{ cases: RealCase[]; edits: boolean }> {
  const dir = options.dir ?? realRoomsDir();
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const cases: RealCase[] = [];
  for (const pair of manifest.pairs ?? []) {
    const group: RealGroup =
      pair.label === 'refuse'
        ? 'other_refuse'
        : pair.class === 'enhancement'
          ? 'enhancement'
          : pair.class === 'staging'
            ? 'staging'
            : 'other_pass';
    cases.push({
      id: pair.id,
      group,
      before: within(dir, pair.before),
      after: within(dir, pair.after),
      label: pair.label,
    });
  }
  const script = editScript(dir);
  if (!script) return { cases, edits: false };
  const module = (await import(pathToFileURL(script).href)) as {
    makeRealEdits(setDir: string, outDir: string, seed: number): Promise<Edit[]>;
  };
  const outDir = options.outDir ?? mkdtempSync(join(tmpdir(), 'real-edits-'));
  for (const edit of await module.makeRealEdits(dir, outDir, options.seed ?? 1))
    cases.push({
      id: edit.id,
      group: groupOfEdit(edit),
      before: within(dir, edit.before),
      after: within(outDir, edit.after),
      label: edit.label,
      expect: edit.expect,
    });
  return { cases, edits: true };
}
