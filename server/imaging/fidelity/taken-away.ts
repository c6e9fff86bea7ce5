/**
 * What the photo showed in front of the room and the output no longer shows, named by what it was rather than by the
 * edges it left: a person (OpenCV's HOG people detector, Dalal and Triggs' linear SVM trained on upright pedestrians,
 * which ships inside OpenCV: nothing is downloaded), or a round thing hanging there (its outline drawn all round a
 * circle). Taking a passer-by or a paper lantern out of a listing photo is a declutter, not a change of the building;
 * the edges they leave read as an opening painted over or added (a torso against blinds is as tall and as framed as a
 * window; the rafters filled in where a lantern hung are as busy as a view).
 */
import { type Cv, openCv } from '../opencv.js';
import type { Grey } from './picture.js';
import { EDGE_MIN, gradientAt } from './edges.js';
import { corners } from './report.js';
import type { EdgeChange } from './structure.js';
import { filled } from '../filled.js';

type Box = readonly [number, number, number, number];

/**
 * Where a person whose torso a change's box holds would stand: PERSON_SIDE of the box's width either side of it,
 * PERSON_ABOVE of its height above it and PERSON_BELOW of its height below its top (a torso is about two fifths of a
 * standing person). That region is scaled to PERSON_REGION pixels tall, so that such a person stands a little taller
 * than HOG's window (64 × 128), and searched in steps of PERSON_STRIDE pixels with the window grown by PERSON_SCALE a
 * level: about 10 levels over a small crop, a few milliseconds.
 */
const PERSON_SIDE = 0.5;
const PERSON_ABOVE = 0.25;
const PERSON_BELOW = 3;
const PERSON_REGION = 180;
const PERSON_PAD = 16;
const PERSON_STRIDE = 8;
const PERSON_SCALE = 1.05;
/** The window HOG's default people detector was trained on, in pixels. */
const HOG_WINDOW = { width: 64, height: 128 };
/** Responses below this margin are not looked at (the SVM's own threshold is 0). */
const PERSON_FLOOR = -1;

let peopleDetector: InstanceType<Cv['HOGDescriptor']> | undefined;

/** The default people detector, built once per process and kept (a few kilobytes). */
function detector(cv: Cv): InstanceType<Cv['HOGDescriptor']> {
  if (peopleDetector) return peopleDetector;
  const hog = new cv.HOGDescriptor();
  const weights = cv.HOGDescriptor.getDefaultPeopleDetector();
  const values: number[] = [];
  for (let i = 0; i < weights.size(); i++) values.push(weights.get(i));
  weights.delete();
  const svm = cv.matFromArray(values.length, 1, cv.CV_32F, values);
  hog.setSVMDetector(svm);
  svm.delete();
  peopleDetector = hog;
  return hog;
}

/**
 * The strongest HOG people-detector response (the SVM's margin; 0 is its own threshold, PERSON_FLOOR when none) among
 * windows that hold the middle of `box` (work pixels, [x0, y0, x1, y1]), in the region where a person whose torso the
 * box holds would stand.
 */
function personAt(cv: Cv, { data, width, height }: Grey, [x0, y0, x1, y1]: Box): number {
  const w = x1 - x0;
  const h = y1 - y0;
  const rx0 = Math.max(0, Math.floor(x0 - PERSON_SIDE * w));
  const ry0 = Math.max(0, Math.floor(y0 - PERSON_ABOVE * h));
  const rx1 = Math.min(width, Math.ceil(x1 + PERSON_SIDE * w));
  const ry1 = Math.min(height, Math.ceil(y0 + PERSON_BELOW * h));
  const rw = rx1 - rx0;
  const rh = ry1 - ry0;
  const scale = PERSON_REGION / Math.max(1, rh);
  // HOG's window must fit in the padded region (OpenCV's WebAssembly build reads past a smaller one).
  if (Math.round(rw * scale) + 2 * PERSON_PAD < HOG_WINDOW.width) return PERSON_FLOOR;
  const crop = new cv.Mat(rh, rw, cv.CV_8UC1);
  // The Mat's bytes, looked up once: each `.data` makes a new view of the WebAssembly memory (a view per pixel took
  // half as long as the detector itself, and left that many objects to collect).
  const pixels = crop.data;
  for (let y = 0; y < rh; y++)
    for (let x = 0; x < rw; x++) pixels[y * rw + x] = Math.round(data[(ry0 + y) * width + rx0 + x] as number);
  const sized = new cv.Mat();
  const padded = new cv.Mat();
  const rects = new cv.RectVector();
  const scores = new cv.DoubleVector();
  let best = PERSON_FLOOR;
  try {
    cv.resize(crop, sized, new cv.Size(Math.max(1, Math.round(rw * scale)), PERSON_REGION), 0, 0, cv.INTER_LINEAR);
    cv.copyMakeBorder(sized, padded, PERSON_PAD, PERSON_PAD, PERSON_PAD, PERSON_PAD, cv.BORDER_REPLICATE);
    const stride = new cv.Size(PERSON_STRIDE, PERSON_STRIDE);
    detector(cv).detectMultiScale(
      padded,
      rects,
      scores,
      PERSON_FLOOR,
      stride,
      new cv.Size(0, 0),
      PERSON_SCALE,
      0,
      false,
    );
    const cx = ((x0 + x1) / 2 - rx0) * scale + PERSON_PAD;
    const cy = ((y0 + y1) / 2 - ry0) * scale + PERSON_PAD;
    for (let i = 0; i < rects.size(); i++) {
      const r = rects.get(i);
      if (cx >= r.x && cx < r.x + r.width && cy >= r.y && cy < r.y + r.height) best = Math.max(best, scores.get(i));
    }
  } finally {
    for (const m of [crop, sized, padded, rects, scores]) m.delete();
  }
  return best;
}

/**
 * A change a person's torso could be: mostly lost edges (what the person drew is gone), upright (at least
 * PERSON_UPRIGHT times as tall as wide) and at least PERSON_MIN work pixels tall (a person about 60 pixels tall, a
 * fifth of the working picture: smaller, HOG cannot tell one). The detector is strict: among every change left
 * unexcused on the real-photo set and its edits, only the dance studio's passer-by reaches PERSON_SEEN (about 2)
 * where the output no longer shows what the photo did; the nearest other (a study's window added by a diffusion
 * model) 0.8.
 */
const PERSON_MIN = 24;
const PERSON_UPRIGHT = 0.75;
const PERSON_SEEN = 1;
/** At most this many changes are looked at, the largest first: each search costs a few milliseconds. */
const PERSON_LOOKS = 3;

/**
 * The changes that are a person the photo showed and the output no longer shows (the detector's response at least
 * PERSON_SEEN in the photo, below its own threshold in the output): a declutter, not a change of the building.
 * OpenCV is loaded only when some change could be a person (an output on the photo's own grid needs it for nothing
 * else).
 */
export async function peopleTakenAway(
  before: Grey,
  after: Grey,
  changes: readonly EdgeChange[],
): Promise<Set<EdgeChange>> {
  const people = new Set<EdgeChange>();
  const candidates = changes
    .filter(({ box: [, , w, h], lost, added }) => lost >= added && h >= PERSON_MIN && h >= PERSON_UPRIGHT * w)
    .sort((a, b) => b.size - a.size)
    .slice(0, PERSON_LOOKS);
  if (!candidates.length) return people;
  const { cv } = await openCv();
  for (const change of candidates) {
    const box = corners(change.box);
    if (personAt(cv, before, box) >= PERSON_SEEN && personAt(cv, after, box) < 0) people.add(change);
  }
  return people;
}

/**
 * A round thing the photo showed and the output no longer shows: a paper lantern, a pendant's globe, a round mirror or
 * clock taken away. It is told by its outline, drawn all round a circle in the photo: of ROUND_POINTS points on the
 * circle, the photo has an edge running along the circle (its gradient within 10° of the radius, ROUND_RADIAL its
 * cosine; a pixel either way of it) at at least ROUND_SEEN of those inside the picture. A window or a door painted out
 * holds circles touching its frame and its bars, but such a circle runs along them only near where it touches them: at
 * most 0.63 of its points on the set's openings. In the output the same circle holds such an edge at at most ROUND_GONE
 * of its points, and what fills it is no brighter than the ring around it (ROUND_BRIGHT: a window pasted where a globe
 * hung would be daylight).
 */
const ROUND_POINTS = 48;
const ROUND_RADIAL = Math.cos((10 * Math.PI) / 180);
const ROUND_SEEN = 0.7;
const ROUND_GONE = 0.35;
const ROUND_BRIGHT = 1.1;
/**
 * A change looked at is compact (at most ROUND_ASPECT times as long as wide) and at least ROUND_MIN work pixels across:
 * a smaller circle (a knob, a switch, a pane's corner) is drawn by too few pixels to tell its outline from noise.
 */
const ROUND_ASPECT = 1.5;
const ROUND_MIN = 16;
/**
 * Circles are tried in steps of the change's shorter side over ROUND_STEPS (at least a pixel), then in quarter steps
 * about the best, where that came within ROUND_NEAR of ROUND_SEEN.
 */
const ROUND_STEPS = 16;
const ROUND_NEAR = 0.15;

/** The picture's Sobel gradient (across, down) at every pixel, 0 on its border: worked out once a picture. */
const gradients = new WeakMap<Grey, { gx: Float32Array; gy: Float32Array }>();
function gradientField(image: Grey): { gx: Float32Array; gy: Float32Array } {
  let field = gradients.get(image);
  if (field) return field;
  const { data, width, height } = image;
  field = { gx: filled(Float32Array, width * height), gy: filled(Float32Array, width * height) };
  for (let y = 1; y < height - 1; y++)
    for (let x = 1, i = y * width + 1; x < width - 1; x++, i++) {
      const [gx, gy] = gradientAt(data, i, width);
      field.gx[i] = gx;
      field.gy[i] = gy;
    }
  gradients.set(image, field);
  return field;
}

/** The directions of the circle's points from its middle. */
const COS = Array.from({ length: ROUND_POINTS }, (_, k) => Math.cos((2 * Math.PI * k) / ROUND_POINTS));
const SIN = Array.from({ length: ROUND_POINTS }, (_, k) => Math.sin((2 * Math.PI * k) / ROUND_POINTS));

/** Share of the circle's points inside the picture where `image` has an edge running along it (see ROUND_POINTS). */
function roundness(image: Grey, cx: number, cy: number, r: number): { share: number; inside: number } {
  const { width, height } = image;
  const { gx, gy } = gradientField(image);
  let along = 0;
  let inside = 0;
  for (let k = 0; k < ROUND_POINTS; k++) {
    const ux = COS[k] as number;
    const uy = SIN[k] as number;
    const x = Math.round(cx + r * ux);
    const y = Math.round(cy + r * uy);
    if (x < 2 || y < 2 || x >= width - 2 || y >= height - 2) continue;
    inside++;
    for (let d = -1; d <= 1; d++) {
      const i = Math.round(cy + (r + d) * uy) * width + Math.round(cx + (r + d) * ux);
      const a = gx[i] as number;
      const b = gy[i] as number;
      const square = a * a + b * b;
      const radial = a * ux + b * uy;
      if (square >= EDGE_MIN * EDGE_MIN && radial * radial >= ROUND_RADIAL * ROUND_RADIAL * square) {
        along++;
        break;
      }
    }
  }
  return { share: inside ? along / inside : 0, inside: inside / ROUND_POINTS };
}

/** Mean grey level of `image` inside the circle (to 0.8 of its radius) against the ring from 1.1 to 1.5 radii. */
function insideAgainstRing({ data, width, height }: Grey, cx: number, cy: number, r: number): number {
  let inside = 0;
  let n = 0;
  let ring = 0;
  let m = 0;
  const reach = 1.5 * r;
  for (let y = Math.max(0, Math.floor(cy - reach)); y < Math.min(height, Math.ceil(cy + reach)); y++)
    for (let x = Math.max(0, Math.floor(cx - reach)); x < Math.min(width, Math.ceil(cx + reach)); x++) {
      const d = Math.hypot(x - cx, y - cy);
      if (d < 0.8 * r) {
        inside += data[y * width + x] as number;
        n++;
      } else if (d > 1.1 * r && d < reach) {
        ring += data[y * width + x] as number;
        m++;
      }
    }
  return n && m && ring > 0 ? inside / n / (ring / m) : 1;
}

interface Circle {
  cx: number;
  cy: number;
  r: number;
  share: number;
}

/**
 * The circle about `box` (its middle moved by at most a fifth of its size, its radius from 0.35 of its shorter side to
 * 0.65 of its longer) whose outline the photo draws best, at least two thirds of it inside the picture.
 */
function bestCircle(image: Grey, [bx, by, bw, bh]: readonly [number, number, number, number]): Circle | undefined {
  let best: Circle | undefined;
  const tryCircle = (cx: number, cy: number, r: number) => {
    const seen = roundness(image, cx, cy, r);
    if (seen.inside >= 2 / 3 && seen.share > (best?.share ?? 0)) best = { cx, cy, r, share: seen.share };
  };
  const step = Math.max(1, Math.min(bw, bh) / ROUND_STEPS);
  for (let r = 0.35 * Math.min(bw, bh); r <= 0.65 * Math.max(bw, bh); r += step)
    for (let dx = -0.2 * bw; dx <= 0.2 * bw; dx += step)
      for (let dy = -0.2 * bh; dy <= 0.2 * bh; dy += step) tryCircle(bx + bw / 2 + dx, by + bh / 2 + dy, r);
  // The finer search only where the coarse one came near the bound: most changes draw no circle at all.
  const coarse = best;
  if (coarse && coarse.share >= ROUND_SEEN - ROUND_NEAR)
    for (let r = coarse.r - step; r <= coarse.r + step; r += step / 4)
      for (let dx = -step; dx <= step; dx += step / 4)
        for (let dy = -step; dy <= step; dy += step / 4) tryCircle(coarse.cx + dx, coarse.cy + dy, r);
  return best;
}

/**
 * The changes that lie on a round thing taken away (see ROUND_POINTS): for each compact change the circle the photo
 * draws best about its box is looked for, and with it every change whose middle lies in that circle's square is a
 * declutter too (a lantern's outline and the timber the fill drew where it hung are found as changes apart).
 */
export function roundThingsTakenAway(before: Grey, after: Grey, changes: readonly EdgeChange[]): Set<EdgeChange> {
  const taken = new Set<EdgeChange>();
  for (const change of changes) {
    const [, , bw, bh] = change.box;
    if (taken.has(change) || Math.min(bw, bh) < ROUND_MIN || Math.max(bw, bh) > ROUND_ASPECT * Math.min(bw, bh))
      continue;
    const circle = bestCircle(before, change.box);
    if (
      !circle ||
      circle.share < ROUND_SEEN ||
      roundness(after, circle.cx, circle.cy, circle.r).share > ROUND_GONE ||
      insideAgainstRing(after, circle.cx, circle.cy, circle.r) > ROUND_BRIGHT
    )
      continue;
    const reach = 1.1 * circle.r;
    for (const other of changes) {
      const [ox, oy, ow, oh] = other.box;
      if (Math.abs(ox + ow / 2 - circle.cx) <= reach && Math.abs(oy + oh / 2 - circle.cy) <= reach) taken.add(other);
    }
  }
  return taken;
}
