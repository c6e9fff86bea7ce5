/**
 * A person the photo showed in front of the room that the output no longer shows, named by what they were rather than
 * by the edges they left: OpenCV's HOG people detector (Dalal and Triggs' linear SVM trained on upright pedestrians,
 * which ships inside OpenCV: nothing is downloaded). Taking a passer-by out of a listing photo is a declutter, not a
 * change of the building; the edges a person leaves read as an opening painted over (a torso against blinds is as
 * tall and as framed as a window).
 */
import { type Cv, openCv } from '../opencv.js';
import type { Grey } from './picture.js';
import { corners } from './report.js';
import type { EdgeChange } from './structure.js';

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
  for (let y = 0; y < rh; y++)
    for (let x = 0; x < rw; x++) crop.data[y * rw + x] = Math.round(data[(ry0 + y) * width + rx0 + x] as number);
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
