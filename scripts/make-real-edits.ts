/**
 * Hand edits of real photographs, made reproducibly from the real-room set (test/fixtures/real-rooms) and its
 * annotations, each labelled as what a fidelity check must do with it:
 *
 * - must be refused: a window painted over with the wall beside it, a real window (cut from another real photo)
 *   pasted on a plain wall, a door or archway removed or moved, a wall corner or column shifted, a built-in painted
 *   out, walls / floor / ceiling repainted (the surface's own shading and texture kept, its colour changed) or
 *   re-textured (another real surface's material laid over it, lit by the original shading);
 * - must pass: real furniture cut from honest real stagings (where the staged output differs from its photo) set on
 *   the floor of other real rooms, real framed art and mirrors hung on walls, real curtain panels hung beside
 *   windows, a real lamp or plant set down, and tone-only changes (exposure, contrast, white balance, gamma,
 *   sharpening, HDR-like local contrast, a slight crop, zoom or reframe), and the photo only reframed (the horizon
 *   levelled, a zoom of a percent or two, converging verticals corrected, padded to a square with bars).
 *
 * Deterministic for a seed: the same set and seed give byte-identical files. Each refused edit carries `expect`, the
 * kind of change a fidelity report should name and where it is, in the before photo's pixels.
 * Run: npx tsx scripts/make-real-edits.ts <outDir> [seed] [setDir]
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

export type Box = [number, number, number, number];

export interface RealEdit {
  id: string;
  /** The unedited real photo (absolute path). */
  before: string;
  /** The edited picture (absolute path, in outDir). */
  after: string;
  /** What was done, e.g. `window_removed`, `furniture_composite`, `tone`. */
  class: string;
  label: 'pass' | 'refuse';
  /** For refused edits: the report kind that names the change, and where it is in the before photo. */
  expect?: { kind: string; box: Box };
}

interface Opening {
  type: 'window' | 'door' | 'archway';
  box: Box;
  covered?: boolean;
  /** Part of a glass wall: there is no wall beside it to paint it over with. */
  glazed?: boolean;
}

interface Photo {
  id: string;
  file: string;
  kind: string;
  openings: Opening[];
  walls: Box[];
  floor: Box[];
  ceiling: Box[];
  builtins: Box[];
  /** Regions holding a wall corner or column line, top to bottom. */
  corners?: Box[];
  /**
   * Framed pictures and mirrors hanging in this photo (cut out as wall decor): along `outline` (the frame's corners,
   * drawn by hand, where the frame is not square to the picture and its box would carry a wedge of the wall it hangs
   * on), else as the box; `round` ones as the ellipse in the box.
   */
  decor?: Array<{ box: Box; round?: boolean; outline?: Array<Array<[number, number]>> }>;
  /** Curtain panels in this photo (each box is one panel, fabric only). */
  curtains?: Box[];
}

interface Pair {
  id: string;
  before: string;
  after: string;
  class: string;
  label: string;
  /**
   * Things the honest staging added (or, with from: "before", removed): cut out along `outline` (polygons drawn by
   * hand, in the stored file's pixels) where it is given, else where the two pictures differ inside `box`.
   */
  cutouts?: Array<{
    kind: 'furniture' | 'lamp_plant' | 'decor';
    box: Box;
    from?: 'before' | 'after';
    outline?: Array<Array<[number, number]>>;
  }>;
}

interface Manifest {
  photos: Photo[];
  pairs: Pair[];
}

/** A decoded picture: 3 channels, 0–255, row-major. */
export interface Img {
  data: Float32Array;
  width: number;
  height: number;
}

/** A cutout: 4 channels (alpha 0–1). */
interface Cut {
  data: Float32Array;
  width: number;
  height: number;
  kind: string;
  source: string;
}

// --- deterministic randomness -------------------------------------------------------------------------------------

function hashString(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/** mulberry32: small, fast, and the same on every machine. */
function rngFor(seed: number, key: string): () => number {
  let a = (hashString(key) ^ Math.imul(seed, 0x9e3779b1)) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const between = (rng: () => number, lo: number, hi: number) => lo + (hi - lo) * rng();
const pick = <T>(rng: () => number, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;

// --- pixels -------------------------------------------------------------------------------------------------------

export async function load(file: string): Promise<Img> {
  const { data, info } = await sharp(file).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: Float32Array.from(data), width: info.width, height: info.height };
}

function toBytes(img: Img): Buffer {
  const out = Buffer.alloc(img.data.length);
  for (let i = 0; i < img.data.length; i++) out[i] = Math.max(0, Math.min(255, Math.round(img.data[i]!)));
  return out;
}

/** The picture as the edits are written: JPEG at quality 90. */
export function jpegOf(img: Img): Promise<Buffer> {
  return sharp(toBytes(img), { raw: { width: img.width, height: img.height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

async function saveJpeg(img: Img, file: string): Promise<void> {
  await writeFile(file, await jpegOf(img));
}

const clone = (img: Img): Img => ({ data: new Float32Array(img.data), width: img.width, height: img.height });

function crop(img: Img, [x, y, w, h]: Box): Img {
  const out = new Float32Array(w * h * 3);
  for (let r = 0; r < h; r++) {
    const from = ((y + r) * img.width + x) * 3;
    out.set(img.data.subarray(from, from + w * 3), r * w * 3);
  }
  return { data: out, width: w, height: h };
}

/** Resizes a 3- or 4-channel float picture with sharp (lanczos; alpha is premultiplied by sharp). */
async function resizeFloat(data: Float32Array, w: number, h: number, channels: 3 | 4, nw: number, nh: number) {
  const bytes = Buffer.alloc(data.length);
  for (let i = 0; i < data.length; i++) {
    const v = channels === 4 && i % 4 === 3 ? data[i]! * 255 : data[i]!;
    bytes[i] = Math.max(0, Math.min(255, Math.round(v)));
  }
  const out = await sharp(bytes, { raw: { width: w, height: h, channels } })
    .resize(Math.max(1, Math.round(nw)), Math.max(1, Math.round(nh)), { fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const result = new Float32Array(out.data.length);
  for (let i = 0; i < out.data.length; i++)
    result[i] = channels === 4 && i % 4 === 3 ? out.data[i]! / 255 : out.data[i]!;
  return { data: result, width: out.info.width, height: out.info.height };
}

const clampBox = ([x, y, w, h]: Box, W: number, H: number): Box => {
  const x0 = Math.max(0, Math.min(W - 1, Math.round(x)));
  const y0 = Math.max(0, Math.min(H - 1, Math.round(y)));
  const x1 = Math.max(x0 + 1, Math.min(W, Math.round(x + w)));
  const y1 = Math.max(y0 + 1, Math.min(H, Math.round(y + h)));
  return [x0, y0, x1 - x0, y1 - y0];
};

const grow = ([x, y, w, h]: Box, by: number): Box => [x - by, y - by, w + 2 * by, h + 2 * by];
const overlaps = (a: Box, b: Box) =>
  a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];
const union = (a: Box, b: Box): Box => {
  const x = Math.min(a[0], b[0]);
  const y = Math.min(a[1], b[1]);
  return [x, y, Math.max(a[0] + a[2], b[0] + b[2]) - x, Math.max(a[1] + a[3], b[1] + b[3]) - y];
};
const smoothstep = (t: number) => {
  const c = Math.max(0, Math.min(1, t));
  return c * c * (3 - 2 * c);
};
/** Index into a strip of `n` samples, mirrored so a texture repeats without a seam. */
const mirror = (i: number, n: number) => {
  const period = 2 * n;
  const m = ((i % period) + period) % period;
  return m < n ? m : period - 1 - m;
};

/**
 * Paints `box` over with what surrounds it, the way a retoucher clones a wall over a window: each row is filled from
 * the strips of wall just left and right of the box (mirrored so their texture continues), cross-faded from one side
 * to the other; `vertical` does the same from the strips above and below. The box grows a little first to take in
 * the frame, and the patch fades into the picture over a few pixels.
 */
export function paintOver(img: Img, box: Box, rng: () => number, vertical = false, onFloor = false): Box | null {
  const { width: W, height: H } = img;
  const pad = Math.round(Math.min(box[2], box[3]) * between(rng, 0.06, 0.1)) + 2;
  const grown = grow(box, pad);
  if (onFloor) grown[3] = box[1] + box[3] + 1 - grown[1];
  const [x, y, w, h] = clampBox(grown, W, H);
  const fade = Math.max(2, Math.round(pad * 0.8));
  const src = clone(img);
  const along = vertical ? h : w;
  const strip = Math.max(4, Math.round(along * between(rng, 0.18, 0.3)));
  // Samples before and after the box along the fill direction; a side that leaves the picture is not used.
  const beforeRoom = vertical ? y : x;
  const afterRoom = vertical ? H - (y + h) : W - (x + w);
  const nBefore = Math.min(strip, beforeRoom);
  const nAfter = Math.min(strip, afterRoom);
  // Both sides are needed: a fill mirrored from one side only repeats whatever stands there.
  if (nBefore < strip * 0.5 || nAfter < strip * 0.5) return null;
  for (let r = -fade; r < h + fade; r++) {
    for (let c = -fade; c < w + fade; c++) {
      const px = x + c;
      const py = y + r;
      if (px < 0 || py < 0 || px >= W || py >= H) continue;
      const inside = c >= 0 && c < w && r >= 0 && r < h;
      // Fade in over `fade` pixels outside the box.
      const dx = c < 0 ? -c : c >= w ? c - w + 1 : 0;
      const dy = r < 0 ? -r : r >= h ? r - h + 1 : 0;
      const alpha = inside ? 1 : 1 - smoothstep(Math.max(dx, dy) / fade);
      if (alpha <= 0) continue;
      const u = vertical ? Math.max(0, Math.min(h - 1, r)) : Math.max(0, Math.min(w - 1, c));
      const t = smoothstep(along > 1 ? u / (along - 1) : 0.5);
      let wb = nBefore >= 2 ? 1 - t : 0;
      let wa = nAfter >= 2 ? t : 0;
      if (wb + wa === 0) {
        wb = nBefore >= 2 ? 1 : 0;
        wa = nAfter >= 2 ? 1 : 0;
      }
      const norm = wb + wa;
      const o = (py * W + px) * 3;
      for (let ch = 0; ch < 3; ch++) {
        let v = 0;
        if (wb > 0) {
          const k = mirror(u, nBefore);
          const s = vertical ? ((y - 1 - k) * W + px) * 3 : (py * W + (x - 1 - k)) * 3;
          v += wb * src.data[s + ch]!;
        }
        if (wa > 0) {
          const k = mirror(along - 1 - u, nAfter);
          const s = vertical ? ((y + h + k) * W + px) * 3 : (py * W + (x + w + k)) * 3;
          v += wa * src.data[s + ch]!;
        }
        img.data[o + ch] = (1 - alpha) * src.data[o + ch]! + (alpha * v) / norm;
      }
    }
  }
  return [x, y, w, h];
}

/**
 * Paints `box` over the way a plasterer would: a smooth surface spanned between the colours just outside its four
 * sides (a Coons patch, so the wall's light gradient carries across), with the grain of the wall beside it added back.
 * The box grows a little first to take in the frame (not downwards when it stands on the floor), and the patch fades
 * into the picture over a few pixels. Returns the painted box, or null when a side lies outside the picture.
 */
function patchOver(img: Img, box: Box, rng: () => number, onFloor = false): Box | null {
  const { width: W, height: H } = img;
  const pad = Math.round(Math.min(box[2], box[3]) * between(rng, 0.06, 0.1)) + 2;
  const grown = grow(box, pad);
  if (onFloor) grown[3] = box[1] + box[3] + 1 - grown[1];
  const [x, y, w, h] = clampBox(grown, W, H);
  const band = 3;
  if (x < band || y < band || x + w > W - band || y + h > H - band) return null;
  const src = clone(img);
  const at = (px: number, py: number, ch: number) => src.data[(py * W + px) * 3 + ch]!;
  // The four borders, each averaged over a thin band and smoothed along its length.
  const border = (len: number, sample: (i: number, k: number, ch: number) => number) => {
    const raw = new Float32Array(len * 3);
    for (let i = 0; i < len; i++)
      for (let ch = 0; ch < 3; ch++) {
        let sum = 0;
        for (let k = 1; k <= band; k++) sum += sample(i, k, ch);
        raw[i * 3 + ch] = sum / band;
      }
    const out = new Float32Array(len * 3);
    const r = Math.max(1, Math.round(len * 0.03));
    for (let i = 0; i < len; i++)
      for (let ch = 0; ch < 3; ch++) {
        let sum = 0;
        let n = 0;
        for (let j = Math.max(0, i - r); j <= Math.min(len - 1, i + r); j++) {
          sum += raw[j * 3 + ch]!;
          n++;
        }
        out[i * 3 + ch] = sum / n;
      }
    return out;
  };
  const left = border(h, (i, k, ch) => at(x - k, y + i, ch));
  const right = border(h, (i, k, ch) => at(x + w - 1 + k, y + i, ch));
  const top = border(w, (i, k, ch) => at(x + i, y - k, ch));
  const bottom = border(w, (i, k, ch) => at(x + i, y + h - 1 + k, ch));
  // Grain: how much the wall beside the box departs from its own smooth shading, row by row.
  let grainSum = 0;
  let grainN = 0;
  for (let i = 0; i < h; i++)
    for (let k = 1; k <= Math.min(12, x); k++) {
      const d = at(x - k, y + i, 1) - left[i * 3 + 1]!;
      grainSum += d * d;
      grainN++;
    }
  const grain = Math.min(6, Math.sqrt(grainSum / Math.max(1, grainN)));
  const noise = new Float32Array(w * h);
  for (let i = 0; i < noise.length; i++) noise[i] = (rng() - 0.5) * 2 * grain;
  const softNoise = blurMask(noise, w, h, 1);
  const fade = Math.max(2, Math.round(pad * 0.8));
  for (let r = -fade; r < h + fade; r++) {
    for (let c = -fade; c < w + fade; c++) {
      const px = x + c;
      const py = y + r;
      if (px < 0 || py < 0 || px >= W || py >= H) continue;
      const dx = c < 0 ? -c : c >= w ? c - w + 1 : 0;
      const dy = r < 0 ? -r : r >= h ? r - h + 1 : 0;
      const alpha = dx || dy ? 1 - smoothstep(Math.max(dx, dy) / fade) : 1;
      if (alpha <= 0) continue;
      const rr = Math.max(0, Math.min(h - 1, r));
      const cc = Math.max(0, Math.min(w - 1, c));
      const u = w > 1 ? cc / (w - 1) : 0.5;
      const v = h > 1 ? rr / (h - 1) : 0.5;
      const o = (py * W + px) * 3;
      for (let ch = 0; ch < 3; ch++) {
        const L = left[rr * 3 + ch]!;
        const R = right[rr * 3 + ch]!;
        const T = top[cc * 3 + ch]!;
        const B = bottom[cc * 3 + ch]!;
        const c00 = (top[ch]! + left[ch]!) / 2;
        const c10 = (top[(w - 1) * 3 + ch]! + right[ch]!) / 2;
        const c01 = (bottom[ch]! + left[(h - 1) * 3 + ch]!) / 2;
        const c11 = (bottom[(w - 1) * 3 + ch]! + right[(h - 1) * 3 + ch]!) / 2;
        const value =
          (1 - u) * L +
          u * R +
          (1 - v) * T +
          v * B -
          ((1 - u) * (1 - v) * c00 + u * (1 - v) * c10 + (1 - u) * v * c01 + u * v * c11) +
          softNoise[rr * w + cc]!;
        img.data[o + ch] = (1 - alpha) * src.data[o + ch]! + alpha * value;
      }
    }
  }
  return [x, y, w, h];
}

/**
 * Below this mean grey a photo is underexposed (the low-light enhancers' inputs measure 32–70, every ordinary room
 * photo of the set 109 or more). It gives no cuts and takes no pasted ones: a retoucher would not set a near-black
 * curtain or picture from it into a lit room, nor a lit one into it, without matching their exposure first.
 */
const UNDEREXPOSED = 90;
const underexposed = (img: Img) => meanLightness(img) < UNDEREXPOSED;

/** Mean lightness of a picture (0–255): a daylit window is bright, a window onto a dark room is not. */
function meanLightness(img: Img): number {
  let sum = 0;
  for (let i = 0; i < img.data.length; i += 3)
    sum += 0.299 * img.data[i]! + 0.587 * img.data[i + 1]! + 0.114 * img.data[i + 2]!;
  return sum / Math.max(1, img.data.length / 3);
}

/** Standard deviation of lightness inside `box`: low on a plain wall, high across furniture, frames or edges. */
function busyness(img: Img, [x, y, w, h]: Box): number {
  let sum = 0;
  let sq = 0;
  let n = 0;
  for (let py = y; py < y + h; py += 2)
    for (let px = x; px < x + w; px += 2) {
      const o = (py * img.width + px) * 3;
      const l = 0.299 * img.data[o]! + 0.587 * img.data[o + 1]! + 0.114 * img.data[o + 2]!;
      sum += l;
      sq += l * l;
      n++;
    }
  return n ? Math.sqrt(Math.max(0, sq / n - (sum / n) ** 2)) : 0;
}

/**
 * The first of `candidates` (top-left corners of a w×h box) that lies inside the picture, clear of `avoid`, and on a
 * surface as plain as the photo's plain-wall samples (an opening pasted there covers wall, not furniture).
 */
function plainSpot(img: Img, w: number, h: number, candidates: Array<[number, number]>, avoid: Box[], limit: number) {
  for (const [x, y] of candidates) {
    const b: Box = [Math.round(x), Math.round(y), Math.round(w), Math.round(h)];
    if (b[0] < 2 || b[1] < 2 || b[0] + b[2] > img.width - 2 || b[1] + b[3] > img.height - 2) continue;
    if (avoid.some((a) => overlaps(grow(a, 3), b))) continue;
    if (busyness(img, grow(b, 2)) <= limit) return b;
  }
  return null;
}

/** Alpha-composites a 4-channel cutout at (x, y), clipped to the picture. */
function composite(img: Img, cut: { data: Float32Array; width: number; height: number }, x: number, y: number) {
  const { width: W, height: H } = img;
  for (let r = 0; r < cut.height; r++) {
    const py = y + r;
    if (py < 0 || py >= H) continue;
    for (let c = 0; c < cut.width; c++) {
      const px = x + c;
      if (px < 0 || px >= W) continue;
      const s = (r * cut.width + c) * 4;
      const a = cut.data[s + 3]!;
      if (a <= 0) continue;
      const o = (py * W + px) * 3;
      for (let ch = 0; ch < 3; ch++) img.data[o + ch] = (1 - a) * img.data[o + ch]! + a * cut.data[s + ch]!;
    }
  }
}

/** A soft dark ellipse (a contact or drop shadow) multiplied into the picture. */
function shadow(img: Img, cx: number, cy: number, rx: number, ry: number, strength: number) {
  const { width: W, height: H } = img;
  for (let py = Math.max(0, Math.floor(cy - ry)); py < Math.min(H, Math.ceil(cy + ry)); py++) {
    for (let px = Math.max(0, Math.floor(cx - rx)); px < Math.min(W, Math.ceil(cx + rx)); px++) {
      const d = ((px - cx) / rx) ** 2 + ((py - cy) / ry) ** 2;
      if (d >= 1) continue;
      const k = 1 - strength * (1 - smoothstep(d));
      const o = (py * W + px) * 3;
      for (let ch = 0; ch < 3; ch++) img.data[o + ch] = img.data[o + ch]! * k;
    }
  }
}

/** Makes an opaque 4-channel cutout from a 3-channel crop, with feathered edges (and an ellipse mask if round). */
function opaqueCut(img: Img, kind: string, source: string, round = false, feather = 1.5): Cut {
  const { width: w, height: h } = img;
  const data = new Float32Array(w * h * 4);
  for (let r = 0; r < h; r++) {
    for (let c = 0; c < w; c++) {
      let a: number;
      if (round) {
        const d = Math.sqrt(((c + 0.5 - w / 2) / (w / 2)) ** 2 + ((r + 0.5 - h / 2) / (h / 2)) ** 2);
        a = Math.max(0, Math.min(1, ((1 - d) * Math.min(w, h)) / 2 / feather));
      } else {
        const edge = Math.min(c + 0.5, r + 0.5, w - c - 0.5, h - r - 0.5);
        a = Math.min(1, edge / feather);
      }
      const s = (r * w + c) * 3;
      const o = (r * w + c) * 4;
      data[o] = img.data[s]!;
      data[o + 1] = img.data[s + 1]!;
      data[o + 2] = img.data[s + 2]!;
      data[o + 3] = a;
    }
  }
  return { data, width: w, height: h, kind, source };
}

// --- colour ---------------------------------------------------------------------------------------------------------

const LINEAR = Array.from({ length: 256 }, (_, i) => {
  const c = i / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});
const toLinear = (v: number) => {
  const i = Math.max(0, Math.min(255, Math.round(v)));
  return LINEAR[i]!;
};
const fromLinear = (c: number) => {
  const v = c <= 0.0031308 ? 12.92 * c : 1.055 * Math.max(0, c) ** (1 / 2.4) - 0.055;
  return v * 255;
};
const labF = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
const labFInv = (t: number) => (t > 0.206893 ? t * t * t : (t - 16 / 116) / 7.787);

function rgbToLab(r: number, g: number, b: number): [number, number, number] {
  const R = toLinear(r);
  const G = toLinear(g);
  const B = toLinear(b);
  const X = (0.4124 * R + 0.3576 * G + 0.1805 * B) / 0.95047;
  const Y = 0.2126 * R + 0.7152 * G + 0.0722 * B;
  const Z = (0.0193 * R + 0.1192 * G + 0.9505 * B) / 1.08883;
  const fx = labF(X);
  const fy = labF(Y);
  const fz = labF(Z);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

function labToRgb(L: number, a: number, b: number): [number, number, number] {
  const fy = (L + 16) / 116;
  const X = labFInv(fy + a / 500) * 0.95047;
  const Y = labFInv(fy);
  const Z = labFInv(fy - b / 200) * 1.08883;
  const R = 3.2406 * X - 1.5372 * Y - 0.4986 * Z;
  const G = -0.9689 * X + 1.8758 * Y + 0.0415 * Z;
  const B = 0.0557 * X - 0.204 * Y + 1.057 * Z;
  return [fromLinear(R), fromLinear(G), fromLinear(B)];
}

/**
 * The whole surface that the sample boxes belong to: pixels grown out from the samples (on a slightly blurred copy,
 * so grain and JPEG noise do not stop the growth) while their colour stays close to the samples' (lightness counts
 * less than hue, so the surface's shading is taken in) and no edge is crossed (an edge is where the surface ends:
 * a sofa, a frame, a corner). Kept out of `exclude` (openings, built-ins) and inside `band` (rows the surface can
 * reach); enclosed holes (a picture, a switch) are filled, and the edge is softened.
 */
function surfaceMask(
  img: Img,
  seeds: Box[],
  exclude: Box[],
  tolerance: number,
  band: [number, number],
  rivals: Box[][] = [],
): Float32Array | null {
  const { width: W, height: H } = img;
  const n = W * H;
  const planes = [new Float32Array(n), new Float32Array(n), new Float32Array(n)];
  for (let i = 0; i < n; i++) {
    const lab = rgbToLab(img.data[i * 3]!, img.data[i * 3 + 1]!, img.data[i * 3 + 2]!);
    for (let k = 0; k < 3; k++) planes[k]![i] = lab[k]!;
  }
  const radius = Math.max(1, Math.round(Math.max(W, H) / 400));
  const [L, A, B] = planes.map((p) => blurMask(p, W, H, radius)) as [Float32Array, Float32Array, Float32Array];
  // Edge strength: the largest lightness or colour step to a neighbour two pixels away.
  const edge = new Float32Array(n);
  for (let y = 2; y < H - 2; y++)
    for (let x = 2; x < W - 2; x++) {
      const i = y * W + x;
      let e = 0;
      for (const j of [i - 2, i + 2, i - 2 * W, i + 2 * W]) {
        const d = Math.abs(L[i]! - L[j]!) + 1.5 * (Math.abs(A[i]! - A[j]!) + Math.abs(B[i]! - B[j]!));
        if (d > e) e = d;
      }
      edge[i] = e;
    }
  const meanOf = (boxes: Box[]) => {
    let count = 0;
    const m = [0, 0, 0];
    for (const s of boxes) {
      const [x, y, w, h] = clampBox(s, W, H);
      for (let py = y; py < y + h; py++)
        for (let px = x; px < x + w; px++) {
          const i = py * W + px;
          m[0]! += L[i]!;
          m[1]! += A[i]!;
          m[2]! += B[i]!;
          count++;
        }
    }
    return count ? m.map((v) => v / count) : null;
  };
  const mean = meanOf(seeds);
  if (!mean) return null;
  // Other surfaces of the room (the walls, when this is the floor): a pixel nearer to one of them in colour is theirs.
  const rivalMeans = rivals.map(meanOf).filter((m): m is number[] => m !== null);
  const blocked = new Uint8Array(n);
  for (const e of exclude) {
    const [x, y, w, h] = clampBox(e, W, H);
    for (let py = y; py < y + h; py++) blocked.fill(1, py * W + x, py * W + x + w);
  }
  for (let y = 0; y < H; y++) if (y < band[0] || y > band[1]) blocked.fill(1, y * W, (y + 1) * W);
  const distance = (i: number, m: number[]) => {
    const dL = (L[i]! - m[0]!) * 0.45;
    const da = A[i]! - m[1]!;
    const db = B[i]! - m[2]!;
    return Math.sqrt(dL * dL + da * da + db * db);
  };
  const near = (i: number) => {
    const own = distance(i, mean);
    return own < tolerance && rivalMeans.every((m) => distance(i, m) > own);
  };
  const inMask = new Uint8Array(n);
  const queue = new Int32Array(n);
  let head = 0;
  let tail = 0;
  for (const s of seeds) {
    const [x, y, w, h] = clampBox(s, W, H);
    for (let py = y; py < y + h; py++)
      for (let px = x; px < x + w; px++) {
        const i = py * W + px;
        if (!inMask[i] && !blocked[i]) {
          inMask[i] = 1;
          queue[tail++] = i;
        }
      }
  }
  while (head < tail) {
    const i = queue[head++]!;
    const px = i % W;
    const py = (i - px) / W;
    const neighbours = [px > 0 ? i - 1 : -1, px < W - 1 ? i + 1 : -1, py > 0 ? i - W : -1, py < H - 1 ? i + W : -1];
    for (const j of neighbours) {
      if (j < 0 || inMask[j] || blocked[j]) continue;
      if (edge[j]! < 6 && near(j)) {
        inMask[j] = 1;
        queue[tail++] = j;
      }
    }
  }
  // Fill enclosed holes: parts of the rest that do not reach the picture's border and are small.
  const seen = new Uint8Array(n);
  for (let start = 0; start < n; start++) {
    if (inMask[start] || seen[start]) continue;
    head = 0;
    tail = 0;
    queue[tail++] = start;
    seen[start] = 1;
    let touches = false;
    while (head < tail) {
      const i = queue[head++]!;
      const px = i % W;
      const py = (i - px) / W;
      if (px === 0 || py === 0 || px === W - 1 || py === H - 1) touches = true;
      for (const j of [px > 0 ? i - 1 : -1, px < W - 1 ? i + 1 : -1, py > 0 ? i - W : -1, py < H - 1 ? i + W : -1]) {
        if (j < 0 || inMask[j] || seen[j]) continue;
        seen[j] = 1;
        queue[tail++] = j;
      }
    }
    if (!touches && tail < 0.03 * n) for (let k = 0; k < tail; k++) if (!blocked[queue[k]!]) inMask[queue[k]!] = 1;
  }
  // Close the gaps that grain and glare leave (a dilation then an erosion, both as a blur and a threshold).
  const close = Math.max(2, Math.round(Math.max(W, H) / 120));
  let soft = blurMask(Float32Array.from(inMask), W, H, close);
  for (let i = 0; i < n; i++) soft[i] = soft[i]! > 0.3 && !blocked[i] ? 1 : 0;
  soft = blurMask(soft, W, H, close);
  for (let i = 0; i < n; i++) soft[i] = soft[i]! > 0.7 || inMask[i] ? 1 : 0;
  for (const e of exclude) {
    const [x, y, w, h] = clampBox(e, W, H);
    for (let py = y; py < y + h; py++) soft.fill(0, py * W + x, py * W + x + w);
  }
  return blurMask(soft, W, H, 1);
}

function blurMask(mask: Float32Array, W: number, H: number, radius: number): Float32Array {
  const tmp = new Float32Array(mask.length);
  const out = new Float32Array(mask.length);
  for (let y = 0; y < H; y++) {
    let acc = 0;
    for (let x = -radius; x <= radius; x++) acc += mask[y * W + Math.max(0, Math.min(W - 1, x))]!;
    for (let x = 0; x < W; x++) {
      tmp[y * W + x] = acc / (2 * radius + 1);
      acc += mask[y * W + Math.min(W - 1, x + radius + 1)]! - mask[y * W + Math.max(0, x - radius)]!;
    }
  }
  for (let x = 0; x < W; x++) {
    let acc = 0;
    for (let y = -radius; y <= radius; y++) acc += tmp[Math.max(0, Math.min(H - 1, y)) * W + x]!;
    for (let y = 0; y < H; y++) {
      out[y * W + x] = acc / (2 * radius + 1);
      acc += tmp[Math.min(H - 1, y + radius + 1) * W + x]! - tmp[Math.max(0, y - radius) * W + x]!;
    }
  }
  return out;
}

function maskBox(mask: Float32Array, W: number, H: number): Box | null {
  let x0 = W;
  let y0 = H;
  let x1 = -1;
  let y1 = -1;
  let area = 0;
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++)
      if (mask[y * W + x]! > 0.5) {
        area++;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
  return x1 < 0 || area < 0.01 * W * H ? null : [x0, y0, x1 - x0 + 1, y1 - y0 + 1];
}

/** Paint colours (Lab a, b and a lightness factor) a repaint may pick: clearly another colour, realistic paints. */
const PAINTS = [
  { name: 'sage', a: -14, b: 16, l: 0.95 },
  { name: 'terracotta', a: 26, b: 30, l: 0.85 },
  { name: 'navy', a: 4, b: -30, l: 0.62 },
  { name: 'mustard', a: 6, b: 48, l: 0.92 },
  { name: 'dusty-pink', a: 20, b: 9, l: 0.95 },
  { name: 'teal', a: -24, b: -10, l: 0.8 },
  { name: 'charcoal', a: 0, b: -2, l: 0.5 },
] as const;
const STAINS = [
  { name: 'grey-wash', a: 0, b: 2, l: 0.95 },
  { name: 'dark-walnut', a: 9, b: 18, l: 0.55 },
  { name: 'whitewash', a: 1, b: 6, l: 1.35 },
  { name: 'green-tile', a: -20, b: 8, l: 0.85 },
] as const;

/**
 * How much a surface really changed: the mean colour difference (CIE76 ΔE, on a sparse grid) between the two pictures
 * over the mask. A repaint or a new material that a person would not see as one is not an edit worth labelling.
 */
function surfaceChange(before: Img, after: Img, mask: Float32Array): number {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < mask.length; i += 7) {
    if (mask[i]! < 0.9) continue;
    const [L1, a1, b1] = rgbToLab(before.data[i * 3]!, before.data[i * 3 + 1]!, before.data[i * 3 + 2]!);
    const [L2, a2, b2] = rgbToLab(after.data[i * 3]!, after.data[i * 3 + 1]!, after.data[i * 3 + 2]!);
    sum += Math.sqrt((L1 - L2) ** 2 + (a1 - a2) ** 2 + (b1 - b2) ** 2);
    n++;
  }
  return n ? sum / n : 0;
}

/** Repaints the masked surface: its lightness (so shading and texture) kept, its colour replaced. */
function repaint(img: Img, mask: Float32Array, paint: { a: number; b: number; l: number }) {
  const n = img.width * img.height;
  let aa = 0;
  let ba = 0;
  let wsum = 0;
  for (let i = 0; i < n; i++) {
    const m = mask[i]!;
    if (m <= 0.5) continue;
    const [, a, b] = rgbToLab(img.data[i * 3]!, img.data[i * 3 + 1]!, img.data[i * 3 + 2]!);
    aa += a;
    ba += b;
    wsum++;
  }
  if (!wsum) return;
  aa /= wsum;
  ba /= wsum;
  for (let i = 0; i < n; i++) {
    const m = mask[i]!;
    if (m <= 0) continue;
    const [L, a, b] = rgbToLab(img.data[i * 3]!, img.data[i * 3 + 1]!, img.data[i * 3 + 2]!);
    const nL = Math.min(98, L * paint.l);
    const na = paint.a + (a - aa) * 0.5;
    const nb = paint.b + (b - ba) * 0.5;
    const [r, g, bl] = labToRgb(nL, na, nb);
    img.data[i * 3] = (1 - m) * img.data[i * 3]! + m * r;
    img.data[i * 3 + 1] = (1 - m) * img.data[i * 3 + 1]! + m * g;
    img.data[i * 3 + 2] = (1 - m) * img.data[i * 3 + 2]! + m * bl;
  }
}

/** Lays another material over the masked surface: the texture tiled (mirrored), lit by the surface's own shading. */
function retexture(img: Img, mask: Float32Array, texture: Img) {
  const { width: W, height: H } = img;
  const n = W * H;
  const lum = (d: Float32Array, i: number) => 0.299 * d[i * 3]! + 0.587 * d[i * 3 + 1]! + 0.114 * d[i * 3 + 2]!;
  let mean = 0;
  let count = 0;
  for (let i = 0; i < n; i++)
    if (mask[i]! > 0.5) {
      mean += lum(img.data, i);
      count++;
    }
  if (!count) return;
  mean /= count;
  let tmean = 0;
  for (let i = 0; i < texture.width * texture.height; i++) tmean += lum(texture.data, i);
  tmean /= texture.width * texture.height;
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const m = mask[i]!;
      if (m <= 0) continue;
      const shade = Math.min(1.6, lum(img.data, i) / Math.max(1, mean));
      const t = (mirror(y, texture.height) * texture.width + mirror(x, texture.width)) * 3;
      const gain = (shade * mean) / Math.max(1, tmean);
      for (let ch = 0; ch < 3; ch++)
        img.data[i * 3 + ch] = (1 - m) * img.data[i * 3 + ch]! + m * Math.min(255, texture.data[t + ch]! * gain);
    }
}

/**
 * Moves the corner (or column) line inside `box` sideways by `shift` pixels: a smooth horizontal warp that is
 * strongest at the box's centre line and fades to nothing at its sides and just beyond its top and bottom, so the
 * picture stays continuous and only the line's position changes.
 */
function shiftLine(img: Img, box: Box, shift: number) {
  const { width: W, height: H } = img;
  const src = clone(img);
  const [bx, by, bw, bh] = box;
  const cx = bx + bw / 2;
  const half = bw / 2 + Math.abs(shift);
  const ramp = Math.max(4, Math.round(bh * 0.08));
  for (let y = Math.max(0, by - ramp); y < Math.min(H, by + bh + ramp); y++) {
    const wy = y < by ? smoothstep(1 - (by - y) / ramp) : y >= by + bh ? smoothstep(1 - (y - by - bh + 1) / ramp) : 1;
    for (let x = Math.max(0, Math.floor(cx - half)); x < Math.min(W, Math.ceil(cx + half)); x++) {
      const wx = smoothstep(1 - Math.abs(x - cx) / half);
      const sx = x - shift * wx * wy;
      const x0 = Math.max(0, Math.min(W - 1, Math.floor(sx)));
      const x1 = Math.min(W - 1, x0 + 1);
      const f = Math.max(0, Math.min(1, sx - x0));
      const o = (y * W + x) * 3;
      for (let ch = 0; ch < 3; ch++)
        img.data[o + ch] = (1 - f) * src.data[(y * W + x0) * 3 + ch]! + f * src.data[(y * W + x1) * 3 + ch]!;
    }
  }
}

/**
 * Slides the block `core` (a door with its frame) sideways by `shift` pixels along its wall: the block moves whole,
 * the wall either side of it is squeezed on one side and stretched on the other within `margin` pixels, and the
 * rows above it fade back to unmoved over a short ramp (the floor below does not move). Returns the region changed.
 */
function shiftBlock(img: Img, core: Box, shift: number, margin: number): Box {
  const { width: W, height: H } = img;
  const src = clone(img);
  const [cx, cy, cw, ch] = core;
  const lo = cx + Math.min(0, shift);
  const hi = cx + cw + Math.max(0, shift);
  const left = Math.max(0, Math.floor(lo - margin));
  const right = Math.min(W, Math.ceil(hi + margin));
  const ramp = Math.max(3, Math.round(ch * 0.06));
  const top = Math.max(0, cy - ramp);
  const bottom = Math.min(H, cy + ch);
  for (let y = top; y < bottom; y++) {
    const wy = y < cy ? smoothstep(1 - (cy - y) / ramp) : 1;
    for (let x = left; x < right; x++) {
      const wx =
        x < lo
          ? smoothstep((x - left) / Math.max(1, lo - left))
          : x >= hi
            ? smoothstep((right - 1 - x) / Math.max(1, right - 1 - hi))
            : 1;
      const sx = x - shift * wx * wy;
      const x0 = Math.max(0, Math.min(W - 1, Math.floor(sx)));
      const x1 = Math.min(W - 1, x0 + 1);
      const f = Math.max(0, Math.min(1, sx - x0));
      const o = (y * W + x) * 3;
      for (let c = 0; c < 3; c++)
        img.data[o + c] = (1 - f) * src.data[(y * W + x0) * 3 + c]! + f * src.data[(y * W + x1) * 3 + c]!;
    }
  }
  return [left, top, right - left, bottom - top];
}

// --- cutouts from the honest real stagings --------------------------------------------------------------------------

/**
 * Cuts what an honest staging added: inside `box`, the pixels where the staged picture differs from its photo
 * (after matching the two pictures' overall tone), cleaned of specks and holes, taken from `from` with a soft edge.
 */
function diffCut(
  before: Img,
  after: Img,
  box: Box,
  from: 'before' | 'after',
  kind: string,
  source: string,
): Cut | null {
  if (before.width !== after.width || before.height !== after.height) return null;
  const { width: W, height: H } = before;
  const [x, y, w, h] = clampBox(box, W, H);
  const gains = [0, 1, 2].map((ch) => {
    let sb = 0;
    let sa = 0;
    for (let i = ch; i < before.data.length; i += 3) {
      sb += before.data[i]!;
      sa += after.data[i]!;
    }
    return sb / Math.max(1, sa);
  });
  const diff = new Float32Array(w * h);
  for (let r = 0; r < h; r++)
    for (let c = 0; c < w; c++) {
      const o = ((y + r) * W + (x + c)) * 3;
      let d = 0;
      for (let ch = 0; ch < 3; ch++) d = Math.max(d, Math.abs(before.data[o + ch]! - after.data[o + ch]! * gains[ch]!));
      diff[r * w + c] = d;
    }
  const smooth = blurMask(diff, w, h, 2);
  const mask = new Float32Array(w * h);
  for (let i = 0; i < mask.length; i++) mask[i] = smooth[i]! > 22 ? 1 : 0;
  // Close holes inside the object, then drop specks: dilate-erode with box blurs.
  let closed = blurMask(mask, w, h, 4);
  for (let i = 0; i < closed.length; i++) closed[i] = closed[i]! > 0.15 ? 1 : 0;
  closed = blurMask(closed, w, h, 4);
  for (let i = 0; i < closed.length; i++) closed[i] = closed[i]! > 0.85 ? 1 : 0;
  const alpha = blurMask(closed, w, h, 1);
  let area = 0;
  for (const a of alpha) area += a;
  if (area < 0.08 * w * h) return null;
  return cutOf(from === 'after' ? after : before, [x, y, w, h], alpha, kind, source);
}

/**
 * Cuts what is inside `outline` (polygons drawn by hand around each piece, in `pic`'s pixels) with a soft edge: for a
 * tool that re-rendered the floor or wall around what it added or removed, where the difference would keep patches
 * of that floor or wall.
 */
function outlineCut(pic: Img, outline: Array<Array<[number, number]>>, kind: string, source: string): Cut {
  const { width: W, height: H } = pic;
  const inside = (polygon: Array<[number, number]>, x: number, y: number) => {
    let odd = false;
    for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
      const [xi, yi] = polygon[i]!;
      const [xj, yj] = polygon[j]!;
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) odd = !odd;
    }
    return odd;
  };
  // Only the outline's own bounds are looked at, with a margin for the soft edge.
  const xs = outline.flat().map(([x]) => x);
  const ys = outline.flat().map(([, y]) => y);
  const left = Math.floor(Math.min(...xs));
  const top = Math.floor(Math.min(...ys));
  const [x0, y0, w, h] = clampBox(
    grow([left, top, Math.ceil(Math.max(...xs)) - left, Math.ceil(Math.max(...ys)) - top], 2),
    W,
    H,
  );
  const mask = new Float32Array(w * h);
  for (let r = 0; r < h; r++)
    for (let c = 0; c < w; c++)
      if (outline.some((polygon) => inside(polygon, x0 + c + 0.5, y0 + r + 0.5))) mask[r * w + c] = 1;
  return cutOf(pic, [x0, y0, w, h], blurMask(mask, w, h, 1), kind, source);
}

/** The cutout of `pic`'s pixels in `box` with the alpha `alpha` (one value per pixel of the box), cropped to what shows. */
function cutOf(pic: Img, [x, y, w, h]: Box, alpha: Float32Array, kind: string, source: string): Cut {
  const data = new Float32Array(w * h * 4);
  for (let r = 0; r < h; r++)
    for (let c = 0; c < w; c++) {
      const from = ((y + r) * pic.width + (x + c)) * 3;
      const to = (r * w + c) * 4;
      data[to] = pic.data[from]!;
      data[to + 1] = pic.data[from + 1]!;
      data[to + 2] = pic.data[from + 2]!;
      data[to + 3] = alpha[r * w + c]!;
    }
  return trimCut({ data, width: w, height: h, kind, source });
}

/** Crops a cutout to its visible pixels. */
function trimCut(cut: Cut): Cut {
  let x0 = cut.width;
  let y0 = cut.height;
  let x1 = -1;
  let y1 = -1;
  for (let r = 0; r < cut.height; r++)
    for (let c = 0; c < cut.width; c++)
      if (cut.data[(r * cut.width + c) * 4 + 3]! > 0.05) {
        x0 = Math.min(x0, c);
        x1 = Math.max(x1, c);
        y0 = Math.min(y0, r);
        y1 = Math.max(y1, r);
      }
  if (x1 < 0) return cut;
  const w = x1 - x0 + 1;
  const h = y1 - y0 + 1;
  const data = new Float32Array(w * h * 4);
  for (let r = 0; r < h; r++) {
    const from = ((y0 + r) * cut.width + x0) * 4;
    data.set(cut.data.subarray(from, from + w * 4), r * w * 4);
  }
  return { ...cut, data, width: w, height: h };
}

async function scaledCut(cut: Cut, height: number): Promise<Cut> {
  const scale = height / cut.height;
  const r = await resizeFloat(cut.data, cut.width, cut.height, 4, cut.width * scale, cut.height * scale);
  return { ...cut, ...r };
}

/** Where `cut` may stand on the floor of `photo`: the bottom centre inside a floor sample, not over an opening. */
function floorSpot(photo: Photo, W: number, H: number, rng: () => number) {
  const floors = photo.floor.filter((b) => b[2] >= 8 && b[3] >= 6);
  if (!floors.length) return null;
  const f = pick(rng, floors);
  const bx = f[0] + between(rng, 0.2, 0.8) * f[2];
  const by = f[1] + between(rng, 0.55, 1) * f[3];
  return { x: Math.min(W - 2, bx), y: Math.min(H - 1, by) };
}

// --- tone ---------------------------------------------------------------------------------------------------------

/** Tone-only edits per photo: exposure and contrast, white balance, gamma and sharpening, brightness and saturation, HDR-like. */
const TONE_KINDS = 5;

/**
 * A tone-only variant: exposure, contrast, white balance, gamma, sharpening, HDR-like local contrast, and maybe a
 * slight crop or zoom.
 */
async function toneEdit(file: string, out: string, rng: () => number, variant: number): Promise<string> {
  const meta = await sharp(file).metadata();
  const W = meta.width ?? 0;
  const H = meta.height ?? 0;
  let pipeline = sharp(file).rotate();
  const steps: string[] = [];
  const kind = variant % TONE_KINDS;
  if (kind === 0) {
    const gain = between(rng, 0.75, 1.3);
    const contrast = between(rng, 0.85, 1.2);
    pipeline = pipeline.linear(gain * contrast, 128 * (1 - contrast) * gain);
    steps.push(`exposure ×${gain.toFixed(2)}, contrast ×${contrast.toFixed(2)}`);
  } else if (kind === 1) {
    const warm = between(rng, -0.12, 0.12);
    pipeline = pipeline.recomb([
      [1 + warm, 0, 0],
      [0, 1 + warm * 0.2, 0],
      [0, 0, 1 - warm],
    ]);
    steps.push(`white balance ${warm > 0 ? 'warmer' : 'cooler'} ${Math.abs(warm * 100).toFixed(0)}%`);
  } else if (kind === 2) {
    const gamma = between(rng, 1.4, 2.8);
    pipeline = pipeline.gamma(gamma, 2.2).sharpen({ sigma: between(rng, 0.8, 1.6) });
    steps.push(`gamma ${gamma.toFixed(2)}/2.2, sharpened`);
  } else if (kind === 3) {
    const brightness = between(rng, 0.85, 1.2);
    const saturation = between(rng, 0.8, 1.25);
    pipeline = pipeline.modulate({ brightness, saturation });
    steps.push(`brightness ×${brightness.toFixed(2)}, saturation ×${saturation.toFixed(2)}`);
  } else {
    // HDR-like: local contrast brought up tile by tile (CLAHE on the lightness, tiles an eighth of the short side, as
    // real-estate HDR and "enhance" tools do), then sharpened.
    const slope = Math.round(between(rng, 2, 4));
    const tile = Math.max(8, Math.round(Math.min(W, H) / 8));
    pipeline = pipeline
      .clahe({ width: tile, height: tile, maxSlope: slope })
      .sharpen({ sigma: between(rng, 0.6, 1.2) });
    steps.push(`HDR-like local contrast (CLAHE, slope ${slope}), sharpened`);
  }
  // Half the variants are also reframed the way real tools return them: a few percent cropped or zoomed, sometimes
  // in another aspect ratio or size.
  if (rng() < 0.5 && W > 60 && H > 60) {
    const cx = Math.round(W * between(rng, 0, 0.05));
    const cy = Math.round(H * between(rng, 0, 0.05));
    const cw = W - cx - Math.round(W * between(rng, 0, 0.05));
    const ch = H - cy - Math.round(H * between(rng, 0, 0.05));
    pipeline = sharp(await pipeline.jpeg({ quality: 95 }).toBuffer()).extract({
      left: cx,
      top: cy,
      width: cw,
      height: ch,
    });
    const zoomBack = rng() < 0.5;
    if (zoomBack) pipeline = pipeline.resize(W, H, { fit: 'fill' });
    steps.push(zoomBack ? `cropped ${cw}×${ch} and zoomed back to ${W}×${H}` : `cropped to ${cw}×${ch}`);
  }
  await pipeline.jpeg({ quality: 90 }).toFile(out);
  return steps.join('; ');
}

/** Reframes per photo: levelled, zoomed, verticals corrected, padded to a square. */
const REFRAME_KINDS = 4;

/**
 * The photo only reframed, as real enhancement tools return it, at its own size: variant 0 levels the horizon by
 * 0.2–1° and crops the corners the rotation left empty, 1 zooms by 1–2.5 % a little off centre, 2 corrects
 * converging verticals (a perspective warp that widens the top or the bottom row by 1–4 %), 3 pads the photo with
 * black or white bars to a square of 768 or 1024 pixels (as tools that work on squares return it). Writes `out`.
 */
async function reframeEdit(file: string, out: string, rng: () => number, variant: number): Promise<string> {
  const { data, info } = await sharp(file).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const W = info.width;
  const H = info.height;
  const kind = variant % REFRAME_KINDS;
  if (kind === 0) {
    const degrees = (rng() < 0.5 ? -1 : 1) * between(rng, 0.2, 1);
    const t = (Math.abs(degrees) * Math.PI) / 180;
    const keep = Math.min((W * Math.cos(t) - H * Math.sin(t)) / W, (H * Math.cos(t) - W * Math.sin(t)) / H);
    const turned = await sharp(data, { raw: info }).rotate(degrees).toBuffer({ resolveWithObject: true });
    const w = Math.floor(W * keep);
    const h = Math.floor(H * keep);
    await sharp(turned.data, { raw: turned.info })
      .extract({
        left: Math.floor((turned.info.width - w) / 2),
        top: Math.floor((turned.info.height - h) / 2),
        width: w,
        height: h,
      })
      .resize(W, H, { fit: 'fill' })
      .jpeg({ quality: 90 })
      .toFile(out);
    return `levelled by ${degrees.toFixed(2)}°, cropped and zoomed back`;
  }
  if (kind === 1) {
    const zoom = between(rng, 1.01, 1.025);
    const w = Math.round(W / zoom);
    const h = Math.round(H / zoom);
    const left = Math.round((W - w) * between(rng, 0.3, 0.7));
    const top = Math.round((H - h) * between(rng, 0.3, 0.7));
    await sharp(data, { raw: info })
      .extract({ left, top, width: w, height: h })
      .resize(W, H, { fit: 'fill' })
      .jpeg({ quality: 90 })
      .toFile(out);
    return `zoomed ×${zoom.toFixed(3)}`;
  }
  if (kind === 3) {
    const side = rng() < 0.5 ? 768 : 1024;
    const background = rng() < 0.5 ? '#000' : '#fff';
    await sharp(data, { raw: info })
      .resize(side, side, { fit: 'contain', background })
      .jpeg({ quality: 90 })
      .toFile(out);
    return `padded to ${side}×${side} with ${background === '#000' ? 'black' : 'white'} bars`;
  }
  // Variant 2: each row is widened about the middle by a share that falls linearly from `k` at one end to 0 at the
  // other, sampled bilinearly: the output's columns stay inside the photo, so nothing needs cropping.
  const k = between(rng, 0.01, 0.04);
  const topWidened = rng() < 0.5;
  const channels = info.channels;
  const warped = Buffer.alloc(data.length);
  for (let y = 0; y < H; y++) {
    const scale = 1 + k * (topWidened ? 1 - y / (H - 1) : y / (H - 1));
    for (let x = 0; x < W; x++) {
      const sx = (W - 1) / 2 + (x - (W - 1) / 2) / scale;
      const x0 = Math.floor(sx);
      const x1 = Math.min(W - 1, x0 + 1);
      const f = sx - x0;
      for (let c = 0; c < channels; c++)
        warped[(y * W + x) * channels + c] = Math.round(
          (1 - f) * (data[(y * W + x0) * channels + c] as number) + f * (data[(y * W + x1) * channels + c] as number),
        );
    }
  }
  await sharp(warped, { raw: info }).jpeg({ quality: 90 }).toFile(out);
  return `verticals corrected (${topWidened ? 'top' : 'bottom'} row widened ${(k * 100).toFixed(1)} %)`;
}

// --- the edits ------------------------------------------------------------------------------------------------------

export async function makeRealEdits(setDir: string, outDir: string, seed = 1): Promise<RealEdit[]> {
  const manifest = JSON.parse(await readFile(path.join(setDir, 'manifest.json'), 'utf8')) as Manifest;
  await mkdir(outDir, { recursive: true });
  const photos = manifest.photos;
  const images = new Map<string, Img>();
  const imageOf = async (file: string) => {
    let img = images.get(file);
    if (!img) {
      img = await load(path.join(setDir, file));
      images.set(file, img);
    }
    return img;
  };
  const edits: RealEdit[] = [];
  const add = async (photo: Photo, cls: string, n: number, img: Img, expect?: { kind: string; box: Box }) => {
    const id = `${photo.id}--${cls}-${n}`;
    const after = path.join(outDir, `${id}.jpg`);
    await saveJpeg(img, after);
    const before = path.join(setDir, photo.file);
    edits.push({ id, before, after, class: cls, label: expect ? 'refuse' : 'pass', ...(expect ? { expect } : {}) });
  };
  const visibleWindows = (p: Photo) => p.openings.filter((o) => o.type === 'window' && !o.covered);

  // Sources cut once: real windows, wall decor and curtain panels from the photos; furniture, lamps, plants and
  // decor from the honest stagings.
  const windowCuts: Array<{ from: string; img: Img }> = [];
  const decorCuts: Cut[] = [];
  const curtainCuts: Cut[] = [];
  for (const p of photos) {
    const img = await imageOf(p.file);
    if (underexposed(img)) continue;
    for (const o of visibleWindows(p)) {
      const b = clampBox(o.box, img.width, img.height);
      if (b[2] >= 24 && b[3] >= 24 && b[0] > 0 && b[0] + b[2] < img.width)
        windowCuts.push({ from: p.id, img: crop(img, b) });
    }
    for (const d of p.decor ?? [])
      decorCuts.push(
        d.outline
          ? outlineCut(img, d.outline, 'decor', p.id)
          : opaqueCut(crop(img, clampBox(d.box, img.width, img.height)), 'decor', p.id, d.round),
      );
    for (const c of p.curtains ?? [])
      curtainCuts.push(opaqueCut(crop(img, clampBox(c, img.width, img.height)), 'curtain', p.id, false, 2));
  }
  // Materials to re-texture with: the photos' wall and floor samples that have a texture of their own.
  const materialSamples: Array<{ from: string; surface: 'wall' | 'floor'; img: Img }> = [];
  for (const p of photos) {
    const img = await imageOf(p.file);
    if (underexposed(img)) continue;
    for (const [surface, boxes] of [
      ['wall', p.walls],
      ['floor', p.floor],
    ] as const)
      for (const b0 of boxes) {
        const b = clampBox(b0, img.width, img.height);
        if (b[2] >= 16 && b[3] >= 16 && busyness(img, b) >= 12)
          materialSamples.push({ from: p.id, surface, img: crop(img, b) });
      }
  }
  const furnitureCuts: Cut[] = [];
  const lampPlantCuts: Cut[] = [];
  for (const pair of manifest.pairs) {
    if (pair.label !== 'pass' || !pair.cutouts?.length) continue;
    const before = await imageOf(pair.before);
    const after = await imageOf(pair.after);
    for (const c of pair.cutouts) {
      const cut = c.outline
        ? outlineCut(c.from === 'before' ? before : after, c.outline, c.kind, pair.id)
        : diffCut(before, after, c.box, c.from ?? 'after', c.kind, pair.id);
      if (!cut) continue;
      if (c.kind === 'furniture') furnitureCuts.push(cut);
      else if (c.kind === 'lamp_plant') lampPlantCuts.push(cut);
      else decorCuts.push(cut);
    }
  }

  for (const photo of photos) {
    const base = await imageOf(photo.file);
    const { width: W, height: H } = base;
    const rng = rngFor(seed, photo.id);
    const structure = [...photo.openings.map((o) => o.box), ...photo.builtins];

    // Windows painted over: once as a plasterer's patch spanning the wall around it, once cloned from the wall
    // either side (that keeps panelling or wallpaper running across). Glazed walls have no wall beside them.
    const plainLimit = Math.max(8, ...photo.walls.map((w) => busyness(base, clampBox(w, W, H)) * 1.6 + 4));
    let n = 0;
    for (const o of visibleWindows(photo)) {
      if (o.glazed) continue;
      const b = clampBox(o.box, W, H);
      if (b[2] * b[3] > 0.3 * W * H) continue;
      for (const method of ['patch', 'clone'] as const) {
        const img = clone(base);
        const painted = method === 'patch' ? patchOver(img, b, rng) : paintOver(img, b, rng);
        if (painted) await add(photo, 'window_removed', n++, img, { kind: 'opening_removed', box: painted });
      }
    }

    // A real window from another photo (of an ordinary shape) set into a plain stretch of wall.
    n = 0;
    const walls = photo.walls.map((w) => clampBox(w, W, H)).filter((w) => w[2] >= 12 && w[3] >= 12);
    const taken = [...structure, ...(photo.decor ?? []).map((d) => d.box)];
    const donors = windowCuts.filter(
      (c) =>
        c.from !== photo.id &&
        c.img.width / c.img.height > 0.4 &&
        c.img.width / c.img.height < 1.9 &&
        meanLightness(c.img) > 100,
    );
    for (const wall of walls.slice(0, 3)) {
      if (!donors.length) break;
      const donor = pick(rng, donors);
      const aspect = donor.img.width / donor.img.height;
      const cx = wall[0] + wall[2] / 2;
      const cy = wall[1] + wall[3] / 2;
      let spot: Box | null = null;
      for (const share of [0.3, 0.24, 0.18, 0.13]) {
        const nh = H * share;
        const nw = nh * aspect;
        const offsets = [0, -0.3, 0.3, -0.6, 0.6];
        spot = plainSpot(
          base,
          nw,
          nh,
          offsets.map((k) => [cx - nw / 2 + k * nw, cy - nh / 2] as [number, number]),
          taken,
          plainLimit * 1.5,
        );
        if (spot) break;
      }
      // No plain stretch that large: the window is fitted inside the wall sample itself.
      if (!spot) {
        const fit = Math.min((wall[2] * 0.9) / donor.img.width, (wall[3] * 0.9) / donor.img.height);
        const bigger = clampBox(
          [
            cx - donor.img.width * fit * 0.7,
            cy - donor.img.height * fit * 0.7,
            donor.img.width * fit * 1.4,
            donor.img.height * fit * 1.4,
          ],
          W,
          H,
        );
        const scale = taken.some((t) => overlaps(t, bigger)) ? fit : fit * 1.4;
        const nw = Math.max(12, donor.img.width * scale);
        const nh = Math.max(12, donor.img.height * scale);
        spot = clampBox([cx - nw / 2, cy - nh / 2, nw, nh], W, H);
      }
      const win = await resizeFloat(donor.img.data, donor.img.width, donor.img.height, 3, spot[2], spot[3]);
      const img = clone(base);
      shadow(img, spot[0] + win.width / 2 + 2, spot[1] + win.height / 2 + 2, win.width * 0.56, win.height * 0.56, 0.12);
      composite(img, opaqueCut({ ...win }, 'window', donor.from, false, 1.2), spot[0], spot[1]);
      taken.push(spot);
      await add(photo, 'window_added', n++, img, {
        kind: 'opening_added',
        box: [spot[0], spot[1], win.width, win.height],
      });
    }

    // Doors and archways: walled up (both ways), and moved sideways along their wall to a plain stretch of it.
    n = 0;
    for (const o of photo.openings.filter((o) => o.type !== 'window' && !o.covered && !o.glazed)) {
      const b = clampBox(o.box, W, H);
      if (b[2] * b[3] > 0.3 * W * H) continue;
      for (const method of ['patch', 'clone'] as const) {
        const removed = clone(base);
        const painted = method === 'patch' ? patchOver(removed, b, rng, true) : paintOver(removed, b, rng, false, true);
        if (painted) await add(photo, 'door_removed', n++, removed, { kind: 'opening_removed', box: painted });
      }
      // Slid along its wall by half to three quarters of its width, each way there is room for it.
      for (const dir of [-1, 1]) {
        const shift = Math.round(dir * b[2] * between(rng, 0.5, 0.75));
        const margin = Math.round(b[2] * 0.9);
        if (b[0] + Math.min(0, shift) - margin < 0 || b[0] + b[2] + Math.max(0, shift) + margin > W) continue;
        const img = clone(base);
        const changed = shiftBlock(img, b, shift, margin);
        await add(photo, 'door_moved', n++, img, { kind: 'opening_moved', box: changed });
      }
      // Cut out and set into a plain stretch of the same wall further along, its old place walled up.
      const others = taken.filter((t) => t !== o.box);
      const shifts = [1.3, -1.3, 1.7, -1.7, 2.2, -2.2].map((k) => [b[0] + k * b[2], b[1]] as [number, number]);
      const spot = plainSpot(base, b[2], b[3] * 0.85, shifts, [...others, grow(b, 2)], plainLimit);
      if (!spot) continue;
      const moved = clone(base);
      const filled = patchOver(moved, b, rng, true) ?? paintOver(moved, b, rng, false, true);
      if (!filled) continue;
      composite(moved, opaqueCut(crop(base, b), 'door', photo.id, false, 1.5), spot[0], b[1]);
      await add(photo, 'door_moved', n++, moved, {
        kind: 'opening_moved',
        box: union(filled, [spot[0], b[1], b[2], b[3]]),
      });
    }

    // A wall corner or column moved sideways, both ways.
    n = 0;
    for (const c of photo.corners ?? []) {
      const b = clampBox(c, W, H);
      for (const dir of [-1, 1]) {
        const img = clone(base);
        const shift = dir * Math.max(6, Math.round(W * between(rng, 0.03, 0.06)));
        shiftLine(img, b, shift);
        await add(photo, 'wall_moved', n++, img, { kind: 'wall_moved', box: clampBox(grow(b, Math.abs(shift)), W, H) });
      }
    }

    // Built-ins painted out.
    n = 0;
    for (const bi of photo.builtins) {
      const b = clampBox(bi, W, H);
      if (b[2] * b[3] > 0.3 * W * H || b[2] < 6 || b[3] < 6) continue;
      for (const method of ['patch', 'clone'] as const) {
        const img = clone(base);
        const painted =
          method === 'patch' ? patchOver(img, b, rng) : (paintOver(img, b, rng) ?? paintOver(img, b, rng, true));
        if (painted) await add(photo, 'builtin_removed', n++, img, { kind: 'builtin_changed', box: painted });
      }
    }

    // Walls, floor and ceiling repainted (two paints each), and one re-textured with another photo's surface.
    n = 0;
    const surfaces: Array<{ name: string; seeds: Box[]; colours: ReadonlyArray<{ a: number; b: number; l: number }> }> =
      [
        { name: 'walls', seeds: photo.walls, colours: PAINTS },
        { name: 'floor', seeds: photo.floor, colours: STAINS },
        { name: 'ceiling', seeds: photo.ceiling, colours: PAINTS.filter((p) => p.l >= 0.8) },
      ];
    const keepOut = [...structure, ...(photo.decor ?? []).map((d) => d.box), ...(photo.curtains ?? [])];
    for (const s of surfaces) {
      if (!s.seeds.length) continue;
      // A floor does not climb far above its highest sample, nor a ceiling drop far below its lowest.
      const top = Math.min(...s.seeds.map((b) => b[1]));
      const bottom = Math.max(...s.seeds.map((b) => b[1] + b[3]));
      const band: [number, number] =
        s.name === 'floor'
          ? [top - 0.08 * H, H]
          : s.name === 'ceiling'
            ? [0, bottom + 0.08 * H]
            : [top - 0.35 * H, bottom + 0.05 * H];
      // Walls and floor compete for the pixels between them; walls and ceiling, often the same white, do not.
      const rivals = s.name === 'walls' ? [photo.floor] : s.name === 'floor' ? [photo.walls] : [];
      const mask = surfaceMask(base, s.seeds, keepOut, s.name === 'floor' ? 15 : 13, band, rivals);
      if (!mask) continue;
      const where = maskBox(mask, W, H);
      if (!where) continue;
      const first = Math.floor(rng() * s.colours.length);
      for (let k = 0; k < 2; k++) {
        const img = clone(base);
        repaint(img, mask, s.colours[(first + k * 2) % s.colours.length]!);
        if (surfaceChange(base, img, mask) < 12) continue;
        await add(photo, `${s.name}_recoloured`, n++, img, { kind: 'surface_recoloured', box: where });
      }
      // Re-textured: a real material (brick, panelling, wallpaper, tiles, parquet...) from another photo, scaled up
      // to a believable size on this one.
      const materials = materialSamples.filter(
        (m) => m.from !== photo.id && m.surface === (s.name === 'floor' ? 'floor' : 'wall'),
      );
      if (materials.length) {
        const m = pick(rng, materials);
        const scale = Math.max(1, (W * 0.22) / m.img.width);
        const tex = await resizeFloat(
          m.img.data,
          m.img.width,
          m.img.height,
          3,
          m.img.width * scale,
          m.img.height * scale,
        );
        const img = clone(base);
        retexture(img, mask, tex);
        if (surfaceChange(base, img, mask) < 12) continue;
        await add(photo, 'surface_retextured', n++, img, { kind: 'surface_recoloured', box: where });
      }
    }

    // Must pass: real furniture from the honest stagings set on the floor.
    n = 0;
    const foreign = (cuts: Cut[]) => cuts.filter((c) => !c.source.startsWith(photo.id));
    const takesCuts = !underexposed(base);
    for (let k = 0; k < 3 && takesCuts && photo.floor.length; k++) {
      const pool = foreign(furnitureCuts);
      if (!pool.length) break;
      const img = clone(base);
      const pieces: Array<{ spot: { x: number; y: number }; cut: Cut }> = [];
      for (let piece = 0; piece < 1 + (k % 2); piece++) {
        const spot = floorSpot(photo, W, H, rng);
        if (!spot) break;
        const cut = await scaledCut(pick(rng, pool), H * between(rng, 0.16, 0.3) * (0.6 + (0.8 * spot.y) / H));
        pieces.push({ spot, cut });
      }
      // The farther piece (standing higher in the picture) first, so that the nearer one hides it, not the reverse.
      for (const { spot, cut } of pieces.sort((a, b) => a.spot.y - b.spot.y)) {
        const x = Math.round(spot.x - cut.width / 2);
        const y = Math.round(spot.y - cut.height);
        shadow(img, spot.x, spot.y - cut.height * 0.04, cut.width * 0.55, Math.max(3, cut.height * 0.08), 0.35);
        composite(img, cut, x, y);
      }
      await add(photo, 'furniture_composite', n++, img);
    }
    n = 0;
    for (let k = 0; k < 2 && takesCuts && photo.floor.length; k++) {
      const pool = foreign(lampPlantCuts);
      if (!pool.length) break;
      const spot = floorSpot(photo, W, H, rng);
      if (!spot) break;
      const img = clone(base);
      const cut = await scaledCut(pick(rng, pool), H * between(rng, 0.22, 0.38));
      shadow(img, spot.x, spot.y - 2, cut.width * 0.5, Math.max(3, cut.height * 0.04), 0.3);
      composite(img, cut, Math.round(spot.x - cut.width / 2), Math.round(spot.y - cut.height));
      await add(photo, 'lamp_plant', n++, img);
    }

    // Must pass: real art and mirrors hung on the walls.
    n = 0;
    for (const wall of takesCuts ? walls.slice(0, 3) : []) {
      const pool = decorCuts.filter((c) => !c.source.startsWith(photo.id));
      if (!pool.length) break;
      const cut0 = pick(rng, pool);
      const fit = Math.min(
        (wall[2] * between(rng, 0.55, 0.85)) / cut0.width,
        (wall[3] * between(rng, 0.55, 0.85)) / cut0.height,
      );
      const cut = await scaledCut(cut0, Math.max(10, cut0.height * fit));
      const x = Math.round(wall[0] + (wall[2] - cut.width) * between(rng, 0.2, 0.8));
      const y = Math.round(wall[1] + (wall[3] - cut.height) * between(rng, 0.2, 0.8));
      const img = clone(base);
      shadow(img, x + cut.width / 2 + 3, y + cut.height / 2 + 4, cut.width * 0.55, cut.height * 0.55, 0.18);
      composite(img, cut, x, y);
      await add(photo, 'wall_decor', n++, img);
    }

    // Must pass: real curtain panels hung either side of each visible window, overlapping its frame a little.
    n = 0;
    for (const o of takesCuts ? visibleWindows(photo) : []) {
      if (!curtainCuts.length) break;
      const b = clampBox(o.box, W, H);
      if (b[3] < 30) continue;
      const donor = pick(
        rng,
        curtainCuts.filter((c) => !c.source.startsWith(photo.id)),
      );
      if (!donor) continue;
      const panelH = Math.round(b[3] * between(rng, 1.1, 1.3));
      const panel = await resizeFloat(
        donor.data,
        donor.width,
        donor.height,
        4,
        Math.max(6, b[2] * between(rng, 0.2, 0.3)),
        panelH,
      );
      const img = clone(base);
      const top = Math.max(0, Math.round(b[1] - b[3] * 0.08));
      for (const side of [0, 1]) {
        const x = side === 0 ? Math.round(b[0] - panel.width * 0.6) : Math.round(b[0] + b[2] - panel.width * 0.4);
        composite(img, { ...panel }, x, top);
      }
      await add(photo, 'curtains', n++, img);
    }

    // Must pass: tone-only changes.
    for (let k = 0; k < TONE_KINDS; k++) {
      const id = `${photo.id}--tone-${k}`;
      const after = path.join(outDir, `${id}.jpg`);
      await toneEdit(path.join(setDir, photo.file), after, rng, k);
      edits.push({ id, before: path.join(setDir, photo.file), after, class: 'tone', label: 'pass' });
    }

    // Must pass: the photo only reframed (levelled, zoomed a little, verticals corrected, padded to a square). Drawn
    // from a stream of its own, so that the edits above stay as they were.
    const reframing = rngFor(seed, `${photo.id}/reframe`);
    for (let k = 0; k < REFRAME_KINDS; k++) {
      const id = `${photo.id}--reframe-${k}`;
      const after = path.join(outDir, `${id}.jpg`);
      await reframeEdit(path.join(setDir, photo.file), after, reframing, k);
      edits.push({ id, before: path.join(setDir, photo.file), after, class: 'tone', label: 'pass' });
    }
  }
  return edits;
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const outDir = process.argv[2];
  if (!outDir) {
    console.error('usage: npx tsx scripts/make-real-edits.ts <outDir> [seed] [setDir]');
    process.exit(2);
  }
  const seed = Number(process.argv[3] ?? 1);
  const setDir = process.argv[4] ?? fileURLToPath(new URL('../test/fixtures/real-rooms/', import.meta.url));
  const started = Date.now();
  const edits = await makeRealEdits(setDir, path.resolve(outDir), seed);
  await writeFile(path.join(path.resolve(outDir), 'edits.json'), `${JSON.stringify(edits, null, 1)}\n`);
  const counts = new Map<string, number>();
  for (const e of edits) counts.set(`${e.label} ${e.class}`, (counts.get(`${e.label} ${e.class}`) ?? 0) + 1);
  for (const [k, v] of [...counts].sort()) console.log(`${k}: ${v}`);
  console.log(`${edits.length} edits in ${((Date.now() - started) / 1000).toFixed(1)} s → ${outDir}/edits.json`);
}
