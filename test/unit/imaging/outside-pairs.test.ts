import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { buildOutsideGroups, type OutsidePair, readOutsidePairs } from '../../fixtures/outside-pairs.js';

/*
 * The pairs from outside the set are listed, not kept: OUTSIDE.md's tables are what `npm run bench:fidelity-outside`
 * rebuilds them from, so the page must read as the figures it states, and the rebuild must follow its recipe.
 */
describe('the real pairs from outside the set', () => {
  it('reads every row of OUTSIDE.md, with the labelled counts each group states', () => {
    const pairs = readOutsidePairs();
    const counts = [1, 2, 3, 4, 5, 6, 7].map((group) => {
      const rows = pairs.filter((pair) => pair.group === group);
      return {
        rows: rows.length,
        pass: rows.filter((pair) => pair.label === 'pass').length,
        refuse: rows.filter((pair) => pair.label === 'refuse').length,
      };
    });
    // The groups' own words: 36 pairs (21 honest, 12 building changes), 24 (13, 8), 30 (13, 15), 31 (15, 10), 32 (20,
    // 12), 20 (8, 9), 20 (5, 13); the rest are unsure.
    expect(counts).toEqual([
      { rows: 36, pass: 21, refuse: 12 },
      { rows: 24, pass: 13, refuse: 8 },
      { rows: 30, pass: 13, refuse: 15 },
      { rows: 31, pass: 15, refuse: 10 },
      { rows: 32, pass: 20, refuse: 12 },
      { rows: 20, pass: 8, refuse: 9 },
      { rows: 20, pass: 5, refuse: 13 },
    ]);
    expect(pairs.filter((pair) => pair.group > 7)).toEqual([]);
    expect(new Set(pairs.map((pair) => pair.id)).size).toBe(pairs.length);
    for (const pair of pairs) {
      expect(pair.repo).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(pair.commits.every((commit) => /^[0-9a-f]{12,40}$/.test(commit))).toBe(true);
      // No backquote, no `…/` and no note in brackets after the name is left (a name may hold "(2)" of its own).
      expect(pair.before).not.toMatch(/[`…]|\)$/);
      expect(pair.after).not.toMatch(/[`…]|\)$/);
    }
    // A row that names the after file by `…/name` means the before file's folder.
    expect(pairs.find((pair) => pair.id === 'n07')?.after).toBe(
      'public/property-images/website/staging/kitchen-after.jpeg',
    );
  });

  it('rebuilds the groups from clones: downscaled in their own format, the first also as fetched, unsure left out', async () => {
    const root = mkdtempSync(join(tmpdir(), 'outside-clones-'));
    const work = join(root, 'work');
    mkdirSync(join(work, 'pics'), { recursive: true });
    const large = await sharp({ create: { width: 2400, height: 1200, channels: 3, background: '#8a7' } })
      .jpeg({ quality: 95 })
      .toBuffer();
    const small = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#345' } })
      .png()
      .toBuffer();
    writeFileSync(join(work, 'pics/big.jpg'), large);
    writeFileSync(join(work, 'pics/noext'), small);
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: work })
        .toString()
        .trim();
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'pictures');
    const commit = git('rev-parse', 'HEAD');
    execFileSync('git', ['clone', '-q', '--bare', work, join(root, 'clones', 'someone+site')]);
    const pair = (group: number, id: string, label: OutsidePair['label']): OutsidePair => ({
      group,
      id,
      repo: 'someone/site',
      commits: ['0000000000aa', commit.slice(0, 12)],
      before: 'pics/big.jpg',
      after: 'pics/noext',
      label,
    });
    const groups = await buildOutsideGroups({
      clones: join(root, 'clones'),
      outDir: join(root, 'out'),
      pairs: [pair(1, 'ho90', 'pass'), pair(1, 'ho91', 'unsure'), pair(2, 'n90', 'refuse')],
    });
    expect(groups.map((group) => group.name)).toEqual(['g1', 'g1-asfetched', 'g2']);
    const manifest = (name: string) =>
      JSON.parse(readFileSync(join(root, 'out', name, 'manifest.json'), 'utf8')) as {
        pairs: Array<Record<string, string>>;
      };
    expect(manifest('g1').pairs).toEqual([
      { id: 'ho90', before: 'ho90-before.jpg', after: 'ho90-after.png', class: 'staging', label: 'pass' },
    ]);
    expect(manifest('g2').pairs.map((entry) => entry.label)).toEqual(['refuse']);
    const size = async (name: string, file: string) => {
      const { width, height, format } = await sharp(join(root, 'out', name, file)).metadata();
      return [width, height, format];
    };
    expect(await size('g1', 'ho90-before.jpg')).toEqual([1600, 800, 'jpeg']);
    expect(await size('g1-asfetched', 'ho90-before.jpg')).toEqual([2400, 1200, 'jpeg']);
    expect(readFileSync(join(root, 'out', 'g1-asfetched', 'ho90-before.jpg')).equals(large)).toBe(true);
    expect(readFileSync(join(root, 'out', 'g2', 'n90-after.png')).equals(small)).toBe(true);
  });

  it('says which clone is missing', async () => {
    const root = mkdtempSync(join(tmpdir(), 'outside-none-'));
    await expect(
      buildOutsideGroups({
        clones: root,
        outDir: join(root, 'out'),
        pairs: [
          { group: 1, id: 'ho90', repo: 'nobody/here', commits: ['abc'], before: 'a', after: 'b', label: 'pass' },
        ],
      }),
    ).rejects.toThrow(/no clone of nobody\/here/);
  });
});
