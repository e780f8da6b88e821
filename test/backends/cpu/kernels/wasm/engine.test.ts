import { describe, expect, it } from 'vitest';
import { BackendError } from '../../../../../src/backends/backend-error.ts';
import { gemm, packB, packedLength, PANEL } from '../../../../../src/backends/cpu/kernels/gemm.ts';
import { sharedMemory, simdEngineOn } from '../../../../../src/backends/cpu/kernels/wasm/engine.ts';
import { randomArray, rng } from '../helpers.ts';

describe('the SIMD kernels on a memory the caller owns', () => {
  it('says that a memory beyond wasm32 is too large, not that the runtime lacks shared memory', () => {
    expect(() => sharedMemory(65537)).toThrow(BackendError);
    expect(() => sharedMemory(65537)).toThrow('a WebAssembly memory holds at most 65536 pages of 64 KiB (4 GiB); 65537 pages were asked for.');
  });

  it('compute in a shared memory of fixed size, with operands where they lie, exactly what the staged engine computes', () => {
    const memory = sharedMemory(2);
    expect(memory?.buffer).toBeInstanceOf(SharedArrayBuffer);
    const engine = simdEngineOn(memory!)!;
    const random = rng(11);
    const [M, K, N] = [13, 37, 21];
    const a = randomArray(M * K, random);
    const packed = packB(randomArray(K * N, random), 0, K, N, N, 1);
    const bias = randomArray(N, random);
    // Operands laid out by hand after the kernels' 64-byte area: A, B's panels, the padded bias, C.
    const heap = engine.heap();
    const aAt = 16;
    const bAt = aAt + M * K;
    const biasAt = bAt + packedLength(K, N);
    const cAt = biasAt + Math.ceil(N / PANEL) * PANEL;
    heap.set(a, aAt);
    heap.set(packed.data, bAt);
    heap.set(bias, biasAt);
    heap.fill(0, biasAt + N, cAt);
    engine.gemm(aAt, K, M, bAt, K, N, biasAt, cAt, N, 0, Infinity);
    const expected = new Float32Array(M * N);
    gemm(a, 0, K, M, packed, bias, 0, expected, 0, N, 0, Infinity);
    expect(expected.every(Number.isFinite)).toBe(true);
    expect(heap.subarray(cAt, cAt + M * N)).toEqual(expected);
    // The memory never grew: it is the buffer the caller sized.
    expect(engine.memoryBytes()).toBe(2 * 65536);
  });
});
