import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  loadRealCases,
  REAL_CLASSES,
  type RealCase,
  type RealGroup,
  realRoomsDir,
  realSetPresent,
} from '../../fixtures/fidelity-real-set.js';
import { CHANGE_KINDS, FIDELITY_MIN, scoreFidelity } from '../../../server/imaging/fidelity.js';

/*
 * The fidelity targets on a sample of the real-photo set (REAL_ROOMS_DIR, default test/fixtures/real-rooms):
 * every other photo and pair, with the hand edits scripts/make-real-edits.ts makes of those photos. The sample is
 * small, so each class must be right at least as often as its target allows on that many cases;
 * `npm run bench:fidelity-real` measures the whole set.
 */
const dir = realRoomsDir();
const present = realSetPresent(dir);
const SAMPLE_EVERY = 3;

interface Manifest {
  photos?: unknown[];
  pairs?: unknown[];
}

/** A copy of the set's manifest with every SAMPLE_EVERY-th photo and pair, beside links to its pictures. */
function sampleSet(): string {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const every = <T>(items: T[] | undefined) => (items ?? []).filter((_, index) => index % SAMPLE_EVERY === 0);
  const sample = mkdtempSync(join(tmpdir(), 'real-rooms-sample-'));
  for (const folder of ['photos', 'outputs']) symlinkSync(join(dir, folder), join(sample, folder));
  writeFileSync(
    join(sample, 'manifest.json'),
    JSON.stringify({ ...manifest, photos: every(manifest.photos), pairs: every(manifest.pairs) }),
  );
  return sample;
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
  }, 120_000);

  const rightShare = (group: RealGroup) => {
    const list = results.get(group) ?? [];
    const right = list.filter(({ item, score }) => score < FIDELITY_MIN === (item.label === 'refuse'));
    const missed = list.filter((entry) => !right.includes(entry)).map(({ item, score }) => `${item.id} ${score}`);
    return { share: list.length ? right.length / list.length : 0, count: list.length, missed };
  };

  for (const group of ['staging', 'enhancement', 'openings', 'surfaces', 'composites'] as const) {
    const { title, target } = REAL_CLASSES[group];
    it(`${title}: at least ${target * 100} %`, () => {
      const { share, count, missed } = rightShare(group);
      expect(count, `no ${group} cases in the sample`).toBeGreaterThan(0);
      expect(share, missed.join(', ')).toBeGreaterThanOrEqual(target);
    });
  }

  it('names every refusal with kinds the API knows', () => {
    for (const list of results.values())
      for (const { kinds } of list) for (const kind of kinds) expect(CHANGE_KINDS).toContain(kind);
  });
});
