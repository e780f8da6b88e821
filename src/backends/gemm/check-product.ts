import { mulberry32 } from '../../core/synthetic.ts';
import { element, openMatrix, tileOffset } from './matrix-files.ts';
import type { GemmShape } from './gemm-shape.ts';

/** How far C is from the product, and how that was checked. */
export interface ProductCheck {
  /** 'full': every entry against an in-memory float64 product; 'sampled': random entries recomputed in float64. */
  readonly kind: 'full' | 'sampled';
  readonly entries: number;
  /**
   * full: max |C - exact| / max |exact|; sampled: max over entries of |C - exact| divided by
   * the sum of |A(i,k) B(k,j)| (the scale a float32 dot product's error is bounded by).
   */
  readonly maxError: number;
  readonly tolerance: number;
  readonly within: boolean;
}

/** The largest n checked in full (an O(n^3) float64 product in JavaScript). */
export const FULL_CHECK_MAX_N = 512;
export const FULL_TOLERANCE = 1e-5;
export const SAMPLED_TOLERANCE = 1e-4;

/** Reads C(row, col) from the tile-major C file. */
async function readEntries(dir: string, shape: GemmShape, positions: readonly (readonly [number, number])[]): Promise<Float32Array> {
  const file = await openMatrix(dir, 'C', 'read', false);
  const out = new Float32Array(positions.length);
  const word = new Float32Array(1);
  try {
    for (const [k, [row, col]] of positions.entries()) {
      const tile = { matrix: 'C' as const, r: Math.floor(row / shape.tile), c: Math.floor(col / shape.tile) };
      const within = ((row % shape.tile) * shape.tile + (col % shape.tile)) * 4;
      await file.read(new Uint8Array(word.buffer), 0, 4, tileOffset(shape, tile) + within);
      out[k] = word[0];
    }
  } finally {
    await file.close();
  }
  return out;
}

/** The whole C file as a row-major n x n matrix (small n only). */
async function readAll(dir: string, shape: GemmShape): Promise<Float32Array> {
  const { n, tile, tiles } = shape;
  const file = await openMatrix(dir, 'C', 'read', false);
  const tileMajor = new Float32Array(n * n);
  try {
    await file.read(new Uint8Array(tileMajor.buffer), 0, tileMajor.byteLength, 0);
  } finally {
    await file.close();
  }
  const out = new Float32Array(n * n);
  for (let r = 0; r < tiles; r++) {
    for (let c = 0; c < tiles; c++) {
      const base = (r * tiles + c) * tile * tile;
      for (let y = 0; y < tile; y++) out.set(tileMajor.subarray(base + y * tile, base + (y + 1) * tile), (r * tile + y) * n + c * tile);
    }
  }
  return out;
}

/**
 * Checks the C file against the seeded A and B: in full up to n = 512 (relative error
 * 1e-5), else 256 random entries in float64 (1e-4 of their dot products' scale).
 */
export async function checkProduct(dir: string, shape: GemmShape, seed: number, samples = 256): Promise<ProductCheck> {
  const { n } = shape;
  if (n <= FULL_CHECK_MAX_N) {
    const a = new Float64Array(n * n);
    const b = new Float64Array(n * n);
    for (let r = 0; r < n; r++)
      for (let c = 0; c < n; c++) {
        a[r * n + c] = element(seed, 'A', r, c);
        b[r * n + c] = element(seed, 'B', r, c);
      }
    const got = await readAll(dir, shape);
    let worst = 0;
    let scale = 0;
    const row = new Float64Array(n);
    for (let r = 0; r < n; r++) {
      row.fill(0);
      for (let k = 0; k < n; k++) {
        const x = a[r * n + k];
        for (let c = 0; c < n; c++) row[c] += x * b[k * n + c];
      }
      for (let c = 0; c < n; c++) {
        worst = Math.max(worst, Math.abs(got[r * n + c] - row[c]));
        scale = Math.max(scale, Math.abs(row[c]));
      }
    }
    const maxError = scale === 0 ? worst : worst / scale;
    return { kind: 'full', entries: n * n, maxError, tolerance: FULL_TOLERANCE, within: maxError <= FULL_TOLERANCE };
  }
  const random = mulberry32(seed ^ 0xc4ec4);
  const positions = Array.from({ length: samples }, () => [Math.floor(random() * n), Math.floor(random() * n)] as const);
  const got = await readEntries(dir, shape, positions);
  let maxError = 0;
  positions.forEach(([r, c], k) => {
    let exact = 0;
    let magnitude = 0;
    for (let q = 0; q < n; q++) {
      const product = element(seed, 'A', r, q) * element(seed, 'B', q, c);
      exact += product;
      magnitude += Math.abs(product);
    }
    maxError = Math.max(maxError, magnitude === 0 ? Math.abs(got[k] - exact) : Math.abs(got[k] - exact) / magnitude);
  });
  return { kind: 'sampled', entries: samples, maxError, tolerance: SAMPLED_TOLERANCE, within: maxError <= SAMPLED_TOLERANCE };
}
