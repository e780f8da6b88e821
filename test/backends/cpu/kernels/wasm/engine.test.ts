import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BackendError } from '../../../../../src/backends/backend-error.ts';
import { gemm, packB, packedLength, PANEL } from '../../../../../src/backends/cpu/kernels/gemm.ts';
import { type SimdEngine, sharedMemory, simdEngineOn } from '../../../../../src/backends/cpu/kernels/wasm/engine.ts';
import { randomArray, rng } from '../helpers.ts';

/**
 * An MxK by KxN product on the engine, its operands laid out by hand after the kernels'
 * 64-byte area (A, B's panels, the padded bias, then C with `gap` floats between its rows,
 * NaN before the call), against the TypeScript kernel into the same layout: C as both give
 * it, gaps included, and the 8 floats after C's last row.
 */
function product(engine: SimdEngine, [M, K, N]: readonly [number, number, number], gap: number, seed: number, [lo, hi]: readonly [number, number]) {
  const random = rng(seed);
  const a = randomArray(M * K, random);
  const packed = packB(randomArray(K * N, random), 0, K, N, N, 1);
  const bias = randomArray(N, random);
  const ldc = N + gap;
  const heap = engine.heap();
  const aAt = 16;
  const bAt = aAt + M * K;
  const biasAt = bAt + packedLength(K, N);
  const cAt = biasAt + Math.ceil(N / PANEL) * PANEL;
  heap.set(a, aAt);
  heap.set(packed.data, bAt);
  heap.set(bias, biasAt);
  heap.fill(0, biasAt + N, cAt);
  heap.fill(Number.NaN, cAt, cAt + M * ldc + 8);
  engine.gemm(aAt, K, M, bAt, K, N, biasAt, cAt, ldc, lo, hi);
  const expected = new Float32Array(M * ldc).fill(Number.NaN);
  gemm(a, 0, K, M, packed, bias, 0, expected, 0, ldc, lo, hi);
  return { got: heap.slice(cAt, cAt + M * ldc), expected, after: [...heap.subarray(cAt + M * ldc, cAt + M * ldc + 8)] };
}

describe('the SIMD kernels on a memory the caller owns', () => {
  it('says that a memory beyond wasm32 is too large, not that the runtime lacks shared memory', () => {
    expect(() => sharedMemory(65537)).toThrow(BackendError);
    expect(() => sharedMemory(65537)).toThrow('a WebAssembly memory holds at most 65536 pages of 64 KiB (4 GiB); 65537 pages were asked for.');
  });

  it('compute in a shared memory of fixed size, with operands where they lie, exactly what the staged engine computes', () => {
    const memory = sharedMemory(2);
    expect(memory?.buffer).toBeInstanceOf(SharedArrayBuffer);
    const engine = simdEngineOn(memory!)!;
    const { got, expected } = product(engine, [13, 37, 21], 0, 11, [0, Infinity]);
    expect(expected.every(Number.isFinite)).toBe(true);
    expect(got).toEqual(expected);
    // The memory never grew: it is the buffer the caller sized.
    expect(engine.memoryBytes()).toBe(2 * 65536);
  });

  it('write the n columns of C asked for and nothing between its rows, for every width of the last panel (fast-check)', () => {
    const engine = simdEngineOn(sharedMemory(2)!)!;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 27 }), fc.integer({ min: 0, max: 5 }), fc.nat(), (M, K, N, gap, seed) => {
        const { got, expected, after } = product(engine, [M, K, N], gap, seed, [-1, 1]);
        expect(got).toEqual(expected);
        expect(after.every(Number.isNaN)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
