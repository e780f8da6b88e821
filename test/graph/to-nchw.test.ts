import { describe, expect, it } from 'vitest';
import { GraphError, type Graph, type Node } from '../../src/graph/ir.ts';
import { graphToProblem } from '../../src/graph/lifetimes.ts';
import { convertToNchw, sameOrder, toNchw } from '../../src/graph/to-nchw.ts';
import { NetworkBuilder } from '../../src/models/builder.ts';
import { GraphBuilder, nchwNetwork, nhwcNetwork, nhwcOrderNetwork } from '../io/onnx/graphs.ts';

const nodeOf = (graph: Graph, output: string): Node => graph.nodes.find((n) => n.outputs[0] === output)!;
const shapeOf = (graph: Graph, name: string): readonly number[] => graph.tensors.get(name)!.shape;
const dataOf = (graph: Graph, name: string): number[] => [...(graph.tensors.get(name)!.data as Float32Array)];

/** Element [a, b, c, d] of a row-major 4-D array. */
const at = (data: number[], shape: readonly number[], [a, b, c, d]: number[]): number => data[((a * shape[1] + b) * shape[2] + c) * shape[3] + d];

describe('toNchw', () => {
  it('returns an NCHW graph as it is', () => {
    const graph = nchwNetwork();
    expect(toNchw(graph)).toBe(graph);
  });

  it('keeps the records: same ids, sizes and intervals, node order and names', () => {
    for (const withData of [false, true]) {
      const graph = nhwcNetwork(withData);
      const converted = toNchw(graph);
      expect(converted.layout).toBe('NCHW');
      expect(converted.nodes.map((n) => n.name)).toEqual(graph.nodes.map((n) => n.name));
      expect([...converted.tensors.keys()]).toEqual([...graph.tensors.keys()]);
      for (const includeGraphIO of [false, true]) {
        expect(graphToProblem(converted, { includeGraphIO }).records).toEqual(graphToProblem(graph, { includeGraphIO }).records);
      }
    }
  });

  it('permutes 4-D shapes and leaves the others', () => {
    const graph = toNchw(nhwcNetwork());
    expect(shapeOf(graph, 'image')).toEqual([1, 3, 32, 32]);
    expect(shapeOf(graph, 'conv1')).toEqual([1, 8, 16, 16]);
    expect(shapeOf(graph, 'cat')).toEqual([1, 32, 16, 16]);
    expect(shapeOf(graph, 'padded')).toEqual([1, 32, 11, 11]);
    expect(shapeOf(graph, 'up')).toEqual([1, 16, 8, 8]);
    expect(shapeOf(graph, 'mean')).toEqual([1, 16, 1, 1]);
    expect(shapeOf(graph, 'squeezed')).toEqual([1, 16]);
    expect(shapeOf(graph, 'logits4d')).toEqual([1, 10, 1, 1]);
    expect(shapeOf(graph, 'probs')).toEqual([1, 10]);
    expect(shapeOf(graph, 'fc/w')).toEqual([10, 16]);
  });

  it('rewrites axis attributes that refer to 4-D tensors', () => {
    const graph = toNchw(nhwcNetwork());
    expect(nodeOf(graph, 'cat')).toMatchObject({ op: 'Concat', axis: 1 });
    expect(nodeOf(graph, 'mean')).toMatchObject({ op: 'Mean', axes: [2, 3], keepDims: true });
    expect(nodeOf(graph, 'squeezed')).toMatchObject({ op: 'Squeeze', axes: [2, 3] });
    expect(nodeOf(graph, 'padded')).toMatchObject({
      op: 'Pad',
      pads: [
        [0, 0],
        [0, 0],
        [1, 2],
        [2, 1],
      ],
    });
    expect(nodeOf(graph, 'probs')).toMatchObject({ op: 'Softmax', axis: -1 }); // 2-D: unchanged
    expect(nodeOf(graph, 'logits4d')).toMatchObject({ op: 'Reshape', shape: [1, 10, 1, 1] });
    expect(nodeOf(graph, 'logits2d')).toMatchObject({ op: 'Reshape', shape: [1, 10] });
  });

  it('maps a Softmax, Concat or Squeeze axis given as a negative number', () => {
    const b = new GraphBuilder('axes', 'NHWC');
    b.input('x', [1, 4, 4, 3]);
    b.op({ op: 'Softmax', axis: -1, beta: 1 }, ['x'], 's');
    b.op({ op: 'Concat', axis: -1, activation: 'none' }, ['s', 'x'], 'c');
    b.op({ op: 'Mean', axes: [-3, -2], keepDims: false }, ['c'], 'm');
    const graph = toNchw(b.build(['m']));
    expect(nodeOf(graph, 's')).toMatchObject({ axis: 1 });
    expect(nodeOf(graph, 'c')).toMatchObject({ axis: 1 });
    expect(nodeOf(graph, 'm')).toMatchObject({ axes: [2, 3] });
    expect(shapeOf(graph, 'm')).toEqual([1, 6]);
  });

  it('converts OHWI convolution weights to OIHW, data included', () => {
    const original = nhwcNetwork(true);
    const graph = toNchw(original);
    const before = dataOf(original, 'conv1/w');
    const after = dataOf(graph, 'conv1/w');
    expect(shapeOf(graph, 'conv1/w')).toEqual([8, 3, 3, 3]);
    expect(graph.tensors.get('conv1/w')!.data).toBeInstanceOf(Float32Array);
    expect(nodeOf(graph, 'conv1')).toMatchObject({ weightLayout: 'OIHW', groups: 1 });
    for (const [o, h, w, i] of [
      [0, 0, 0, 0],
      [7, 2, 1, 2],
      [3, 1, 2, 0],
      [5, 0, 2, 1],
    ]) {
      expect(at(after, [8, 3, 3, 3], [o, i, h, w])).toBe(at(before, [8, 3, 3, 3], [o, h, w, i]));
    }
    // the 1x1 conv: [16, 1, 1, 8] -> [16, 8, 1, 1], the same order of elements
    expect(shapeOf(graph, 'pw/w')).toEqual([16, 8, 1, 1]);
    expect(dataOf(graph, 'pw/w')).toEqual(dataOf(original, 'pw/w'));
  });

  it('converts depthwise 1HWO weights to [O, 1, H, W] with one group per channel', () => {
    const original = nhwcNetwork(true);
    const graph = toNchw(original);
    expect(shapeOf(graph, 'dw/w')).toEqual([8, 1, 3, 3]);
    expect(nodeOf(graph, 'dw')).toMatchObject({ weightLayout: 'OIHW', groups: 8, outChannels: 8 });
    const before = dataOf(original, 'dw/w');
    const after = dataOf(graph, 'dw/w');
    for (const [h, w, o] of [
      [0, 0, 0],
      [2, 1, 7],
      [1, 2, 3],
    ])
      expect(at(after, [8, 1, 3, 3], [o, 0, h, w])).toBe(at(before, [1, 3, 3, 8], [0, h, w, o]));
  });

  it('sets groups to the input channels for a depthwise conv with a channel multiplier', () => {
    const b = new GraphBuilder('multiplier', 'NHWC');
    b.input('x', [1, 6, 6, 4]);
    b.op(
      { op: 'Conv', kernel: [3, 3], strides: [1, 1], dilations: [1, 1], padding: { kind: 'same' }, groups: 4, outChannels: 8, weightLayout: '1HWO', activation: 'none' },
      ['x', b.constant('w', [1, 3, 3, 8]), ''],
      'y',
    );
    const graph = toNchw(b.build(['y']));
    expect(nodeOf(graph, 'y')).toMatchObject({ groups: 4, outChannels: 8 });
    expect(shapeOf(graph, 'w')).toEqual([8, 1, 3, 3]);
    expect(shapeOf(graph, 'y')).toEqual([1, 8, 6, 6]);
  });

  it('converts fp16 weights behind a Dequantize together with the Dequantize output', () => {
    const original = nhwcNetwork(true);
    const graph = toNchw(original);
    expect(shapeOf(graph, 'branch/w16')).toEqual([16, 8, 3, 3]);
    expect(shapeOf(graph, 'branch/w')).toEqual([16, 8, 3, 3]);
    const half = graph.tensors.get('branch/w16')!.data;
    expect(half).toBeInstanceOf(Uint16Array);
    const before = [...(original.tensors.get('branch/w16')!.data as Uint16Array)];
    const after = [...(half as Uint16Array)];
    expect(at(after, [16, 8, 3, 3], [5, 7, 2, 1])).toBe(at(before, [16, 3, 3, 8], [5, 2, 1, 7]));
  });

  it('makes a per-channel constant of Add/Mul broadcast over NCHW', () => {
    const graph = toNchw(nhwcNetwork(true));
    expect(shapeOf(graph, 'scale')).toEqual([1, 16, 1, 1]);
    expect(dataOf(graph, 'scale')).toEqual(Array.from({ length: 16 }, (_, k) => k));
  });

  it('permutes a 4-D constant operand with its data', () => {
    const b = new GraphBuilder('bias4d', 'NHWC');
    b.input('x', [1, 2, 3, 4]);
    b.op({ op: 'Add', activation: 'none' }, ['x', b.counting('c', [1, 2, 3, 4])], 'y');
    const graph = toNchw(b.build(['y']));
    expect(shapeOf(graph, 'c')).toEqual([1, 4, 2, 3]);
    const data = dataOf(graph, 'c');
    expect(at(data, [1, 4, 2, 3], [0, 3, 1, 2])).toBe(
      at(
        Array.from({ length: 24 }, (_, k) => k),
        [1, 2, 3, 4],
        [0, 1, 2, 3],
      ),
    );
  });

  it('keeps weights without data as constants without data, with the OIHW shape', () => {
    const graph = toNchw(nhwcNetwork(false));
    expect(graph.tensors.get('conv1/w')).toEqual({ name: 'conv1/w', shape: [8, 3, 3, 3], dtype: 'float32', constant: true });
    expect(graph.tensors.get('valid/w')!.shape).toEqual([16, 32, 3, 3]);
  });

  it('picks a Flatten axis that gives the same 2-D result', () => {
    const b = new GraphBuilder('flatten', 'NHWC');
    b.input('x', [1, 1, 1, 32]);
    b.op({ op: 'Flatten', axis: 1 }, ['x'], 'y');
    const graph = toNchw(b.build(['y']));
    expect(shapeOf(graph, 'y')).toEqual([1, 32]);
    expect(nodeOf(graph, 'y')).toMatchObject({ axis: 1 });
  });

  it('refuses reshapes and flattenings whose element order differs between the layouts', () => {
    const reshape = new GraphBuilder('reshape', 'NHWC');
    reshape.input('x', [1, 2, 2, 3]);
    reshape.op({ op: 'Reshape', shape: [1, 12] }, ['x'], 'y');
    expect(() => toNchw(reshape.build(['y']))).toThrow(GraphError);
    expect(() => toNchw(reshape.build(['y']))).toThrow(/node y_op \(Reshape\).*not supported/);

    const fc = new GraphBuilder('fc', 'NHWC');
    fc.input('x', [1, 7, 7, 64]);
    fc.op({ op: 'FullyConnected', outFeatures: 10, activation: 'none', keepDims: false }, ['x', fc.constant('w', [10, 3136]), ''], 'y');
    expect(() => toNchw(fc.build(['y']))).toThrow(/FullyConnected.*not supported/);

    const squeeze = new GraphBuilder('squeeze', 'NHWC');
    squeeze.input('x', [1, 5, 5, 3]);
    squeeze.op({ op: 'Squeeze', axes: [0] }, ['x'], 'y');
    expect(() => toNchw(squeeze.build(['y']))).toThrow(/Squeeze.*not supported/);

    const matmul = new GraphBuilder('matmul', 'NHWC');
    matmul.input('x', [1, 2, 3, 4]);
    matmul.op({ op: 'MatMul' }, ['x', matmul.constant('w', [4, 5])], 'y');
    expect(() => toNchw(matmul.build(['y']))).toThrow(/MatMul.*not supported/);
  });

  it('lists the nodes that need NHWC element order when asked (for exporters with a Transpose)', () => {
    const graph = nhwcOrderNetwork();
    expect(() => toNchw(graph)).toThrow(/node boxes_op \(Reshape\).*not supported: it reshapes \[1,4,4,2\]/);
    const { graph: converted, nhwcOrder } = convertToNchw(graph, { keepNhwcOrder: true });
    expect(Object.fromEntries(nhwcOrder)).toEqual({
      boxes: { input: true, output: false },
      grid: { input: false, output: true },
      flat: { input: true, output: false },
      fc: { input: true, output: false },
    });
    expect(nodeOf(converted, 'grid')).toMatchObject({ shape: [1, 2, 2, 8] });
    expect(shapeOf(converted, 'flat')).toEqual([1, 32]);
    expect(graphToProblem(converted).records).toEqual(graphToProblem(graph).records);
    expect(convertToNchw(nhwcNetwork()).nhwcOrder.size).toBe(0);
  });

  it('gives a Transpose of a 4-D tensor the permutation that does the same in NCHW, and rewrites a Slice axis', () => {
    const b = new NetworkBuilder('transposed');
    const x = b.input('x', [1, 2, 3, 4]);
    const swapped = b.transpose('swapped', x, [0, 3, 1, 2]);
    const cut = b.slice('cut', swapped, 3, 1, 3);
    const nhwc = b.build([cut]);
    const graph = toNchw(nhwc);
    // NHWC [1, 2, 3, 4] -> [1, 4, 2, 3] (permuted again to NCHW [1, 3, 4, 2]); in NCHW the input is [1, 4, 2, 3].
    expect(shapeOf(graph, 'swapped')).toEqual([1, 3, 4, 2]);
    expect(nodeOf(graph, 'swapped')).toMatchObject({ op: 'Transpose', perm: [0, 3, 1, 2] });
    // The NHWC slice cuts the channels (axis 3), NCHW's axis 1.
    expect(nodeOf(graph, 'cut')).toMatchObject({ op: 'Slice', axes: [1] });
    expect(shapeOf(graph, 'cut')).toEqual([1, 2, 4, 2]);
    expect(graphToProblem(graph).records).toEqual(graphToProblem(nhwc).records);
  });

  it('refuses a LayerNormalization, CausalMask or Gather on 4-D tensors (their axes are trailing ones)', () => {
    const b = new NetworkBuilder('normed');
    const x = b.input('x', [1, 2, 3, 4]);
    expect(() => toNchw(b.build([b.layerNorm('ln', x, 1e-5)]))).toThrow(/node ln \(LayerNormalization\): .* is 4-D/);
  });

  it('knows which NHWC shapes order their elements as NCHW does', () => {
    expect(sameOrder([1, 1, 1, 1001])).toBe(true);
    expect(sameOrder([1, 7, 7, 1])).toBe(true);
    expect(sameOrder([4, 1, 1, 3])).toBe(true);
    expect(sameOrder([1, 1, 5, 3])).toBe(false);
    expect(sameOrder([1, 2, 2, 3])).toBe(false);
  });
});
