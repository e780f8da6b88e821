import { describe, expect, it } from 'vitest';
import { cpuBackend } from '../../../src/backends/cpu/cpu-backend.ts';
import { executionRecords } from '../../../src/backends/execution-records.ts';
import { relativeError } from '../../../src/measuring/peer-session.ts';
import { webgpuBackend } from '../../../src/backends/webgpu/webgpu-backend.ts';
import type { Graph, Layout, Node, OpSpec, Tensor } from '../../../src/graph/ir.ts';
import { graphToProblem } from '../../../src/graph/lifetimes.ts';
import { inferOutputShapes } from '../../../src/graph/shape-inference.ts';
import { mulberry32 } from '../../../src/core/synthetic.ts';
import { planAndVerify } from '../../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../../src/planners/registry.ts';
import { webgpuAvailable } from './adapter.ts';

const available = await webgpuAvailable('test/backends/webgpu/webgpu-kernels.test.ts');

/** An input of a one-op graph: an activation (a graph input) or a constant with values. */
type In = { readonly shape: readonly number[]; readonly constant?: boolean } | undefined;

function values(n: number, random: () => number, scale: number): Float32Array {
  const out = new Float32Array(n);
  for (let k = 0; k < n; k++) out[k] = (random() * 2 - 1) * scale;
  return out;
}

const count = (shape: readonly number[]): number => shape.reduce((p, d) => p * d, 1);

/**
 * Runs one op on both backends (graph inputs and output planned inside an offsets arena) and
 * returns the relative difference: largest difference over the largest magnitude.
 */
async function compare(spec: OpSpec, inputs: readonly In[], layout: Layout = 'NHWC', seed = 1, inputNames?: readonly string[]): Promise<number> {
  const random = mulberry32(seed);
  const tensors = new Map<string, Tensor>();
  const names = inputNames ?? inputs.map((input, k) => (input === undefined ? '' : `x${k}`));
  const feeds = new Map<string, Float32Array>();
  inputs.forEach((input, k) => {
    if (input === undefined || tensors.has(names[k])) return;
    const data = values(count(input.shape), random, input.constant ? 0.5 : 2);
    tensors.set(names[k], { name: names[k], shape: input.shape, dtype: 'float32', constant: input.constant ?? false, ...(input.constant ? { data } : {}) });
    if (!input.constant) feeds.set(names[k], data);
  });
  const node = { ...spec, name: `test-${spec.op}`, inputs: names, outputs: ['y'] } as Node;
  const [shape] = inferOutputShapes(
    node,
    inputs.map((input) => input?.shape ?? []),
    layout,
  );
  tensors.set('y', { name: 'y', shape, dtype: 'float32', constant: false });
  const graph: Graph = { name: `test-${spec.op}`, layout, tensors, nodes: [node], inputs: [...feeds.keys()], outputs: ['y'] };
  const results = [];
  for (const backend of [cpuBackend, webgpuBackend]) {
    // Each backend's own records (the CPU plans its kernels' scratch too).
    const problem = graphToProblem(graph, executionRecords(backend, { includeGraphIO: true }));
    const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: await backend.requiredAlignment() });
    const prepared = await backend.prepare({ graph, problem, plan });
    results.push(await prepared.infer(feeds));
    prepared.dispose();
  }
  return relativeError(results[1], results[0]);
}

const conv = (o: Partial<Extract<OpSpec, { op: 'Conv' }>> & { outChannels: number }): OpSpec => ({
  op: 'Conv',
  kernel: [3, 3],
  strides: [1, 1],
  dilations: [1, 1],
  padding: { kind: 'same' },
  groups: 1,
  weightLayout: 'OHWI',
  activation: 'none',
  ...o,
});

describe.skipIf(!available)('WebGPU kernels against the CPU kernels', () => {
  it('Conv: groups, depthwise multipliers, dilations, strides, paddings, odd channels, every activation, both layouts', async () => {
    const cases: [OpSpec, In[], Layout][] = [
      [conv({ outChannels: 8, groups: 2, activation: 'relu6' }), [{ shape: [1, 7, 6, 6] }, { shape: [8, 3, 3, 3], constant: true }, { shape: [8], constant: true }], 'NHWC'],
      [conv({ outChannels: 12, groups: 3, strides: [2, 1], padding: { kind: 'valid' } }), [{ shape: [1, 9, 8, 12] }, { shape: [12, 3, 3, 4], constant: true }, undefined], 'NHWC'],
      [
        conv({ outChannels: 10, groups: 5, weightLayout: '1HWO', kernel: [3, 2], dilations: [2, 1], activation: 'sigmoid' }),
        [{ shape: [2, 8, 7, 5] }, { shape: [1, 3, 2, 10], constant: true }, { shape: [10], constant: true }],
        'NHWC',
      ],
      [
        conv({ outChannels: 5, kernel: [1, 7], activation: 'tanh', padding: { kind: 'explicit', pads: [0, 3, 0, 2] } }),
        [{ shape: [1, 6, 9, 6] }, { shape: [5, 1, 7, 6], constant: true }, { shape: [5], constant: true }],
        'NHWC',
      ],
      [
        conv({ outChannels: 6, weightLayout: 'OIHW', strides: [2, 2], activation: 'relu' }),
        [{ shape: [1, 3, 11, 10] }, { shape: [6, 3, 3, 3], constant: true }, { shape: [6], constant: true }],
        'NCHW',
      ],
      [
        conv({ outChannels: 8, groups: 8, weightLayout: 'OIHW', dilations: [2, 2], activation: 'relu-n1-to-1' }),
        [{ shape: [1, 8, 9, 9] }, { shape: [8, 1, 3, 3], constant: true }, { shape: [8], constant: true }],
        'NCHW',
      ],
      [conv({ outChannels: 6, groups: 2, weightLayout: 'OIHW' }), [{ shape: [2, 4, 5, 5] }, { shape: [6, 2, 3, 3], constant: true }, { shape: [6], constant: true }], 'NCHW'],
    ];
    for (const [spec, inputs, layout] of cases) expect(await compare(spec, inputs, layout), JSON.stringify(spec)).toBeLessThan(1e-5);
  });

  it('FullyConnected, MatMul with batch broadcasting, Gemm with transposes and C', async () => {
    expect(
      await compare({ op: 'FullyConnected', outFeatures: 7, activation: 'relu', keepDims: false }, [{ shape: [3, 10] }, { shape: [7, 10], constant: true }, { shape: [7], constant: true }]),
    ).toBeLessThan(1e-5);
    expect(await compare({ op: 'FullyConnected', outFeatures: 12, activation: 'none', keepDims: true }, [{ shape: [1, 2, 2, 8] }, { shape: [12, 8], constant: true }, undefined])).toBeLessThan(1e-5);
    expect(await compare({ op: 'MatMul' }, [{ shape: [2, 1, 3, 5] }, { shape: [4, 5, 6] }])).toBeLessThan(1e-5);
    expect(await compare({ op: 'MatMul' }, [{ shape: [7, 3] }, { shape: [3, 2], constant: true }])).toBeLessThan(1e-5);
    expect(await compare({ op: 'Gemm', transA: true, transB: true, alpha: 0.5, beta: 2 }, [{ shape: [4, 3] }, { shape: [5, 4], constant: true }, { shape: [5], constant: true }])).toBeLessThan(1e-5);
    expect(await compare({ op: 'Gemm', transA: false, transB: false, alpha: 1, beta: 1 }, [{ shape: [3, 4] }, { shape: [4, 5] }, { shape: [3, 1], constant: true }])).toBeLessThan(1e-5);
  });

  it('Add and Mul: equal shapes, scalars, per-channel vectors, general broadcasting, fused activations', async () => {
    for (const op of ['Add', 'Mul'] as const) {
      for (const [a, b] of [
        [
          [1, 4, 4, 8],
          [1, 4, 4, 8],
        ],
        [[1, 4, 4, 8], [8]],
        [[3], [2, 3]],
        [[1, 5, 3, 3], []],
        [
          [2, 1, 3],
          [1, 4, 1],
        ],
        [
          [1, 3, 1, 1],
          [2, 3, 4, 5],
        ],
      ]) {
        expect(await compare({ op, activation: op === 'Add' ? 'relu6' : 'tanh' }, [{ shape: a }, { shape: b, constant: b.length < 2 }]), `${op} ${a} ${b}`).toBeLessThan(1e-5);
      }
    }
  });

  it('pools: average (valid pixels only), max, global average, with paddings and strides, both layouts', async () => {
    for (const layout of ['NHWC', 'NCHW'] as const) {
      const shape = layout === 'NHWC' ? [2, 7, 8, 6] : [2, 6, 7, 8];
      for (const op of ['AveragePool', 'MaxPool'] as const) {
        for (const padding of [{ kind: 'same' }, { kind: 'valid' }, { kind: 'explicit', pads: [1, 2, 0, 1] }] as const) {
          expect(await compare({ op, kernel: [3, 2], strides: [2, 2], padding, activation: 'relu' }, [{ shape }], layout), `${op} ${layout} ${padding.kind}`).toBeLessThan(1e-5);
        }
      }
      expect(await compare({ op: 'GlobalAveragePool' }, [{ shape }], layout)).toBeLessThan(1e-5);
    }
    expect(await compare({ op: 'AveragePool', kernel: [3, 3], strides: [1, 1], padding: { kind: 'same' }, activation: 'none' }, [{ shape: [1, 5, 5, 8] }])).toBeLessThan(1e-5);
  });

  it('Mean, Pad, Concat, Softmax along any axis', async () => {
    expect(await compare({ op: 'Mean', axes: [1, 2], keepDims: true }, [{ shape: [2, 5, 4, 3] }])).toBeLessThan(1e-5);
    expect(await compare({ op: 'Mean', axes: [-1, 0], keepDims: false }, [{ shape: [2, 5, 3] }])).toBeLessThan(1e-5);
    // Every axis; the last axis alone (a kernel of its own: by values, and by fours where rows and pads allow), after and before; a rank of 2.
    const padded: [number[], [number, number][]][] = [
      [
        [1, 3, 4, 8],
        [
          [0, 0],
          [0, 0],
          [0, 0],
          [4, 8],
        ],
      ],
      [
        [1, 3, 4, 5],
        [
          [0, 0],
          [1, 2],
          [2, 0],
          [0, 3],
        ],
      ],
      [
        [1, 3, 4, 5],
        [
          [0, 0],
          [0, 0],
          [0, 0],
          [0, 4],
        ],
      ],
      [
        [4, 7],
        [
          [0, 0],
          [3, 2],
        ],
      ],
    ];
    for (const [shape, pads] of padded) expect(await compare({ op: 'Pad', pads }, [{ shape }]), JSON.stringify(pads)).toBeLessThan(1e-6);
    expect(await compare({ op: 'Concat', axis: 3, activation: 'relu' }, [{ shape: [1, 3, 3, 4] }, { shape: [1, 3, 3, 8] }, { shape: [1, 3, 3, 4], constant: true }])).toBeLessThan(1e-6);
    expect(await compare({ op: 'Concat', axis: 1, activation: 'none' }, [{ shape: [2, 3, 5] }, { shape: [2, 1, 5] }])).toBeLessThan(1e-6);
    expect(await compare({ op: 'Softmax', axis: -1, beta: 1 }, [{ shape: [3, 1001] }])).toBeLessThan(1e-5);
    expect(await compare({ op: 'Softmax', axis: 1, beta: 0.5 }, [{ shape: [2, 7, 3] }])).toBeLessThan(1e-5);
  });

  it("Resize with TFLite's coordinates: bilinear and nearest, align corners, half-pixel centers, both layouts", async () => {
    for (const layout of ['NHWC', 'NCHW'] as const) {
      const shape = layout === 'NHWC' ? [1, 5, 7, 4] : [1, 3, 5, 7];
      for (const mode of ['bilinear', 'nearest'] as const) {
        for (const [alignCorners, halfPixelCenters] of [
          [false, false],
          [true, false],
          [false, true],
        ]) {
          for (const size of [
            [9, 13],
            [3, 4],
          ] as const) {
            expect(await compare({ op: 'Resize', mode, size, alignCorners, halfPixelCenters }, [{ shape }], layout), `${mode} ${layout} ${alignCorners} ${halfPixelCenters} ${size}`).toBeLessThan(
              1e-5,
            );
          }
        }
      }
    }
  });

  it('activations and copies: Relu, Relu6, Sigmoid, Tanh, Reshape, Flatten, Squeeze, Dequantize', async () => {
    for (const op of ['Relu', 'Relu6', 'Sigmoid', 'Tanh', 'Dequantize'] as const) {
      expect(await compare({ op }, [{ shape: [2, 3, 5] }]), op).toBeLessThan(1e-5);
      expect(await compare({ op }, [{ shape: [1, 4, 4, 8] }]), op).toBeLessThan(1e-5);
    }
    expect(await compare({ op: 'Reshape', shape: [4, -1] }, [{ shape: [2, 3, 4] }])).toBe(0);
    expect(await compare({ op: 'Flatten', axis: 1 }, [{ shape: [2, 3, 4] }])).toBe(0);
    expect(await compare({ op: 'Squeeze', axes: [] }, [{ shape: [1, 5, 1, 3] }])).toBe(0);
  });

  it('Transpose of every rank up to 5: to NHWC order, back, an attention head split, a swap, the identity', async () => {
    const cases: [number[], number[]][] = [
      [
        [1, 3, 4, 5],
        [0, 2, 3, 1],
      ],
      [
        [1, 4, 5, 3],
        [0, 3, 1, 2],
      ],
      [
        [2, 7, 3, 4],
        [0, 2, 1, 3],
      ],
      [
        [3, 5],
        [1, 0],
      ],
      [
        [2, 3, 4, 5, 2],
        [4, 0, 3, 1, 2],
      ],
      [[6], [0]],
    ];
    for (const [shape, perm] of cases) expect(await compare({ op: 'Transpose', perm }, [{ shape }]), JSON.stringify(perm)).toBe(0);
  });

  it('a node that reads one tensor twice (x * x, x + x) binds it once', async () => {
    expect(await compare({ op: 'Mul', activation: 'none' }, [{ shape: [1, 4, 4, 8] }, { shape: [1, 4, 4, 8] }], 'NHWC', 1, ['x', 'x'])).toBe(0);
    expect(await compare({ op: 'Add', activation: 'relu' }, [{ shape: [3, 5] }, { shape: [3, 5] }], 'NHWC', 1, ['x', 'x'])).toBe(0);
  });
});
