import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BackendError } from '../../src/backends/backend-error.ts';
import { weightedGraph } from '../../src/backends/run-data.ts';
import type { Graph, Tensor } from '../../src/graph/ir.ts';
import { memplan } from '../cli/run-memplan.ts';

/** A graph of nothing but constants: weightedGraph only looks at those. */
const graphOf = (...constants: Omit<Tensor, 'constant' | 'shape'>[]): Graph =>
  ({
    name: 'net',
    layout: 'NHWC',
    inputs: [],
    outputs: [],
    nodes: [],
    tensors: new Map(constants.map((t) => [t.name, { ...t, shape: [t.data?.byteLength ?? 0], constant: true }])),
  }) as unknown as Graph;

describe("weightedGraph with the file's own weights", () => {
  it("keeps float32 weights as they are and gives a float model's integer constants (paddings, sizes) as float32", () => {
    const weights = new Float32Array([0.5, -1.25]);
    const graph = weightedGraph(
      graphOf(
        { name: 'w', dtype: 'float32', data: weights },
        { name: 'pads', dtype: 'int32', data: new Int32Array([0, 1, 2, -3]) },
        { name: 'shape', dtype: 'int64', data: new BigInt64Array([1n, -1n]) },
      ),
      'file',
      1,
    );
    expect(graph.tensors.get('w')?.data).toBe(weights);
    expect(Array.from(graph.tensors.get('pads')?.data as Float32Array)).toEqual([0, 1, 2, -3]);
    expect(graph.tensors.get('shape')?.data).toEqual(new Float32Array([1, -1]));
  });

  it('refuses a quantized model, integers float32 cannot hold, and a constant without values, each in one sentence', () => {
    const refuse = (graph: Graph): string => {
      try {
        weightedGraph(graph, 'file', 1);
      } catch (error) {
        expect(error).toBeInstanceOf(BackendError);
        return (error as Error).message;
      }
      throw new Error('weightedGraph accepted it');
    };
    expect(refuse(graphOf({ name: 'w', dtype: 'uint8', data: new Uint8Array([3]) }, { name: 'bias', dtype: 'int32', data: new Int32Array([7]) }))).toBe(
      'net: the model is quantized (constant w holds uint8 values), and the executors run float32 without dequantizing: run with seeded weights.',
    );
    expect(refuse(graphOf({ name: 'big', dtype: 'int32', data: new Int32Array([2 ** 24 + 1]) }))).toBe(
      'net: constant big holds int32 values beyond 2^24, which float32 does not hold exactly; run with seeded weights.',
    );
    expect(refuse(graphOf({ name: 'empty', dtype: 'float32' }))).toBe('net: constant empty has no values in the file; run with seeded weights.');
  });
});

const FACE = '../shared/reference-models/face_detection_front.tflite';
if (!existsSync(FACE)) console.warn(`test/backends/run-data.test.ts: skipping the real model: ${FACE} is absent (the shared folder is not checked out).`);

describe.skipIf(!existsSync(FACE))('a real float model with its own weights', () => {
  it("runs BlazeFace's .tflite (int32 paddings among its constants) inside Greedy by Size, outputs bit-identical to the naive plan", async () => {
    const run = await memplan('exec', FACE, '--weights', 'file', '--repetitions', '1', '--warmup', '0', '--json');
    expect(run.status, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { matchesNaive: boolean }).matchesNaive).toBe(true);
  });
});
