/**
 * The fidelity check on one pair, drawn: scores `output` against `photo`, prints the score and each change, and writes
 * a PNG with the photo on the left and the output on the right (resized to the photo's size, not registered), each
 * change's box outlined and numbered on both: red what was lost (an opening removed), green what was added, yellow what
 * moved or was recoloured. For looking at why a pair is refused; the boxes are in the photo's pixels, so on an output
 * the engine reframed they sit where the photo's content was.
 * Run: npm run fidelity:show -- <photo> <output> [picture.png] (default: fidelity-show.png in the system's temp folder)
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { type ChangeKind, FIDELITY_MIN, scoreFidelity } from '../server/imaging/fidelity/index.js';
import { uprightSize } from '../server/imaging/fidelity/picture.js';

/** Each panel's width in the picture written, in pixels. */
const PANEL = 800;
const GAP = 10;

const COLOURS: Record<ChangeKind, string> = {
  opening_removed: '#e53935',
  opening_added: '#43a047',
  opening_moved: '#fdd835',
  wall_moved: '#fdd835',
  builtin_changed: '#fdd835',
  surface_recoloured: '#fb8c00',
  unaligned: '#8e24aa',
};

async function main() {
  const [photoPath, outputPath, picturePath = join(tmpdir(), 'fidelity-show.png')] = process.argv.slice(2);
  if (!photoPath || !outputPath) {
    console.error('usage: npm run fidelity:show -- <photo> <output> [picture.png]');
    process.exit(1);
  }
  const photo = readFileSync(photoPath);
  const output = readFileSync(outputPath);
  const result = await scoreFidelity(photo, output);
  const verdict = result.score >= FIDELITY_MIN ? 'passes' : 'refused';
  console.log(`score ${result.score.toFixed(3)} (${verdict} at FIDELITY_MIN ${FIDELITY_MIN})`);
  console.log(`lost ${result.lost.toFixed(3)}, added ${result.added.toFixed(3)} picture heights of edge`);
  for (const [index, change] of result.changes.entries())
    console.log(`  ${index + 1}. ${change.kind} at ${change.box.join(', ')}`);

  // Both panels at the photo's upright size scaled to PANEL wide: the boxes are in its pixels.
  const { width, height } = await uprightSize(photo);
  const scale = PANEL / width;
  const panelHeight = Math.round(height * scale);
  const outlines = result.changes
    .map((change, index) => {
      const [x, y, w, h] = change.box.map((v) => v * scale) as [number, number, number, number];
      const colour = COLOURS[change.kind];
      return (
        `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="none" stroke="${colour}" stroke-width="3"/>` +
        `<text x="${x + 4}" y="${y + 18}" font-family="sans-serif" font-size="16" fill="${colour}">${index + 1}</text>`
      );
    })
    .join('');
  const overlay = Buffer.from(`<svg width="${PANEL}" height="${panelHeight}">${outlines}</svg>`);
  const panel = (image: Buffer) =>
    sharp(image)
      .rotate()
      .resize(PANEL, panelHeight, { fit: 'fill' })
      .composite([{ input: overlay }])
      .png()
      .toBuffer();
  const [left, right] = await Promise.all([panel(photo), panel(output)]);
  await sharp({
    create: { width: 2 * PANEL + GAP, height: panelHeight, channels: 3, background: '#ffffff' },
  })
    .composite([
      { input: left, left: 0, top: 0 },
      { input: right, left: PANEL + GAP, top: 0 },
    ])
    .png()
    .toFile(picturePath);
  console.log(`drawn: ${picturePath}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
