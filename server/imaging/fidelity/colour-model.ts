/**
 * The one colour and tone change a whole picture agrees on (white balance, exposure, contrast, saturation, gamma):
 * per output channel, an affine mix of the photo's three channels plus a curve of its own, fitted robustly.
 */

/**
 * The picture-wide colour model's features of one cell for output channel `c`, written into `into`: 1, r, g, b, and
 * c's own square and square root (one array reused: the fit visits every cell six times per channel). The square
 * bends the curve one way (deeper shadows, more contrast), the root the other: a low-light or HDR-like edit lifts
 * the shadows several times over and the highlights hardly, which an affine mix and a square could not follow (a
 * real dark hall's wood-slat ceiling, brightened by a low-light enhancer, read as recoloured).
 */
function colourFeatures(a: Float32Array, cell: number, c: number, into: Float64Array): Float64Array {
  const own = (a[cell * 3 + c] as number) / 255;
  into[0] = 1;
  into[1] = (a[cell * 3] as number) / 255;
  into[2] = (a[cell * 3 + 1] as number) / 255;
  into[3] = (a[cell * 3 + 2] as number) / 255;
  into[4] = own * own;
  into[5] = Math.sqrt(own);
  return into;
}

const FEATURES = 6;
const scratch = new Float64Array(FEATURES);

/** What the model predicts for channel `c` (0–255) of cell `cell`, from the photo's cell colours `a`. */
export function predictColour(model: number[][], a: Float32Array, cell: number, c: number): number {
  const f = colourFeatures(a, cell, c, scratch);
  const w = model[c] as number[];
  let sum = 0;
  for (let k = 0; k < FEATURES; k++) sum += (w[k] as number) * (f[k] as number);
  return 255 * sum;
}

/** How far (RGB levels) cell `cell` of `b` lies from what the model predicts from `a`. */
export function colourResidual(model: number[][], a: Float32Array, b: Float32Array, cell: number): number {
  return Math.hypot(
    (b[cell * 3] as number) - predictColour(model, a, cell, 0),
    (b[cell * 3 + 1] as number) - predictColour(model, a, cell, 1),
    (b[cell * 3 + 2] as number) - predictColour(model, a, cell, 2),
  );
}

/** Per channel, the weights of colourFeatures fitted to `cells` (iteratively reweighted, Tukey's biweight). */
export function fitColourModel(a: Float32Array, b: Float32Array, cells: number[]): number[][] {
  const model: number[][] = [0, 1, 2].map((c) => [0, c === 0 ? 1 : 0, c === 1 ? 1 : 0, c === 2 ? 1 : 0, 0, 0]);
  const weights = new Float64Array(cells.length).fill(1);
  const n = FEATURES;
  const f = new Float64Array(n);
  const ata = new Float64Array(n * n);
  const atb = new Float64Array(n);
  const residuals = new Float64Array(cells.length);
  for (let round = 0; round < 5; round++) {
    for (let c = 0; c < 3; c++) {
      ata.fill(0);
      atb.fill(0);
      for (let i = 0; i < cells.length; i++) {
        const w = weights[i] as number;
        if (w <= 0) continue;
        const cell = cells[i] as number;
        colourFeatures(a, cell, c, f);
        const y = (b[cell * 3 + c] as number) / 255;
        for (let p = 0; p < n; p++) {
          atb[p] = (atb[p] as number) + w * (f[p] as number) * y;
          for (let q = 0; q < n; q++)
            ata[p * n + q] = (ata[p * n + q] as number) + w * (f[p] as number) * (f[q] as number);
        }
      }
      for (let p = 0; p < n; p++) ata[p * n + p] = (ata[p * n + p] as number) + 1e-6;
      const solved = solve(ata, atb, n);
      if (solved) model[c] = solved;
    }
    for (let i = 0; i < cells.length; i++) residuals[i] = colourResidual(model, a, b, cells[i] as number);
    const sorted = Float64Array.from(residuals).sort();
    const scale = Math.max(4, 4.685 * 1.4826 * (sorted[Math.floor(sorted.length / 2)] as number));
    for (let i = 0; i < cells.length; i++) {
      const u = (residuals[i] as number) / scale;
      weights[i] = u >= 1 ? 0 : (1 - u * u) ** 2;
    }
  }
  return model;
}

/** Gaussian elimination with partial pivoting; null when the system is singular. */
function solve(matrix: Float64Array, vector: Float64Array, n: number): number[] | null {
  const m = Float64Array.from(matrix);
  const v = Float64Array.from(vector);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let row = col + 1; row < n; row++)
      if (Math.abs(m[row * n + col] as number) > Math.abs(m[pivot * n + col] as number)) pivot = row;
    if (Math.abs(m[pivot * n + col] as number) < 1e-12) return null;
    for (let k = 0; k < n; k++) {
      const t = m[col * n + k] as number;
      m[col * n + k] = m[pivot * n + k] as number;
      m[pivot * n + k] = t;
    }
    const t = v[col] as number;
    v[col] = v[pivot] as number;
    v[pivot] = t;
    for (let row = col + 1; row < n; row++) {
      const factor = (m[row * n + col] as number) / (m[col * n + col] as number);
      for (let k = col; k < n; k++) m[row * n + k] = (m[row * n + k] as number) - factor * (m[col * n + k] as number);
      v[row] = (v[row] as number) - factor * (v[col] as number);
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let row = n - 1; row >= 0; row--) {
    let sum = v[row] as number;
    for (let k = row + 1; k < n; k++) sum -= (m[row * n + k] as number) * (x[k] as number);
    x[row] = sum / (m[row * n + row] as number);
  }
  return x;
}
