/**
 * Registration for the fidelity check: where each pixel of an engine's output lies on the photo. Engines reframe,
 * crop, zoom or return another aspect ratio; comparing such an output pixel by pixel would read every line of the
 * room as moved. ORB features of both small decodes are matched (Hamming distance, Lowe's ratio test) and a
 * homography is fitted with RANSAC (OpenCV's WebAssembly build); the output is then warped onto the photo's grid.
 * An output of another shape is a crop: the similarity (scale, turn, shift) fitted to the same features places it
 * unless the homography places them measurably better.
 * Without enough agreeing features (a flat, drawn or very dark room) an output of the photo's own shape is taken as
 * it is (stretched to the grid); one of another shape is stretched back too, and kept if it then lines up with the
 * photo (a picture squashed to a square); otherwise it cannot be placed, and the check reports it as unaligned. Bars
 * of one flat colour along an output of another shape (padding to a square) are cut off before anything else.
 * Most engines return the photo's own framing: an output of the photo's size whose every quarter already lines up
 * with the photo (linesUp) is taken as it is before any feature is looked for, which saves the features' cost (about
 * 15 ms of a check) and gives the result the features would have given (the plain stretch). An output taken so and
 * refused may still be zoomed by a per cent or two: registerByLines places it by the room's own lines.
 */
import { type Cv, openCv } from './opencv.js';
import { filled } from './filled.js';

/** A small decode: width × height pixels of `channels` interleaved bytes. */
export interface Raster {
  data: Uint8Array;
  width: number;
  height: number;
  channels: number;
}

export interface Registration {
  /** The output on the photo's grid (same size and channels as the photo's decode). */
  image: Raster;
  /** 1 where the warped output has a pixel, 0 where the photo shows what the output left out (a crop). */
  valid: Uint8Array;
  /** True when a homography other than the plain stretch was applied. */
  warped: boolean;
  /** The fitted homography that was applied, and what it was fitted to: what refineRegistration starts from. */
  fit?: AppliedFit;
}

/** A fitted homography as applied: its matrix, the output it maps (bars cut off) and the features it agrees with. */
interface AppliedFit {
  matrix: number[];
  output: Raster;
  inliers: Fit['inliers'];
}

const FEATURES = 800;
/**
 * ORB's pyramid: PYRAMID_LEVELS levels PYRAMID_SCALE apart span a zoom of 2.2, more than a plausible reframing
 * (MAX_SCALE); OpenCV's default, eight levels 1.2 apart, spans 3.6 and costs a fifth more (25 → 21 ms of CPU per
 * check, the same real-set figures).
 */
const PYRAMID_SCALE = 1.3;
const PYRAMID_LEVELS = 4;
const RATIO = 0.8;
/** RANSAC's reprojection threshold in work pixels (a 320 px picture). */
const REPROJECTION = 3;
const MIN_INLIERS = 14;
const MIN_INLIER_SHARE = 0.25;
/**
 * An output of the photo's shape is taken on the plain stretch when the fitted homography moves none of its corners
 * further than this from where the stretch puts them (work pixels): less than the reach of edge matching (2 pixels),
 * so resampling would only blur. Outputs that keep the photo's framing measured 0.3–0.95 pixels (the fit's own noise);
 * a 1 % zoom, a 0.2° levelling or a 2 % vertical correction moves the corners 2 pixels or more, and the stretch then
 * leaves the edges near the frame too far off to be matched.
 */
const STRETCH_SLACK = 1.5;
/**
 * ...and the homography is used only when it explains the agreeing features better than the stretch by more than its
 * eight free parameters can by chance: the F statistic of the two fits' squared residuals over the homography's
 * inliers, ((SSR stretch − SSR homography) / 8) / (SSR homography / (2n − 8)), at least STRETCH_EVIDENCE. Real photos
 * zoomed 1–2 % measured 110–490 (hundreds of matches, each a little closer); a drawn room shrunk below the working
 * size 1.3–1.9 (a few dozen matches, a homography that bends off towards the corners by 30–70 pixels). For an output
 * of another shape the same test weighs the homography against the similarity fitted to its inliers (four parameters
 * more): portrait cuts of real rooms measured at most 4.1, their homographies bent off beyond the features.
 */
const STRETCH_EVIDENCE = 10;
/** Aspect ratios this close (relative) are the same shape: a rounding, a few pixels trimmed. */
const SAME_SHAPE = 0.03;
/**
 * A plausible reframing: the output's span on the photo, across and down, stays within these shares of the largest
 * crop of the output's own shape the photo holds (largestCrop: the photo itself for an output of its shape; for a
 * portrait cut of a landscape photo, the photo's full height at that cut's aspect ratio).
 */
const MIN_SCALE = 0.4;
const MAX_SCALE = 1.8;
/**
 * The agreeing features span at least this share of the output's width and of its height; an output of another shape
 * (a crop), placed by the similarity fitted to them, needs them to span it only one way (see cropPlacement).
 */
const MIN_SPREAD = 0.25;
/** Padding bars: lines of one colour within BAR_FLAT grey levels; cut only when they leave BAR_KEEP of each side. */
const BAR_FLAT = 6;
const BAR_KEEP = 0.4;
/**
 * The warped output must cover at least this share of that largest crop: a crop or zoom of up to 1.7 times, whatever
 * the output's shape. Measured on the whole photo, a portrait cut of a landscape photo could never cover more than its
 * aspect ratio allows (SnapStager's covers 35 % of its photo, 78 % of the largest such cut) and fell in and out of the
 * bound as JPEG quality or a slight blur moved its fit.
 */
const MIN_COVER = 0.35;
/**
 * refineRegistration: OpenCV's ECC (enhanced correlation coefficient) maximisation, at most REFINE_ITERATIONS steps
 * from the fitted homography on the grey pictures smoothed by a REFINE_BLUR-pixel Gaussian (about 13 ms a step at the
 * working size; it settles in two or three from a fit a few pixels off, and a levelled empty room whose fit was 20
 * pixels off at a corner needed five to come within one). The refined homography is kept only when it is a plausible reframing and
 * the matched features agree with it as well as with the fit: their root-mean-square miss at most REFINE_AGREEMENT
 * times the fit's. ECC fits one brightness change to the whole picture; where a floor or a wall was repainted it can
 * bend the geometry to explain the new shading, and the features then say so (their miss grew by 16–40 % on the
 * set's repainted floors, reframed, with corners pulled 2–25 pixels off; on the reframes it corrected, the miss stayed
 * or fell).
 */
const REFINE_ITERATIONS = 10;
const REFINE_BLUR = 5;
const REFINE_AGREEMENT = 1.05;
/**
 * An output of the photo's own size is taken as it is, without looking for features, when every quarter of it lines
 * up best with no shift: the photo's strongest edges (the INPLACE_EDGES share of its pixels with the steepest
 * gradient) fall on the output's edges more than under any shift of up to INPLACE_REACH pixels. A zoom, a crop or a
 * shift moves the quarters apart by more than that; a staging adds furniture, which does not move the room's edges.
 */
const INPLACE_REACH = 2;
const INPLACE_EDGES = 0.05;
/** A quarter with fewer strong edges than this decides nothing, and at least 3 quarters must decide. */
const INPLACE_MIN_EDGES = 40;
const GRADIENT_MAX = 2 * 255;
/**
 * registerByLines: the farthest shift looked for (work pixels), the largest zoom taken, and the least shift (in some
 * third, work pixels) that counts as moved.
 */
const ZOOM_REACH = 6;
const ZOOM_MAX = 0.04;
const ZOOM_LEAST = 1;

/**
 * `output` placed on `before`'s grid, or null when it cannot be placed (another shape and no consistent features, or
 * a fit that is no plausible reframing of a room photo).
 */
export async function registerOutput(before: Raster, output: Raster): Promise<Registration | null> {
  const inPlace = output.width === before.width && output.height === before.height;
  if (inPlace && linesUp(before, output)) return asItIs(output);
  // An output padded to another shape (a square, say) shows the room between bars of one flat colour: they are no
  // part of it, and left on they put the output's corners far outside the photo.
  const after = sameShapeAs(output, before) ? output : withoutBars(output);
  const { cv } = await openCv();
  const stretch = [before.width / after.width, 0, 0, 0, before.height / after.height, 0, 0, 0, 1];
  const sameShape = sameShapeAs(after, before);
  // Squeezed or stretched to another shape with the whole frame kept: the features no longer match (ORB is not made
  // for a picture squashed by half), but the plain stretch puts it back, and it then lines up with the photo.
  const squashed = () => {
    const stretched = warp(cv, after, stretch, before);
    return linesUp(before, stretched.image) ? { ...stretched, warped: false } : null;
  };
  const found = fitHomography(cv, before, after, stretch);
  // A band of features places only a crop (cropPlacement), and a squash matched along a band is no crop.
  if (found?.narrow && !sameShape) {
    const whole = squashed();
    if (whole) return whole;
  }
  const fit = found?.narrow && sameShape ? null : found;
  const fitted = fit && !sameShape ? cropPlacement(fit) : fit?.matrix;
  let matrix: number[] | null = null;
  if (
    fit &&
    fitted &&
    plausible(fitted, after, before) &&
    !(sameShape && (cornerShift(fitted, stretch, after) <= STRETCH_SLACK || fit.evidence < STRETCH_EVIDENCE))
  )
    matrix = fitted;
  if (!matrix && !sameShape) return found?.narrow ? null : squashed();
  if (matrix && fit) {
    const warped = warp(cv, after, matrix, before);
    const frame = largestCrop(after, before);
    if (coverage(warped.valid) >= (MIN_COVER * frame.width * frame.height) / (before.width * before.height))
      return { ...warped, warped: true, fit: { matrix, output: after, inliers: fit.inliers } };
    if (!sameShape) return null;
  }
  if (inPlace) return asItIs(after);
  return { ...warp(cv, after, stretch, before), warped: false };
}

/**
 * A registration made with a fitted homography, refined (see REFINE_*): features match to within a pixel or two at
 * the working size, and where they are sparse (a plain ceiling, a frieze above the last feature) a homography fitted
 * to them can be 2–7 pixels off at the picture's corners, which reads as the room's lines moved. Null when there is
 * nothing to refine or the refinement is not kept.
 */
export async function refineRegistration(before: Raster, registration: Registration): Promise<Registration | null> {
  const { fit } = registration;
  if (!fit) return null;
  const { cv } = await openCv();
  const matrix = eccRefined(cv, before, fit.output, fit.matrix);
  if (!matrix || !plausible(matrix, fit.output, before)) return null;
  const rms = (m: number[]) =>
    Math.sqrt(fit.inliers.reduce((sum, [p, q]) => sum + squaredMiss(m, p, q), 0) / Math.max(1, fit.inliers.length));
  if (rms(matrix) > REFINE_AGREEMENT * rms(fit.matrix)) return null;
  const warped = warp(cv, fit.output, matrix, before);
  if (coverage(warped.valid) < MIN_COVER) return null;
  return { ...warped, warped: true, fit: { ...fit, matrix } };
}

/** `m` (output to photo) refined by ECC on the two grey pictures; null when ECC does not converge. */
function eccRefined(cv: Cv, before: Raster, after: Raster, m: number[]): number[] | null {
  const greyBefore = greyMat(cv, before);
  const greyAfter = greyMat(cv, after);
  const forward = cv.matFromArray(3, 3, cv.CV_64F, m);
  // ECC's warp maps the template's (the photo's) pixels to the input's (the output's): the inverse of `m`.
  const inverse = new cv.Mat();
  const warpMatrix = new cv.Mat();
  const refinedInverse = new cv.Mat();
  const refined = new cv.Mat();
  const noMask = new cv.Mat();
  try {
    cv.invert(forward, inverse, cv.DECOMP_LU);
    inverse.convertTo(warpMatrix, cv.CV_32F);
    const criteria = new cv.TermCriteria(cv.TermCriteria_COUNT + cv.TermCriteria_EPS, REFINE_ITERATIONS, 1e-4);
    try {
      cv.findTransformECC(greyBefore, greyAfter, warpMatrix, cv.MOTION_HOMOGRAPHY, criteria, noMask, REFINE_BLUR);
    } catch {
      // OpenCV throws when the correlation does not converge (a picture too flat or too different).
      return null;
    }
    warpMatrix.convertTo(refinedInverse, cv.CV_64F);
    cv.invert(refinedInverse, refined, cv.DECOMP_LU);
    const out = Array.from(refined.data64F as Float64Array);
    const scale = out[8] as number;
    return Math.abs(scale) > 1e-12 ? out.map((v) => v / scale) : null;
  } finally {
    for (const object of [greyBefore, greyAfter, forward, inverse, warpMatrix, refinedInverse, refined, noMask])
      object.delete();
  }
}

/** Share of the photo a warped output covers. */
function coverage(valid: Uint8Array): number {
  let covered = 0;
  for (const v of valid) covered += v;
  return covered / Math.max(1, valid.length);
}

function sameShapeAs(a: Raster, b: Raster): boolean {
  return Math.abs(a.width / a.height / (b.width / b.height) - 1) <= SAME_SHAPE;
}

/**
 * `image` without the bars along its edges: whole rows (top, bottom) or columns (left, right) of one flat colour, each
 * pixel within BAR_FLAT grey levels of its line's mean and each line within BAR_FLAT of the outermost one, plus one
 * line more (JPEG rings along the bar's edge). Only bars that leave at least BAR_KEEP of each side are cut; a line
 * flat enough to be a bar in a photo (a clipped ceiling) is content the check could not read anyway.
 */
function withoutBars(image: Raster): Raster {
  const { width, height, channels, data } = image;
  // Channel c (red, green, blue; grey repeats its one) of the k-th pixel along row or column `line`.
  const level = (line: number, k: number, rows: boolean, c: number) =>
    data[(rows ? line * width + k : k * width + line) * channels + Math.min(c, channels - 1)] as number;
  const mean = (line: number, rows: boolean) => {
    const sum = [0, 0, 0];
    const count = rows ? width : height;
    for (let k = 0; k < count; k++) for (let c = 0; c < 3; c++) sum[c] = (sum[c] as number) + level(line, k, rows, c);
    return sum.map((v) => v / count);
  };
  const flat = (line: number, rows: boolean, outer: number[]) => {
    const m = mean(line, rows);
    if (m.some((v, c) => Math.abs(v - (outer[c] as number)) > BAR_FLAT)) return false;
    const count = rows ? width : height;
    for (let k = 0; k < count; k++)
      for (let c = 0; c < 3; c++) if (Math.abs(level(line, k, rows, c) - (m[c] as number)) > BAR_FLAT) return false;
    return true;
  };
  const bar = (from: number, step: number, lines: number, rows: boolean) => {
    const outer = mean(from, rows);
    let n = 0;
    while (n < lines / 2 && flat(from + n * step, rows, outer)) n++;
    return n ? n + 1 : 0;
  };
  const top = bar(0, 1, height, true);
  const bottom = bar(height - 1, -1, height, true);
  const left = bar(0, 1, width, false);
  const right = bar(width - 1, -1, width, false);
  const w = width - left - right;
  const h = height - top - bottom;
  if ((top === 0 && bottom === 0 && left === 0 && right === 0) || w < BAR_KEEP * width || h < BAR_KEEP * height)
    return image;
  const out = filled(Uint8Array, w * h * channels);
  for (let y = 0; y < h; y++)
    out.set(
      data.subarray(((top + y) * width + left) * channels, ((top + y) * width + left + w) * channels),
      y * w * channels,
    );
  return { data: out, width: w, height: h, channels };
}

/** An output of the photo's size, taken on the photo's grid as it is. */
export function asItIs(after: Raster): Registration {
  return { image: after, valid: filled(Uint8Array, after.width * after.height, 1), warped: false };
}

/** A Mat holding a copy of the raster's bytes. */
function matOf(cv: Cv, raster: Raster) {
  const mat = new cv.Mat(raster.height, raster.width, raster.channels === 1 ? cv.CV_8UC1 : cv.CV_8UC3);
  mat.data.set(raster.data);
  return mat;
}

function greyMat(cv: Cv, raster: Raster) {
  const rgb = matOf(cv, raster);
  if (raster.channels === 1) return rgb;
  const grey = new cv.Mat();
  cv.cvtColor(rgb, grey, cv.COLOR_RGB2GRAY);
  rgb.delete();
  return grey;
}

interface Fit {
  /** The homography, row-major 3 × 3, from the output's pixels to the photo's. */
  matrix: number[];
  /** How much better than the plain stretch it places its inliers (STRETCH_EVIDENCE's F statistic). */
  evidence: number;
  /** The agreeing features: each output point and the photo point it matched. */
  inliers: Array<[[number, number], [number, number]]>;
  /** The agreeing features span less than MIN_SPREAD of the output one way (a band across it). */
  narrow: boolean;
}

/**
 * The homography that puts `after` on `before`, or null without enough agreeing features; its evidence is weighed
 * against `stretch`, the plain stretch of `after` onto `before`.
 */
function fitHomography(cv: Cv, before: Raster, after: Raster, stretch: number[]): Fit | null {
  const greyBefore = greyMat(cv, before);
  const greyAfter = greyMat(cv, after);
  const orb = new cv.ORB(FEATURES, PYRAMID_SCALE, PYRAMID_LEVELS);
  const none = new cv.Mat();
  const keysBefore = new cv.KeyPointVector();
  const keysAfter = new cv.KeyPointVector();
  const descBefore = new cv.Mat();
  const descAfter = new cv.Mat();
  const matcher = new cv.BFMatcher(cv.NORM_HAMMING, false);
  const pairs = new cv.DMatchVectorVector();
  const owned: Array<{ delete(): void }> = [greyBefore, greyAfter, orb, none, keysBefore, keysAfter, descBefore];
  owned.push(descAfter, matcher, pairs);
  try {
    orb.detectAndCompute(greyBefore, none, keysBefore, descBefore);
    orb.detectAndCompute(greyAfter, none, keysAfter, descAfter);
    if (descBefore.rows < MIN_INLIERS || descAfter.rows < MIN_INLIERS) return null;
    matcher.knnMatch(descAfter, descBefore, pairs, 2);
    const from: number[] = [];
    const to: number[] = [];
    for (let i = 0; i < pairs.size(); i++) {
      const pair = pairs.get(i);
      if (pair.size() < 2) continue;
      const best = pair.get(0);
      const second = pair.get(1);
      if (best.distance >= RATIO * second.distance) continue;
      const a = keysAfter.get(best.queryIdx).pt;
      const b = keysBefore.get(best.trainIdx).pt;
      from.push(a.x, a.y);
      to.push(b.x, b.y);
    }
    const count = from.length / 2;
    if (count < MIN_INLIERS) return null;
    const src = cv.matFromArray(count, 1, cv.CV_32FC2, from);
    const dst = cv.matFromArray(count, 1, cv.CV_32FC2, to);
    const mask = new cv.Mat();
    owned.push(src, dst, mask);
    const h = cv.findHomography(src, dst, cv.RANSAC, REPROJECTION, mask);
    owned.push(h);
    if (h.empty()) return null;
    let inliers = 0;
    let [left, top, right, bottom] = [after.width, after.height, 0, 0];
    for (let i = 0; i < count; i++) {
      if (!mask.data[i]) continue;
      inliers++;
      const x = from[2 * i] as number;
      const y = from[2 * i + 1] as number;
      [left, top, right, bottom] = [Math.min(left, x), Math.min(top, y), Math.max(right, x), Math.max(bottom, y)];
    }
    if (inliers < MIN_INLIERS || inliers < MIN_INLIER_SHARE * count) return null;
    // Agreeing features bunched in one place are one object that moved (a window), not the frame of the picture. The
    // spread is measured on the output: a crop shows only part of the photo, and its features can only come from there.
    const wide = right - left >= MIN_SPREAD * after.width;
    const tall = bottom - top >= MIN_SPREAD * after.height;
    if (!wide && !tall) return null;
    const matrix = Array.from(h.data64F as Float64Array);
    const agreeing: Fit['inliers'] = [];
    for (let i = 0; i < count; i++) {
      if (!mask.data[i]) continue;
      agreeing.push([
        [from[2 * i] as number, from[2 * i + 1] as number],
        [to[2 * i] as number, to[2 * i + 1] as number],
      ]);
    }
    return { matrix, evidence: betterBy(agreeing, matrix, stretch, 8), inliers: agreeing, narrow: !(wide && tall) };
  } finally {
    for (const object of owned) object.delete();
  }
}

/**
 * Where an output of another shape goes, a crop (zoomed and turned a little at most): where its features bunch in part
 * of it, a homography fitted to them can bend off beyond them, so the similarity fitted to the same features is taken
 * unless the homography places them measurably better (STRETCH_EVIDENCE, against its four more parameters). Features
 * in a band across the crop (`narrow`: the window wall of a room whose floor the engine furnished and whose ceiling is
 * plain) fix a similarity's one scale, turn and shift, but leave a homography free to tilt off the band: the
 * similarity is taken. A crop that cannot be placed is refused as unaligned, so placing one on such features risks no
 * change let through: placed wrongly, it is refused all the same.
 */
function cropPlacement(fit: Fit): number[] {
  const similarity = similarityOf(fit.inliers);
  if (fit.narrow) return similarity;
  return betterBy(fit.inliers, fit.matrix, similarity, 4) < STRETCH_EVIDENCE ? similarity : fit.matrix;
}

/**
 * How much better the homography `m` places the matched `pairs` than `simpler`, a model with `fewer` parameters less:
 * the F statistic of their squared misses, ((SSR simpler − SSR m) / fewer) / (SSR m / (2n − 8)).
 */
function betterBy(pairs: Fit['inliers'], m: number[], simpler: number[], fewer: number): number {
  let fitted = 0;
  let plain = 0;
  for (const [p, q] of pairs) {
    fitted += squaredMiss(m, p, q);
    plain += squaredMiss(simpler, p, q);
  }
  return (plain - fitted) / fewer / Math.max(1e-9, fitted / Math.max(1, 2 * pairs.length - 8));
}

/**
 * The similarity (a scale, a turn and a shift: u = a·x − b·y + tx, v = b·x + a·y + ty) that places each pair's output
 * point nearest its photo point, by least squares about their centroids, as a 3 × 3 matrix.
 */
function similarityOf(pairs: Fit['inliers']): number[] {
  const n = Math.max(1, pairs.length);
  let [mx, my, mu, mv] = [0, 0, 0, 0];
  for (const [[x, y], [u, v]] of pairs) [mx, my, mu, mv] = [mx + x / n, my + y / n, mu + u / n, mv + v / n];
  let along = 0;
  let across = 0;
  let spread = 0;
  for (const [[x, y], [u, v]] of pairs) {
    const [dx, dy, du, dv] = [x - mx, y - my, u - mu, v - mv];
    along += dx * du + dy * dv;
    across += dx * dv - dy * du;
    spread += dx * dx + dy * dy;
  }
  const a = along / Math.max(1e-9, spread);
  const b = across / Math.max(1e-9, spread);
  return [a, -b, mu - a * mx + b * my, b, a, mv - b * mx - a * my, 0, 0, 1];
}

/** Where homography `m` puts the point (x, y); null when it lies at or past infinity (behind the camera). */
export function project(m: number[], x: number, y: number): readonly [number, number] | null {
  const w = (m[6] as number) * x + (m[7] as number) * y + (m[8] as number);
  if (w <= 1e-6) return null;
  return [
    ((m[0] as number) * x + (m[1] as number) * y + (m[2] as number)) / w,
    ((m[3] as number) * x + (m[4] as number) * y + (m[5] as number)) / w,
  ] as const;
}

/**
 * The squared distance from where homography `m` puts point `p` to point `q`. Only asked of matches inside the
 * output, where a plausible homography never reaches infinity (its four corners do not).
 */
function squaredMiss(m: number[], [x, y]: [number, number], [qx, qy]: [number, number]): number {
  const p = project(m, x, y);
  return p ? (p[0] - qx) ** 2 + (p[1] - qy) ** 2 : Number.POSITIVE_INFINITY;
}

/** The output's four corners (top left, top right, bottom left, bottom right) on the photo under `m`; null past infinity. */
function cornersOf(m: number[], after: Raster): Array<readonly [number, number] | null> {
  const corners: Array<[number, number]> = [
    [0, 0],
    [after.width, 0],
    [0, after.height],
    [after.width, after.height],
  ];
  return corners.map(([x, y]) => project(m, x, y));
}

/** How far (work pixels) homography `m` puts the output's farthest-moved corner from where `stretch` puts it. */
function cornerShift(m: number[], stretch: number[], after: Raster): number {
  const fitted = cornersOf(m, after);
  const stretched = cornersOf(stretch, after);
  let most = 0;
  fitted.forEach((p, k) => {
    const q = stretched[k];
    most = p && q ? Math.max(most, Math.hypot(p[0] - q[0], p[1] - q[1])) : Number.POSITIVE_INFINITY;
  });
  return most;
}

/** The largest crop of `after`'s shape that `before` holds, in `before`'s pixels (see MIN_SCALE). */
function largestCrop(after: Raster, before: Raster): { width: number; height: number } {
  const aspect = after.width / after.height;
  const width = Math.min(before.width, before.height * aspect);
  return { width, height: width / aspect };
}

/** The output's corners land inside a generous frame around the photo and its scale is a reframing's. */
function plausible(m: number[], after: Raster, before: Raster): boolean {
  const mapped = cornersOf(m, after);
  if (mapped.some((p) => p === null)) return false;
  const points = mapped as Array<readonly [number, number]>;
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const frame = largestCrop(after, before);
  const spanX = (Math.max(...xs) - Math.min(...xs)) / frame.width;
  const spanY = (Math.max(...ys) - Math.min(...ys)) / frame.height;
  for (const span of [spanX, spanY]) if (span < MIN_SCALE || span > MAX_SCALE) return false;
  // Opposite sides keep their lengths within a third: a photo's reframing, not a view from elsewhere.
  const side = (a: readonly [number, number], b: readonly [number, number]) => Math.hypot(a[0] - b[0], a[1] - b[1]);
  const [tl, tr, bl, br] = points as [
    readonly [number, number],
    readonly [number, number],
    readonly [number, number],
    readonly [number, number],
  ];
  const ratio = (p: number, q: number) => Math.max(p, q) / Math.max(1e-6, Math.min(p, q));
  return ratio(side(tl, tr), side(bl, br)) <= 1.33 && ratio(side(tl, bl), side(tr, br)) <= 1.33;
}

/**
 * An output of the photo's size placed by the room's own lines: in the picture's left and right thirds, and in its top
 * and bottom thirds, the shift (up to ZOOM_REACH pixels; to a fraction of one, by a parabola through the best shift and
 * its neighbours) under which the photo's strongest edges meet the output's best; the two shifts across, and the two
 * down, give a zoom and a shift along each axis. For an output zoomed by a per cent or two that `linesUp` took as it
 * is: too little for its quarters to show (their middles move a pixel), enough to put the lines near the picture's
 * sides 2–4 pixels off, beyond edge matching's reach; and an empty room staged has too few features in common with its
 * output for a homography. Null when no third moves by ZOOM_LEAST, a third has too few strong edges to say or its best
 * shift is at the reach, or the zoom is more than ZOOM_MAX. No turn is placed: an output placed on features is left
 * to them (placing those by the lines too let levelled building changes through).
 */
export async function registerByLines(before: Raster, output: Raster): Promise<Registration | null> {
  const { width, height } = before;
  if (output.width !== width || output.height !== height) return null;
  const a = gradient(before);
  const b = gradient(output);
  const threshold = strongestEdges(a);
  const r = ZOOM_REACH;
  // The best shift (dx or dy) of the output against the photo within the box [x0, x1) × [y0, y1), sub-pixel.
  const shiftIn = (x0: number, x1: number, y0: number, y1: number, across: boolean): number | null => {
    const step = across ? 1 : width;
    const box = [
      Math.max(r + 1, Math.round(x0)),
      Math.min(width - r - 1, Math.round(x1)),
      Math.max(r + 1, Math.round(y0)),
      Math.min(height - r - 1, Math.round(y1)),
    ] as const;
    const shifts = Array.from({ length: 2 * r + 1 }, (_, k) => (k - r) * step);
    const { scores, edges } = edgesMet(a, b, width, threshold, box, shifts);
    if (edges < INPLACE_MIN_EDGES) return null;
    let best = 0;
    for (let k = 1; k < scores.length; k++) if ((scores[k] as number) > (scores[best] as number)) best = k;
    if (best === 0 || best === scores.length - 1) return null;
    const [p, q, s] = [scores[best - 1] as number, scores[best] as number, scores[best + 1] as number];
    const bend = p - 2 * q + s;
    return best - r + (bend < 0 ? (0.5 * (p - s)) / bend : 0);
  };
  const third = { x: width / 3, y: height / 3 };
  const left = shiftIn(0, third.x, 0, height, true);
  const right = shiftIn(2 * third.x, width, 0, height, true);
  const top = shiftIn(0, width, 0, third.y, false);
  const bottom = shiftIn(0, width, 2 * third.y, height, false);
  if (left === null || right === null || top === null || bottom === null) return null;
  // Output coordinate = (1 + k) × photo coordinate + d, from the shifts at the thirds' middles.
  const axis = (near: number, far: number, length: number) => {
    const k = (far - near) / ((2 / 3) * length);
    return { k, d: near - k * (length / 6) };
  };
  const h = axis(left, right, width);
  const v = axis(top, bottom, height);
  if (Math.abs(h.k) > ZOOM_MAX || Math.abs(v.k) > ZOOM_MAX) return null;
  if (Math.max(Math.abs(left), Math.abs(right), Math.abs(top), Math.abs(bottom)) < ZOOM_LEAST) return null;
  const matrix = [1 / (1 + h.k), 0, -h.d / (1 + h.k), 0, 1 / (1 + v.k), -v.d / (1 + v.k), 0, 0, 1];
  const { cv } = await openCv();
  // Fitted to no features: what it agrees with is the room's lines.
  return { ...warp(cv, output, matrix, before), warped: true, fit: { matrix, output, inliers: [] } };
}

/** The gradient above which a picture's strongest INPLACE_EDGES share of pixels lie. */
function strongestEdges(gradients: Uint16Array): number {
  const counts = new Uint32Array(GRADIENT_MAX + 1);
  for (const v of gradients) counts[v] = (counts[v] as number) + 1;
  let threshold = counts.length - 1;
  for (let seen = 0; threshold > 1 && seen < INPLACE_EDGES * gradients.length; threshold--)
    seen += counts[threshold] as number;
  return threshold;
}

/**
 * Whether `after` (the photo's size) lies on the photo as it is: in each quarter of the picture, the photo's strongest
 * edges meet the output's edges best with no shift (see INPLACE_REACH).
 */
function linesUp(before: Raster, after: Raster): boolean {
  const { width, height } = before;
  const a = gradient(before);
  const b = gradient(after);
  // The threshold for the photo's strongest edges: the INPLACE_EDGES quantile of its gradients, from a histogram.
  const threshold = strongestEdges(a);
  let decided = 0;
  const r = INPLACE_REACH;
  // Every shift of up to r pixels either way, row by row: the middle one is no shift.
  const shifts = Array.from(
    { length: (2 * r + 1) ** 2 },
    (_, k) => (Math.floor(k / (2 * r + 1)) - r) * width + (k % (2 * r + 1)) - r,
  );
  for (const [qx, qy] of [
    [0, 0],
    [1, 0],
    [0, 1],
    [1, 1],
  ] as const) {
    const x0 = Math.max(r + 1, qx * (width >> 1));
    const x1 = Math.min(width - r - 1, (qx + 1) * (width >> 1));
    const y0 = Math.max(r + 1, qy * (height >> 1));
    const y1 = Math.min(height - r - 1, (qy + 1) * (height >> 1));
    const { scores, edges } = edgesMet(a, b, width, threshold, [x0, x1, y0, y1], shifts);
    if (edges < INPLACE_MIN_EDGES) continue;
    const centre = scores[(scores.length - 1) / 2] as number;
    // A flat output meets none of them under any shift: that is no lining up.
    if (centre <= 0) return false;
    for (const score of scores) if (score > centre) return false;
    decided++;
  }
  return decided >= 3;
}

/**
 * How well the photo's strongest edges (`a` above `threshold`) in the box [x0, x1) × [y0, y1) meet the output's edges
 * (`b`) under each of `shifts` (steps in the pictures' pixel index, kept inside them by the box): per shift, the sum of
 * the two gradients' products; and how many of the photo's edges were weighed.
 */
function edgesMet(
  a: Uint16Array,
  b: Uint16Array,
  width: number,
  threshold: number,
  [x0, x1, y0, y1]: readonly [number, number, number, number],
  shifts: readonly number[],
): { scores: Float64Array; edges: number } {
  const scores = new Float64Array(shifts.length);
  let edges = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0, i = y * width + x0; x < x1; x++, i++) {
      const m = a[i] as number;
      if (m <= threshold) continue;
      edges++;
      for (let k = 0; k < shifts.length; k++)
        scores[k] = (scores[k] as number) + m * (b[i + (shifts[k] as number)] as number);
    }
  return { scores, edges };
}

/**
 * Each raster's gradients, worked out once: linesUp and registerByLines both look at the photo and at an output taken
 * as it is.
 */
const gradients = new WeakMap<Raster, Uint16Array>();

/** |gx| + |gy| of the grey levels (central differences), 0 on the border: at most GRADIENT_MAX. */
function gradient(raster: Raster): Uint16Array {
  let out = gradients.get(raster);
  if (!out) {
    out = gradientOf(raster);
    gradients.set(raster, out);
  }
  return out;
}

/** gradient's work, for a raster not seen before. */
function gradientOf({ data, width, height, channels }: Raster): Uint16Array {
  const grey = filled(Uint8Array, width * height);
  const g = channels >= 3 ? 1 : 0;
  const b = channels >= 3 ? 2 : 0;
  for (let i = 0, j = 0; i < grey.length; i++, j += channels)
    grey[i] = (77 * (data[j] as number) + 150 * (data[j + g] as number) + 29 * (data[j + b] as number)) >> 8;
  const out = filled(Uint16Array, width * height);
  for (let y = 1; y < height - 1; y++)
    for (let x = 1, i = y * width + 1; x < width - 1; x++, i++)
      out[i] =
        Math.abs((grey[i + 1] as number) - (grey[i - 1] as number)) +
        Math.abs((grey[i + width] as number) - (grey[i - width] as number));
  return out;
}

function warp(cv: Cv, after: Raster, m: number[], before: Raster): { image: Raster; valid: Uint8Array } {
  const source = matOf(cv, after);
  const ones = new cv.Mat(after.height, after.width, cv.CV_8UC1, new cv.Scalar(1));
  const matrix = cv.matFromArray(3, 3, cv.CV_64F, m);
  const size = new cv.Size(before.width, before.height);
  const out = new cv.Mat();
  const cover = new cv.Mat();
  try {
    cv.warpPerspective(source, out, matrix, size, cv.INTER_LINEAR, cv.BORDER_REPLICATE, new cv.Scalar());
    cv.warpPerspective(ones, cover, matrix, size, cv.INTER_NEAREST, cv.BORDER_CONSTANT, new cv.Scalar(0));
    const image = filled(Uint8Array, out.data.length);
    image.set(out.data);
    const valid = filled(Uint8Array, cover.data.length);
    valid.set(cover.data);
    return { image: { data: image, width: before.width, height: before.height, channels: after.channels }, valid };
  } finally {
    for (const object of [source, ones, matrix, out, cover]) object.delete();
  }
}
