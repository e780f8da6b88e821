import { simdEngine, type SimdEngine } from './wasm/engine.ts';

/**
 * The matrix product every heavy kernel ends in (1x1 and im2col convolutions,
 * FullyConnected, MatMul, Gemm):
 *
 *   C[i, j] = clamp(bias[j] + sum_k A[i, k] * B[k, j], lo, hi)     i < M, j < N, k < K
 *
 * A is float32, row-major with a row stride (an NHWC activation is already such a matrix:
 * one row per pixel); B is packed once into panels of 8 columns; C is float32 with a row
 * stride (so a group of a grouped convolution writes its channels straight into the NHWC
 * output).
 *
 * Two engines compute it: the WebAssembly SIMD kernel (wasm/engine.ts; operands staged into
 * its memory in row chunks that stay in cache) and, where that is unavailable, the plain
 * loop below, which keeps a 4x4 block of C in locals (8 loads per 16 multiply-adds) and
 * accumulates in float64. The SIMD kernel accumulates in float32.
 */

export const PANEL = 8;

export interface PackedB {
  readonly k: number;
  readonly n: number;
  /** Panel p holds columns 8p..8p+7: data[p*8*k + kk*8 + q] = B[kk, 8p + q] (zero past n). */
  readonly data: Float32Array;
}

export function packedLength(k: number, n: number): number {
  return Math.ceil(n / PANEL) * PANEL * k;
}

/**
 * Packs B[kk, j] = scale * src[offset + kk*strideK + j*strideN] (kk < k, j < n) into
 * `into` (or a new array).
 */
export function packB(src: Float32Array, offset: number, k: number, n: number, strideK: number, strideN: number, scale = 1, into?: Float32Array): PackedB {
  const length = packedLength(k, n);
  const data = into ?? new Float32Array(length);
  if (data.length < length) throw new Error(`packB: buffer of ${data.length} for ${length} values.`);
  const panels = Math.ceil(n / PANEL);
  for (let p = 0; p < panels; p++) {
    const base = p * PANEL * k;
    for (let q = 0; q < PANEL; q++) {
      const j = p * PANEL + q;
      if (j < n) {
        let s = offset + j * strideN;
        for (let kk = 0; kk < k; kk++, s += strideK) data[base + kk * PANEL + q] = src[s] * scale;
      } else {
        for (let kk = 0; kk < k; kk++) data[base + kk * PANEL + q] = 0;
      }
    }
  }
  return { k, n, data };
}

/**
 * C = clamp(A * B + bias) as above. `bias` must hold N values from `biasOffset` (pass a
 * zero buffer when there is none). C's written region must not overlap A or bias.
 */
export function gemm(
  A: Float32Array,
  aOffset: number,
  lda: number,
  M: number,
  B: PackedB,
  bias: Float32Array,
  biasOffset: number,
  C: Float32Array,
  cOffset: number,
  ldc: number,
  lo: number,
  hi: number,
): void {
  if (M === 0 || B.n === 0) return;
  const engine = simdEngine();
  if (engine !== undefined && B.k > 0) gemmSimd(engine, A, aOffset, lda, M, B, bias, biasOffset, C, cOffset, ldc, lo, hi);
  else gemmScalar(A, aOffset, lda, M, B, bias, biasOffset, C, cOffset, ldc, lo, hi);
}

/** Rows per chunk so that a chunk of A and of C together hold about 64K floats (a multiple of 4). */
export function chunkRows(k: number, n: number, rows: number): number {
  return Math.min(rows, Math.max(4, Math.floor(65536 / Math.max(1, k + n)) & ~3));
}

/** Copies B's panels and bias (padded with zeros to whole panels) into engine memory at bOffset / biasOffset. */
export function stageWeights(heap: Float32Array, B: PackedB, bOffset: number, bias: Float32Array, biasOffset: number, heapBias: number): void {
  heap.set(B.data.length === packedLength(B.k, B.n) ? B.data : B.data.subarray(0, packedLength(B.k, B.n)), bOffset);
  const padded = Math.ceil(B.n / PANEL) * PANEL;
  for (let j = 0; j < B.n; j++) heap[heapBias + j] = bias[biasOffset + j];
  for (let j = B.n; j < padded; j++) heap[heapBias + j] = 0;
}

function gemmSimd(
  engine: SimdEngine,
  A: Float32Array,
  aOffset: number,
  lda: number,
  M: number,
  B: PackedB,
  bias: Float32Array,
  biasOffset: number,
  C: Float32Array,
  cOffset: number,
  ldc: number,
  lo: number,
  hi: number,
): void {
  const K = B.k;
  const N = B.n;
  const chunk = chunkRows(K, N, M);
  const arena = engine.arena();
  const bAt = arena.alloc(packedLength(K, N));
  const biasAt = arena.alloc(Math.ceil(N / PANEL) * PANEL);
  const aAt = arena.alloc(chunk * K);
  const cAt = arena.alloc(chunk * N);
  const heap = arena.commit();
  stageWeights(heap, B, bAt, bias, biasOffset, biasAt);
  for (let r0 = 0; r0 < M; r0 += chunk) {
    const rows = Math.min(chunk, M - r0);
    const a0 = aOffset + r0 * lda;
    if (lda === K) {
      heap.set(A.subarray(a0, a0 + rows * K), aAt);
    } else {
      for (let i = 0; i < rows; i++) for (let kk = 0, s = a0 + i * lda, d = aAt + i * K; kk < K; kk++) heap[d + kk] = A[s + kk];
    }
    engine.gemm(aAt, K, rows, bAt, K, N, biasAt, cAt, N, lo, hi);
    const c0 = cOffset + r0 * ldc;
    if (ldc === N) {
      C.set(heap.subarray(cAt, cAt + rows * N), c0);
    } else {
      for (let i = 0; i < rows; i++) for (let j = 0, s = cAt + i * N, d = c0 + i * ldc; j < N; j++) C[d + j] = heap[s + j];
    }
  }
}

/** Float32 values of packed B per k of one half panel (4 columns) sit PANEL apart. */
const HALF = 4;

/** The plain TypeScript product (the engine where WebAssembly SIMD is missing). */
export function gemmScalar(
  A: Float32Array,
  aOffset: number,
  lda: number,
  M: number,
  B: PackedB,
  bias: Float32Array,
  biasOffset: number,
  C: Float32Array,
  cOffset: number,
  ldc: number,
  lo: number,
  hi: number,
): void {
  const K = B.k;
  const N = B.n;
  const P = B.data;
  const halves = Math.ceil(N / HALF);
  // Float64 locals: a bound left as a tagged number would box every stored result.
  lo = Math.fround(lo);
  hi = Math.fround(hi);
  let m = 0;
  for (; m + 4 <= M; m += 4) {
    const a0 = aOffset + m * lda;
    const a1 = a0 + lda;
    const a2 = a1 + lda;
    const a3 = a2 + lda;
    const cRow = cOffset + m * ldc;
    for (let half = 0; half < halves; half++) {
      const n0 = half * HALF;
      const nv = N - n0;
      const bo = biasOffset + n0;
      const b0 = bias[bo];
      const b1 = nv > 1 ? bias[bo + 1] : 0;
      const b2 = nv > 2 ? bias[bo + 2] : 0;
      const b3 = nv > 3 ? bias[bo + 3] : 0;
      let c00 = b0,
        c01 = b1,
        c02 = b2,
        c03 = b3;
      let c10 = b0,
        c11 = b1,
        c12 = b2,
        c13 = b3;
      let c20 = b0,
        c21 = b1,
        c22 = b2,
        c23 = b3;
      let c30 = b0,
        c31 = b1,
        c32 = b2,
        c33 = b3;
      let p = (half >> 1) * PANEL * K + (half & 1) * HALF;
      for (let k = 0; k < K; k++, p += PANEL) {
        const x0 = A[a0 + k];
        const x1 = A[a1 + k];
        const x2 = A[a2 + k];
        const x3 = A[a3 + k];
        let w = P[p];
        c00 += x0 * w;
        c10 += x1 * w;
        c20 += x2 * w;
        c30 += x3 * w;
        w = P[p + 1];
        c01 += x0 * w;
        c11 += x1 * w;
        c21 += x2 * w;
        c31 += x3 * w;
        w = P[p + 2];
        c02 += x0 * w;
        c12 += x1 * w;
        c22 += x2 * w;
        c32 += x3 * w;
        w = P[p + 3];
        c03 += x0 * w;
        c13 += x1 * w;
        c23 += x2 * w;
        c33 += x3 * w;
      }
      const o = cRow + n0;
      if (nv >= 4) {
        store4(C, o, c00, c01, c02, c03, lo, hi);
        store4(C, o + ldc, c10, c11, c12, c13, lo, hi);
        store4(C, o + 2 * ldc, c20, c21, c22, c23, lo, hi);
        store4(C, o + 3 * ldc, c30, c31, c32, c33, lo, hi);
      } else {
        storePartial(C, o, nv, c00, c01, c02, lo, hi);
        storePartial(C, o + ldc, nv, c10, c11, c12, lo, hi);
        storePartial(C, o + 2 * ldc, nv, c20, c21, c22, lo, hi);
        storePartial(C, o + 3 * ldc, nv, c30, c31, c32, lo, hi);
      }
    }
  }
  for (; m < M; m++) gemmRow(A, aOffset + m * lda, B, bias, biasOffset, C, cOffset + m * ldc, lo, hi);
}

function gemmRow(A: Float32Array, a: number, B: PackedB, bias: Float32Array, biasOffset: number, C: Float32Array, cRow: number, lo: number, hi: number): void {
  const K = B.k;
  const N = B.n;
  const P = B.data;
  const halves = Math.ceil(N / HALF);
  for (let half = 0; half < halves; half++) {
    const n0 = half * HALF;
    const nv = N - n0;
    const bo = biasOffset + n0;
    let c0 = bias[bo];
    let c1 = nv > 1 ? bias[bo + 1] : 0;
    let c2 = nv > 2 ? bias[bo + 2] : 0;
    let c3 = nv > 3 ? bias[bo + 3] : 0;
    let p = (half >> 1) * PANEL * K + (half & 1) * HALF;
    for (let k = 0; k < K; k++, p += PANEL) {
      const x = A[a + k];
      c0 += x * P[p];
      c1 += x * P[p + 1];
      c2 += x * P[p + 2];
      c3 += x * P[p + 3];
    }
    if (nv >= 4) store4(C, cRow + n0, c0, c1, c2, c3, lo, hi);
    else storePartial(C, cRow + n0, nv, c0, c1, c2, lo, hi);
  }
}

function store4(C: Float32Array, o: number, v0: number, v1: number, v2: number, v3: number, lo: number, hi: number): void {
  C[o] = v0 < lo ? lo : v0 > hi ? hi : v0;
  C[o + 1] = v1 < lo ? lo : v1 > hi ? hi : v1;
  C[o + 2] = v2 < lo ? lo : v2 > hi ? hi : v2;
  C[o + 3] = v3 < lo ? lo : v3 > hi ? hi : v3;
}

/** The first nv (1..3) of a row's 4 results. */
function storePartial(C: Float32Array, o: number, nv: number, v0: number, v1: number, v2: number, lo: number, hi: number): void {
  C[o] = v0 < lo ? lo : v0 > hi ? hi : v0;
  if (nv > 1) C[o + 1] = v1 < lo ? lo : v1 > hi ? hi : v1;
  if (nv > 2) C[o + 2] = v2 < lo ? lo : v2 > hi ? hi : v2;
}
