/**
 * `npm run bench:fidelity-outside`: the fidelity check on the real pairs from outside the set, listed with their
 * labels in test/fixtures/real-rooms/OUTSIDE.md and not kept in the repository. Each group is rebuilt as that page
 * says from clones of the repositories it names (test/fixtures/outside-pairs.ts), then every labelled pair is scored
 * once: per group, how many honest stagings pass and how many building changes are refused, and which do not.
 * Env: OUTSIDE_CLONES (required: a folder of clones, each `owner+name`, bare or not, e.g. made with
 * `git clone --bare https://github.com/<owner>/<name> "$OUTSIDE_CLONES/<owner>+<name>"`), OUTSIDE_DIR (where the
 * groups are written; a temporary folder), OUTSIDE_GROUPS (e.g. `g1,g2`: only those), FIDELITY_OUTSIDE_VERBOSE=1 (one
 * line per pair).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIDELITY_MIN, scoreFidelity } from '../server/imaging/fidelity/index.js';
import { buildOutsideGroups, OUTSIDE_PAGE } from '../test/fixtures/outside-pairs.js';
import { textColumns } from './lib.js';

async function main() {
  const clones = process.env.OUTSIDE_CLONES;
  if (!clones) {
    console.error(
      'set OUTSIDE_CLONES to a folder of clones of the repositories OUTSIDE.md names, each `owner+name` ' +
        '(git clone --bare https://github.com/<owner>/<name> "$OUTSIDE_CLONES/<owner>+<name>")',
    );
    process.exit(1);
  }
  const outDir = process.env.OUTSIDE_DIR || mkdtempSync(join(tmpdir(), 'outside-pairs-'));
  const only = process.env.OUTSIDE_GROUPS?.split(',').map((name) => name.trim());
  const verbose = process.env.FIDELITY_OUTSIDE_VERBOSE === '1';
  const groups = await buildOutsideGroups({ clones, outDir, only });
  console.log(`fidelity outside the set: ${OUTSIDE_PAGE}, rebuilt in ${outDir}, FIDELITY_MIN = ${FIDELITY_MIN}`);
  const rows: string[][] = [];
  for (const group of groups) {
    const honest = { right: 0, total: 0, wrong: [] as string[] };
    const changes = { right: 0, total: 0, wrong: [] as string[] };
    for (const pair of group.pairs) {
      const result = await scoreFidelity(readFileSync(pair.before), readFileSync(pair.after));
      const right = result.score >= FIDELITY_MIN === (pair.label === 'pass');
      const tally = pair.label === 'pass' ? honest : changes;
      tally.total++;
      if (right) tally.right++;
      else tally.wrong.push(pair.id);
      if (verbose)
        console.log(
          `  ${right ? 'ok  ' : 'MISS'} ${group.name.padEnd(13)} ${pair.id.padEnd(6)} ` +
            `${pair.label.padEnd(6)} ${result.score.toFixed(3)} ` +
            result.changes.map((change) => `${change.kind}@${change.box.join(',')}`).join(' '),
        );
    }
    rows.push([
      group.name,
      `${honest.right} of ${honest.total}`,
      `${changes.right} of ${changes.total}`,
      honest.wrong.join(' ') || '—',
      changes.wrong.join(' ') || '—',
    ]);
  }
  const header = ['group', 'honest passed', 'changes refused', 'honest refused', 'changes passed'];
  console.log(`\n${textColumns(header, rows).join('\n')}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
