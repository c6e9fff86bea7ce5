/**
 * `npm run bench:fidelity-real`: the fidelity check (server/imaging/fidelity/) on the whole real-photo set
 * (bench/fidelity-real-set.ts; REAL_ROOMS_DIR, default test/fixtures/real-rooms): per class, how many cases it gets
 * right (real stagings and enhancements accepted, hand edits that change the building refused, furniture and wall
 * decor composites accepted) against the targets, then the time of one check of a 12-megapixel JPEG pair (both the
 * photo and the output at 4000 × 3000, decode included), median and p99, on this process's one thread of work; and
 * what refining a registration costs a refused output that was registered on features (the set's reframed edits).
 * It runs on the allocator the cluster primary gives the app processes (jemalloc where the machine has it): the bench
 * runs itself again with that environment (`rerunOnAppAllocator`) and prints which allocator it mapped.
 * Env: REAL_ROOMS_DIR, FIDELITY_REAL_TIMED (12 MP pairs timed, 60; 0 measures accuracy only), FIDELITY_REAL_SEED
 * (the edits' seed, 1), FIDELITY_REAL_VERBOSE=1 (one line per case).
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { allocatorOf, intEnv, quantile, rerunOnAppAllocator, textColumns } from './lib.js';
import { FIDELITY_MIN, scoreFidelity } from '../server/imaging/fidelity/index.js';
import { decodeSmall } from '../server/imaging/fidelity/picture.js';
import { refineRegistration, registerOutput } from '../server/imaging/register.js';
import {
  loadRealCases,
  REAL_CLASSES,
  type RealGroup,
  realRoomsDir,
  realSetPresent,
} from '../test/fixtures/fidelity-real-set.js';

const TARGET_MEDIAN_MS = 60;
const TARGET_P99_MS = 150;

const pct = (share: number) => `${(share * 100).toFixed(1)} %`;

async function main() {
  if (await rerunOnAppAllocator()) return;
  const dir = realRoomsDir();
  if (!realSetPresent(dir)) {
    console.error(`no real-photo set at ${dir} (manifest.json): set REAL_ROOMS_DIR`);
    process.exit(1);
  }
  const { cases, edits } = await loadRealCases({ dir, seed: intEnv('FIDELITY_REAL_SEED', 1) });
  console.log(`fidelity on real photos: ${cases.length} cases from ${dir}, FIDELITY_MIN = ${FIDELITY_MIN}`);
  console.log(`allocator: ${allocatorOf(process.pid)}, as the app processes run`);
  if (!edits) console.log('(no scripts/make-real-edits.ts found: the real pairs only)');
  const verbose = process.env.FIDELITY_REAL_VERBOSE === '1';
  const tally = new Map<RealGroup, { right: number; total: number; missed: string[] }>();
  for (const item of cases) {
    const result = await scoreFidelity(readFileSync(item.before), readFileSync(item.after));
    const refused = result.score < FIDELITY_MIN;
    const right = refused === (item.label === 'refuse');
    const row = tally.get(item.group) ?? { right: 0, total: 0, missed: [] };
    row.total++;
    if (right) row.right++;
    else row.missed.push(`${item.id} (${result.score.toFixed(2)})`);
    tally.set(item.group, row);
    if (verbose)
      console.log(
        `  ${right ? 'ok  ' : 'MISS'} ${item.group.padEnd(13)} ${item.id.padEnd(40)} ${result.score.toFixed(3)} ` +
          result.changes.map((change) => `${change.kind}@${change.box.join(',')}`).join(' '),
      );
  }
  const rows: string[][] = [];
  let ok = true;
  for (const [group, { title, target }] of Object.entries(REAL_CLASSES) as Array<
    [RealGroup, { title: string; target: number | null }]
  >) {
    const row = tally.get(group);
    if (!row) {
      if (target !== null) {
        ok = false;
        rows.push([title, '0', '—', `≥ ${pct(target)}`, 'FAIL (no cases)']);
      }
      continue;
    }
    const share = row.right / row.total;
    const passed = target === null || share >= target;
    if (target !== null) ok &&= passed;
    rows.push([
      title,
      String(row.total),
      `${row.right} (${pct(share)})`,
      target === null ? '—' : `≥ ${pct(target)}`,
      target === null ? '' : passed ? 'PASS' : 'FAIL',
    ]);
  }
  const header = ['class', 'cases', 'right', 'target', ''];
  console.log(`\n${textColumns(header, rows).join('\n')}`);
  for (const [group, row] of tally)
    if (row.missed.length) console.log(`  missed in ${group}: ${row.missed.join(', ')}`);

  // Timing: 12 MP JPEGs made from the set's real pairs (both pictures enlarged to 4000 × 3000), one at a time.
  const timed = intEnv('FIDELITY_REAL_TIMED', 60, 0);
  const sources = cases.filter((item) => item.group === 'staging' || item.group === 'composites');
  const pairs: Array<[Buffer, Buffer]> = [];
  for (let i = 0; i < Math.min(timed, sources.length); i++) {
    const item = sources[i] as (typeof sources)[number];
    const big = (file: string) =>
      sharp(readFileSync(file)).rotate().resize(4000, 3000, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();
    pairs.push([await big(item.before), await big(item.after)]);
  }
  if (!timed) console.log('\n12 MP timing not measured (FIDELITY_REAL_TIMED=0)');
  if (pairs.length) {
    await scoreFidelity(pairs[0]![0], pairs[0]![1]);
    const times: number[] = [];
    const cpu: number[] = [];
    while (times.length < timed)
      for (const [before, after] of pairs) {
        if (times.length >= timed) break;
        const start = performance.now();
        const used = process.cpuUsage();
        await scoreFidelity(before, after);
        times.push(performance.now() - start);
        const spent = process.cpuUsage(used);
        cpu.push((spent.user + spent.system) / 1000);
      }
    const median = quantile(times, 0.5);
    const p99 = quantile(times, 0.99);
    const timeOk = median <= TARGET_MEDIAN_MS && p99 <= TARGET_P99_MS;
    ok &&= timeOk;
    console.log(
      `\n12 MP JPEG pair (4000×3000 photo and output, ${times.length} checks over ${pairs.length} real pairs): ` +
        `median ${median.toFixed(1)} ms (≤ ${TARGET_MEDIAN_MS}), p99 ${p99.toFixed(1)} ms (≤ ${TARGET_P99_MS})  ${timeOk ? 'PASS' : 'FAIL'}`,
    );
    console.log(
      `  CPU time per check (all threads): median ${quantile(cpu, 0.5).toFixed(1)} ms, p99 ${quantile(cpu, 0.99).toFixed(1)} ms`,
    );
  }
  // The refinement runs only for an output refused on a homography fitted to features: timed on every such
  // registration of the set's edits made the way enhancement tools reframe (working size, after the decodes).
  const refineTimes: number[] = [];
  for (const item of cases) {
    if (!/--(reframe|tone)-/.test(item.id) || refineTimes.length >= timed) continue;
    const photo = (await decodeSmall(readFileSync(item.before))).colour;
    const registered = await registerOutput(photo, (await decodeSmall(readFileSync(item.after))).colour);
    if (!registered?.fit) continue;
    const start = performance.now();
    await refineRegistration(photo, registered);
    refineTimes.push(performance.now() - start);
  }
  if (refineTimes.length)
    console.log(
      `  a refused output's registration refined (${refineTimes.length} fitted registrations of reframed edits): ` +
        `median ${quantile(refineTimes, 0.5).toFixed(1)} ms, p99 ${quantile(refineTimes, 0.99).toFixed(1)} ms more`,
    );
  console.log(`\n${ok ? 'all targets met' : 'some targets missed'}`);
  process.exitCode = ok ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
