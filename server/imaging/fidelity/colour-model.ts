/**
 * The one colour and tone change a whole picture agrees on (white balance, exposure, contrast, saturation, gamma):
 * per output channel, an affine mix of the photo's three channels plus a curve of its own, fitted robustly.
 */

/** The picture-wide colour model's features of one cell for output channel `c`: 1, r, g, b, and c's own square. */
function colourFeatures(a: Float32Array, cell: number, c: number): number[] {
  const r = (a[cell * 3] as number) / 255;
  const g = (a[cell * 3 + 1] as number) / 255;
  const b = (a[cell * 3 + 2] as number) / 255;
  const own = (a[cell * 3 + c] as number) / 255;
  return [1, r, g, b, own * own];
}

export function predictColour(model: number[][], a: Float32Array, cell: number, c: number): number {
  const f = colourFeatures(a, cell, c);
  const w = model[c] as number[];
  let sum = 0;
  for (let k = 0; k < f.length; k++) sum += (w[k] as number) * (f[k] as number);
  return 255 * sum;
}

/** Per channel, the weights of colourFeatures fitted to `cells` (iteratively reweighted, Tukey's biweight). */
export function fitColourModel(a: Float32Array, b: Float32Array, cells: number[]): number[][] {
  const model: number[][] = [0, 1, 2].map((c) => [0, c === 0 ? 1 : 0, c === 1 ? 1 : 0, c === 2 ? 1 : 0, 0]);
  const weights = new Float64Array(cells.length).fill(1);
  for (let round = 0; round < 5; round++) {
    for (let c = 0; c < 3; c++) {
      const n = 5;
      const ata = new Float64Array(n * n);
      const atb = new Float64Array(n);
      cells.forEach((cell, i) => {
        const w = weights[i] as number;
        if (w <= 0) return;
        const f = colourFeatures(a, cell, c);
        const y = (b[cell * 3 + c] as number) / 255;
        for (let p = 0; p < n; p++) {
          atb[p] = (atb[p] as number) + w * (f[p] as number) * y;
          for (let q = 0; q < n; q++)
            ata[p * n + q] = (ata[p * n + q] as number) + w * (f[p] as number) * (f[q] as number);
        }
      });
      for (let p = 0; p < n; p++) ata[p * n + p] = (ata[p * n + p] as number) + 1e-6;
      const solved = solve(ata, atb, n);
      if (solved) model[c] = solved;
    }
    const residuals = cells.map((cell) =>
      Math.hypot(...[0, 1, 2].map((c) => (b[cell * 3 + c] as number) - predictColour(model, a, cell, c))),
    );
    const sorted = [...residuals].sort((p, q) => p - q);
    const scale = Math.max(4, 4.685 * 1.4826 * (sorted[Math.floor(sorted.length / 2)] as number));
    residuals.forEach((r, i) => {
      const u = r / scale;
      weights[i] = u >= 1 ? 0 : (1 - u * u) ** 2;
    });
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
