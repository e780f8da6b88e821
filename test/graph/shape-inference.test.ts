import { describe, expect, it } from 'vitest';
import { GraphError, type Node, type OpSpec } from '../../src/graph/ir.ts';
import { inferOutputShapes, resolveReshape, samePadding } from '../../src/graph/shape-inference.ts';

const node = (spec: OpSpec): Node => ({ ...spec, name: 'n', inputs: ['x'], outputs: ['y'] }) as Node;
const conv = (over: Partial<Extract<OpSpec, { op: 'Conv' }>> = {}): Node =>
  node({ op: 'Conv', kernel: [3, 3], strides: [1, 1], dilations: [1, 1], padding: { kind: 'same' }, groups: 1, outChannels: 8, weightLayout: 'OHWI', activation: 'none', ...over });

describe('shape inference', () => {
  it('convolution: SAME, VALID, explicit, strides, dilation, both layouts', () => {
    expect(inferOutputShapes(conv({ strides: [2, 2] }), [[1, 257, 257, 3]], 'NHWC')).toEqual([[1, 129, 129, 8]]);
    expect(inferOutputShapes(conv({ padding: { kind: 'valid' }, strides: [2, 2] }), [[1, 299, 299, 3]], 'NHWC')).toEqual([[1, 149, 149, 8]]);
    expect(inferOutputShapes(conv({ padding: { kind: 'explicit', pads: [1, 2, 1, 2] } }), [[1, 3, 10, 10]], 'NCHW')).toEqual([[1, 8, 10, 12]]);
    expect(inferOutputShapes(conv({ padding: { kind: 'valid' }, dilations: [2, 2] }), [[1, 9, 9, 4]], 'NHWC')).toEqual([[1, 5, 5, 8]]);
    expect(inferOutputShapes(conv({ kernel: [1, 7], padding: { kind: 'valid' } }), [[1, 17, 17, 4]], 'NHWC')).toEqual([[1, 17, 11, 8]]);
  });

  it('TF SAME padding puts the odd pixel after', () => {
    expect(samePadding(257, 3, 2, 1)).toEqual([1, 1]);
    expect(samePadding(224, 3, 2, 1)).toEqual([0, 1]);
    expect(samePadding(64, 5, 2, 1)).toEqual([1, 2]);
  });

  it('pools, means, concat, pad, reshape, flatten, squeeze, resize, fully connected, matmul, gemm', () => {
    expect(inferOutputShapes(node({ op: 'MaxPool', kernel: [3, 3], strides: [2, 2], padding: { kind: 'valid' }, activation: 'none' }), [[1, 147, 147, 64]], 'NHWC')).toEqual([[1, 73, 73, 64]]);
    expect(inferOutputShapes(node({ op: 'GlobalAveragePool' }), [[1, 32, 7, 7]], 'NCHW')).toEqual([[1, 32, 1, 1]]);
    expect(inferOutputShapes(node({ op: 'Mean', axes: [1, 2], keepDims: false }), [[1, 7, 7, 32]], 'NHWC')).toEqual([[1, 32]]);
    expect(inferOutputShapes(node({ op: 'Mean', axes: [-2, -1], keepDims: true }), [[1, 32, 7, 7]], 'NCHW')).toEqual([[1, 32, 1, 1]]);
    expect(
      inferOutputShapes(
        node({ op: 'Concat', axis: 3, activation: 'none' }),
        [
          [1, 4, 4, 8],
          [1, 4, 4, 24],
        ],
        'NHWC',
      ),
    ).toEqual([[1, 4, 4, 32]]);
    expect(
      inferOutputShapes(
        node({
          op: 'Pad',
          pads: [
            [0, 0],
            [1, 1],
            [1, 1],
            [0, 4],
          ],
        }),
        [[1, 4, 4, 8]],
        'NHWC',
      ),
    ).toEqual([[1, 6, 6, 12]]);
    expect(inferOutputShapes(node({ op: 'Reshape', shape: [1, -1] }), [[1, 1, 1, 1001]], 'NHWC')).toEqual([[1, 1001]]);
    expect(inferOutputShapes(node({ op: 'Flatten', axis: 1 }), [[2, 3, 4, 5]], 'NCHW')).toEqual([[2, 60]]);
    expect(inferOutputShapes(node({ op: 'Squeeze', axes: [] }), [[1, 1, 1, 10]], 'NHWC')).toEqual([[10]]);
    expect(inferOutputShapes(node({ op: 'Resize', mode: 'bilinear', size: [257, 257], alignCorners: true, halfPixelCenters: false }), [[1, 33, 33, 21]], 'NHWC')).toEqual([[1, 257, 257, 21]]);
    expect(
      inferOutputShapes(
        node({ op: 'FullyConnected', outFeatures: 10, activation: 'none', keepDims: false }),
        [
          [2, 1, 1, 64],
          [10, 64],
        ],
        'NHWC',
      ),
    ).toEqual([[2, 10]]);
    expect(
      inferOutputShapes(
        node({ op: 'MatMul' }),
        [
          [3, 4, 5],
          [5, 6],
        ],
        'NCHW',
      ),
    ).toEqual([[3, 4, 6]]);
    expect(
      inferOutputShapes(
        node({ op: 'Gemm', transA: false, transB: true, alpha: 1, beta: 1 }),
        [
          [2, 64],
          [10, 64],
        ],
        'NCHW',
      ),
    ).toEqual([[2, 10]]);
    expect(inferOutputShapes(node({ op: 'Add', activation: 'none' }), [[1, 4, 4, 8], [8]], 'NHWC')).toEqual([[1, 4, 4, 8]]);
  });

  it('the transformer ops: gather, layer normalization, gelu, transpose, slice, causal mask', () => {
    const with2 = (spec: OpSpec): Node => ({ ...spec, name: 'n', inputs: ['x', 'i'], outputs: ['y'] }) as Node;
    expect(
      inferOutputShapes(
        with2({ op: 'Gather', axis: 0 }),
        [
          [50257, 768],
          [1, 128],
        ],
        'NHWC',
      ),
    ).toEqual([[1, 128, 768]]);
    expect(inferOutputShapes(with2({ op: 'Gather', axis: -1 }), [[2, 3, 5], [4]], 'NHWC')).toEqual([[2, 3, 4]]);
    expect(
      inferOutputShapes(
        with2({ op: 'Gather', axis: 0, rows: { start: 10, of: 30 } }),
        [
          [20, 8],
          [1, 4],
        ],
        'NHWC',
      ),
    ).toEqual([[1, 4, 8]]);
    expect(() =>
      inferOutputShapes(
        with2({ op: 'Gather', axis: 0, rows: { start: 11, of: 30 } }),
        [
          [20, 8],
          [1, 4],
        ],
        'NHWC',
      ),
    ).toThrow(/do not fit/);
    expect(inferOutputShapes(node({ op: 'LayerNormalization', axis: -1, epsilon: 1e-5 }), [[1, 7, 768], [768], [768]], 'NHWC')).toEqual([[1, 7, 768]]);
    expect(() => inferOutputShapes(node({ op: 'LayerNormalization', axis: -1, epsilon: 1e-5 }), [[1, 7, 768], [767]], 'NHWC')).toThrow(/scale \[767\]/);
    expect(inferOutputShapes(node({ op: 'Gelu', approximate: 'tanh' }), [[1, 7, 3072]], 'NHWC')).toEqual([[1, 7, 3072]]);
    expect(inferOutputShapes(node({ op: 'Transpose', perm: [1, 2, 0] }), [[577, 12, 64]], 'NHWC')).toEqual([[12, 64, 577]]);
    expect(() => inferOutputShapes(node({ op: 'Transpose', perm: [1, 1, 0] }), [[2, 3, 4]], 'NHWC')).toThrow(/not a permutation/);
    expect(inferOutputShapes(node({ op: 'Slice', axes: [1], starts: [0], ends: [1] }), [[1, 577, 768]], 'NHWC')).toEqual([[1, 1, 768]]);
    expect(inferOutputShapes(node({ op: 'Slice', axes: [0, -1], starts: [2, 1], ends: [5, 3] }), [[8, 4]], 'NHWC')).toEqual([[3, 2]]);
    expect(() => inferOutputShapes(node({ op: 'Slice', axes: [0], starts: [0], ends: [9] }), [[8, 4]], 'NHWC')).toThrow(/does not fit/);
    expect(inferOutputShapes(node({ op: 'CausalMask' }), [[12, 128, 128]], 'NHWC')).toEqual([[12, 128, 128]]);
    expect(() => inferOutputShapes(node({ op: 'CausalMask' }), [[12, 128, 64]], 'NHWC')).toThrow(/at least as many keys/);
  });

  it('names the node when inputs do not fit', () => {
    expect(() => inferOutputShapes(conv({ groups: 3 }), [[1, 8, 8, 4]], 'NHWC')).toThrow(GraphError);
    expect(() =>
      inferOutputShapes(
        node({ op: 'Concat', axis: 3, activation: 'none' }),
        [
          [1, 4, 4, 8],
          [1, 5, 4, 8],
        ],
        'NHWC',
      ),
    ).toThrow(/node n \(Concat\)/);
    expect(() => resolveReshape([2, 3], [4, -1], node({ op: 'Reshape', shape: [4, -1] }))).toThrow(/cannot become/);
    expect(() => inferOutputShapes(conv({ padding: { kind: 'valid' }, kernel: [5, 5] }), [[1, 3, 3, 4]], 'NHWC')).toThrow(/does not fit/);
  });
});
