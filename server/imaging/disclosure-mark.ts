/**
 * The "Virtually staged" disclosure mark: white text on a dark rounded backing in the bottom-right corner. The text is
 * drawn as SVG strokes from the small glyph set below, not with a font: librsvg falls back to whatever fonts the
 * machine has (often none in a container), and the mark must look the same on every server.
 *
 * Size: the capital letters are 2.5 % of the picture's short edge high (legible on a 390 px thumbnail of a 4000 px
 * photo), and the whole mark never covers more than MAX_AREA_SHARE of the picture nor more than 90 % of its width.
 */
import type { OverlayOptions } from 'sharp';

export const MARK_TEXT = 'Virtually staged';

/** Glyph box: capitals from y 0 to the baseline at 10, x-height at 3, descenders to 13.5; `width` in the same units. */
interface Glyph {
  width: number;
  path: string;
}

const bowl = (right: number) => `M${right} 6.5 A${right / 2} 3.5 0 1 0 0 6.5 A${right / 2} 3.5 0 1 0 ${right} 6.5`;

const GLYPHS: Record<string, Glyph> = {
  V: { width: 6.4, path: 'M0 0 L3.2 10 L6.4 0' },
  i: { width: 0, path: 'M0 3 L0 10 M0 0.4 L0 0.6' },
  r: { width: 3.8, path: 'M0 3 L0 10 M0 6 Q0.8 3 3.8 3.1' },
  t: { width: 3.4, path: 'M1.2 0.8 L1.2 8.6 Q1.2 10 3.4 9.8 M0 3.2 L3.3 3.2' },
  u: { width: 4.8, path: 'M0 3 L0 7.6 Q0 10 2.4 10 Q4.8 10 4.8 7.2 M4.8 3 L4.8 10' },
  a: { width: 4.8, path: `${bowl(4.8)} M4.8 3 L4.8 10` },
  l: { width: 0, path: 'M0 0 L0 10' },
  y: { width: 5, path: 'M0 3 L2.6 9.6 M5 3 L1.8 12.4 Q1.3 13.5 0 13.3' },
  s: { width: 4.2, path: 'M4 3.7 Q2.3 2.7 0.7 3.4 Q-0.3 4.6 0.9 5.8 L3.4 6.9 Q4.7 7.9 3.8 9.4 Q2.1 10.5 0 9.4' },
  g: { width: 4.8, path: `${bowl(4.8)} M4.8 3 L4.8 11.3 Q4.8 13.5 2.4 13.5 Q0.9 13.5 0.2 12.8` },
  e: { width: 4.8, path: 'M0.1 6.4 L4.8 6.4 Q4.8 3 2.4 3 Q0 3 0 6.5 Q0 10 2.5 10 Q3.9 10 4.6 9' },
  d: { width: 4.8, path: `${bowl(4.8)} M4.8 0 L4.8 10` },
  ' ': { width: 1.6, path: '' },
};

const STROKE = 1.7;
const LETTER_GAP = 1.9;
const PAD_X = 3.6;
const PAD_TOP = 3;
const PAD_BOTTOM = 1.6;
const TEXT_BOTTOM = 13.5;
/** Capital height as a share of the short edge. */
const CAP_SHARE = 0.025;
/** The mark never covers more than this share of the picture. */
export const MAX_AREA_SHARE = 0.06;
const MAX_WIDTH_SHARE = 0.9;

/** The text's strokes laid out from x 0, and its width, in glyph units. */
function layout(text: string): { paths: string[]; width: number } {
  const paths: string[] = [];
  let x = 0;
  for (const [index, char] of [...text].entries()) {
    const glyph = GLYPHS[char];
    if (!glyph) throw new Error(`the disclosure mark has no glyph for ${JSON.stringify(char)}`);
    if (index > 0) x += LETTER_GAP;
    if (glyph.path) paths.push(`<path transform="translate(${x.toFixed(2)} 0)" d="${glyph.path}"/>`);
    x += glyph.width;
  }
  return { paths, width: x };
}

const MARK = layout(MARK_TEXT);
/** The mark's size in glyph units, backing included. */
const UNITS = { width: MARK.width + STROKE + 2 * PAD_X, height: TEXT_BOTTOM + STROKE + PAD_TOP + PAD_BOTTOM };

export interface MarkBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Where the mark goes on a picture of this size (bottom-right corner, a margin of 1.5 % of the short edge). */
export function markBox(width: number, height: number): MarkBox {
  const short = Math.min(width, height);
  let scale = (CAP_SHARE * short) / 10;
  scale = Math.min(
    scale,
    (MAX_WIDTH_SHARE * width) / UNITS.width,
    Math.sqrt((MAX_AREA_SHARE * width * height) / (UNITS.width * UNITS.height)),
  );
  const markWidth = Math.max(1, Math.floor(UNITS.width * scale));
  const markHeight = Math.max(1, Math.floor(UNITS.height * scale));
  const margin = Math.round(0.015 * short);
  return {
    left: Math.max(0, width - markWidth - margin),
    top: Math.max(0, height - markHeight - margin),
    width: markWidth,
    height: markHeight,
  };
}

/** The mark as one sharp overlay for a picture of this size. */
export function markOverlay(width: number, height: number): OverlayOptions {
  const box = markBox(width, height);
  const radius = (UNITS.height / 5).toFixed(2);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${box.width}" height="${box.height}" ` +
    `viewBox="0 0 ${UNITS.width.toFixed(2)} ${UNITS.height.toFixed(2)}" preserveAspectRatio="none">` +
    `<rect width="100%" height="100%" rx="${radius}" fill="#111" fill-opacity="0.72"/>` +
    `<g transform="translate(${(PAD_X + STROKE / 2).toFixed(2)} ${(PAD_TOP + STROKE / 2).toFixed(2)})" fill="none" ` +
    `stroke="#fff" stroke-width="${STROKE}" stroke-linecap="round" stroke-linejoin="round">${MARK.paths.join('')}</g>` +
    '</svg>';
  return { input: Buffer.from(svg), left: box.left, top: box.top };
}
