import { describe, expect, it } from 'vitest';
import { BackendError } from '../../../src/backends/backend-error.ts';
import type { KernelCall } from '../../../src/backends/cpu/kernel.ts';
import { StepPool } from '../../../src/backends/cpu-parallel/worker-pool.ts';

const shared = (values: number[]): Float32Array => {
  const array = new Float32Array(new SharedArrayBuffer(values.length * 4));
  array.set(values);
  return array;
};

/** out = a + b, elementwise, on views of shared memory. */
function add(name: string, a: Float32Array, b: Float32Array, out: Float32Array): KernelCall {
  return { node: { op: 'Add', activation: 'none', name, inputs: ['a', 'b'], outputs: [name] }, layout: 'NHWC', inputs: [a, b], inputShapes: [[a.length], [b.length]], output: out, outputShape: [out.length] };
}

describe('the step pool', () => {
  it("runs the steps in order, each after the last one's operators are all done", async () => {
    // Four operators per step, each reading what an operator of the step before wrote.
    const one = shared([1, 1]);
    const layers = Array.from({ length: 6 }, () => Array.from({ length: 4 }, () => shared([0, 0])));
    const calls = layers.flatMap((layer, s) => layer.map((out, k) => add(`s${s}k${k}`, s === 0 ? one : layers[s - 1][(k + 1) % 4], one, out)));
    const steps = layers.map((_, s) => [0, 1, 2, 3].map((k) => s * 4 + k));
    const pool = await StepPool.start(calls, steps, 3);
    try {
      const run = await pool.run();
      // Step s writes s + 2 everywhere: 1 + 1, then one more per step.
      layers.forEach((layer, s) => layer.forEach((out) => expect([...out]).toEqual([s + 2, s + 2])));
      expect(run.stepMs).toHaveLength(6);
      expect(run.busyMs).toHaveLength(3);
      expect(pool.workers).toBe(3);
    } finally {
      await pool.close();
    }
  });

  it("reports an operator that throws as the step's error, naming the node, and runs again afterwards", async () => {
    // The second call's input is shorter than the shape it declares.
    const broken = { ...add('broken', shared([1, 2]), shared([3]), shared([0])), inputShapes: [[3], [1]] };
    const calls = [add('fine', shared([1]), shared([2]), shared([0])), broken];
    const pool = await StepPool.start(calls, [[0, 1]], 2);
    try {
      for (let k = 0; k < 2; k++) {
        const error = await pool.run().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(BackendError);
        expect((error as Error).message).toMatch(/^node broken \(Add\) failed on worker \d: node broken \(Add\): input 0 has 2 elements, expected 3/);
      }
      expect([...calls[0].output]).toEqual([3]);
    } finally {
      await pool.close();
    }
  });

  it('refuses to run once closed instead of waiting for workers that are gone', async () => {
    const pool = await StepPool.start([add('a', shared([1]), shared([1]), shared([0]))], [[0]], 1);
    await pool.close();
    await expect(pool.run()).rejects.toThrow(/the cpu-parallel pool is closed/);
  });
});
