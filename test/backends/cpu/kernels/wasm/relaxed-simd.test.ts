import { afterEach, describe, expect, it, vi } from 'vitest';
import { gemm, packB } from '../../../../../src/backends/cpu/kernels/gemm.ts';
import { simdEngine } from '../../../../../src/backends/cpu/kernels/wasm/engine.ts';
import { relaxedSimd, setRelaxedSimdEnabled } from '../../../../../src/backends/cpu/kernels/wasm/relaxed-simd.ts';
import { expectClose, randomArray, rng } from '../helpers.ts';

/** C = A * B + bias by the staged engine's gemm, and in float64 by definition. */
function product(seed: number): { got: Float32Array; want: Float64Array } {
  const random = rng(seed);
  const [M, K, N] = [9, 301, 19];
  const a = randomArray(M * K, random);
  const b = randomArray(K * N, random);
  const bias = randomArray(N, random);
  const got = new Float32Array(M * N);
  gemm(a, 0, K, M, packB(b, 0, K, N, N, 1), bias, 0, got, 0, N, -Infinity, Infinity);
  const want = new Float64Array(M * N);
  for (let i = 0; i < M; i++)
    for (let j = 0; j < N; j++) {
      let sum = bias[j];
      for (let k = 0; k < K; k++) sum += a[i * K + k] * b[k * N + j];
      want[i * N + j] = sum;
    }
  return { got, want };
}

describe('relaxed SIMD', () => {
  afterEach(() => setRelaxedSimdEnabled(true));

  it("is on in this Node (V8's flag turned on in the process), and off when asked", () => {
    expect(relaxedSimd()).toBe(true);
    expect(simdEngine()?.relaxed).toBe(true);
    setRelaxedSimdEnabled(false);
    expect(relaxedSimd()).toBe(false);
    expect(simdEngine()?.relaxed).toBe(false);
  });

  it('fused and plain kernels both compute the product to float32 rounding', () => {
    const fused = product(3);
    setRelaxedSimdEnabled(false);
    const plain = product(3);
    expectClose(fused.got, fused.want, 1e-5, 'relaxed SIMD gemm');
    expectClose(plain.got, plain.want, 1e-5, 'plain SIMD gemm');
  });

  it('MEMPLAN_RELAXED_SIMD=0 keeps plain SIMD in a process started with it', async () => {
    vi.stubEnv('MEMPLAN_RELAXED_SIMD', '0');
    vi.resetModules();
    try {
      const fresh = await import('../../../../../src/backends/cpu/kernels/wasm/relaxed-simd.ts');
      expect(fresh.relaxedSimd()).toBe(false);
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });
});
