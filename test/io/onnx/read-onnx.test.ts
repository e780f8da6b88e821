import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../src/core/synthetic.ts';
import { GraphError, type Graph, type Node } from '../../../src/graph/ir.ts';
import { graphToProblem } from '../../../src/graph/lifetimes.ts';
import { InputError } from '../../../src/io/input-error.ts';
import { readOnnx } from '../../../src/io/onnx/read-onnx.ts';
import { ONNX_TYPE } from '../../../src/io/onnx/proto.ts';
import { writeOnnx } from '../../../src/io/onnx/write-onnx.ts';
import { nchwNetwork, nhwcNetwork } from './graphs.ts';
import { attr, init, model, node, singleOp, value } from './onnx-builder.ts';

const only = (graph: Graph): Node => {
  expect(graph.nodes).toHaveLength(1);
  return graph.nodes[0];
};
const shape = (graph: Graph, name = 'y'): readonly number[] => graph.tensors.get(name)!.shape;
const read = (bytes: Uint8Array): Graph => readOnnx(bytes, 'test.onnx');

function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (error) {
    return error as Error;
  }
  throw new Error('no error was thrown');
}

describe('readOnnx: opset forms', () => {
  it('Pad: pads as an attribute (opset 2) and as an input (opset 11)', () => {
    const old = read(singleOp(2, node('Pad', ['x'], ['y'], [attr.ints('pads', [0, 0, 1, 2, 0, 0, 3, 4]), attr.string('mode', 'constant')])));
    const now = read(singleOp(11, node('Pad', ['x', 'p'], ['y']), [init.int64('p', [0, 0, 1, 2, 0, 0, 3, 4])]));
    for (const graph of [old, now]) {
      expect(only(graph)).toMatchObject({
        op: 'Pad',
        pads: [
          [0, 0],
          [0, 0],
          [1, 3],
          [2, 4],
        ],
        inputs: ['x'],
      });
      expect(shape(graph)).toEqual([1, 4, 12, 14]);
    }
    expect(() => read(singleOp(11, node('Pad', ['x', 'p'], ['y'], [attr.string('mode', 'reflect')]), [init.int64('p', [0, 0, 1, 1, 0, 0, 1, 1])]))).toThrow(/Pad mode reflect is not supported/);
  });

  it('Squeeze: axes as an attribute (opset 11) and as an input (opset 13)', () => {
    const old = read(singleOp(11, node('Squeeze', ['x'], ['y'], [attr.ints('axes', [2, 3])]), [], [1, 16, 1, 1]));
    const now = read(singleOp(13, node('Squeeze', ['x', 'a'], ['y']), [init.int64Raw('a', [2, -1])], [1, 16, 1, 1]));
    const all = read(singleOp(13, node('Squeeze', ['x'], ['y']), [], [1, 16, 1, 1]));
    for (const graph of [old, now]) expect(shape(graph)).toEqual([1, 16]);
    expect(shape(all)).toEqual([16]);
    expect(only(now)).toMatchObject({ op: 'Squeeze', axes: [2, -1] });
    expect(() => read(singleOp(13, node('Squeeze', ['x', 'a'], ['y']), [init.int64('a', [1])], [1, 16, 1, 1]))).toThrow(/axis 1 of \[1,16,1,1\] is not 1/);
  });

  it('Unsqueeze: attribute (opset 11) and input (opset 13) forms, as a Reshape', () => {
    const old = read(singleOp(11, node('Unsqueeze', ['x'], ['y'], [attr.ints('axes', [0, 3])]), [], [4, 5]));
    const now = read(singleOp(13, node('Unsqueeze', ['x', 'a'], ['y']), [init.int64('a', [0, -1])], [4, 5]));
    for (const graph of [old, now]) {
      expect(only(graph)).toMatchObject({ op: 'Reshape', shape: [1, 4, 5, 1] });
      expect(shape(graph)).toEqual([1, 4, 5, 1]);
    }
  });

  it('Reshape: shape as an attribute (opset 1) and as an input with 0 and -1 (opset 5)', () => {
    const old = read(singleOp(1, node('Reshape', ['x'], ['y'], [attr.ints('shape', [1, -1])])));
    const now = read(singleOp(13, node('Reshape', ['x', 's'], ['y']), [init.int64('s', [0, 4, -1])]));
    expect(shape(old)).toEqual([1, 256]);
    expect(only(now)).toMatchObject({ op: 'Reshape', shape: [1, 4, 64], inputs: ['x'] });
    expect(() => read(singleOp(13, node('Reshape', ['x', 's'], ['y']), [init.int64('s', [3, -1])]))).toThrow(/cannot become \[3,-1\]/);
  });

  it('Resize: opset 10 (scales), 11 (roi, scales, sizes), 13 (sizes only) and Upsample 7 / 9', () => {
    const cases: [string, Uint8Array][] = [
      ['resize-10', singleOp(10, node('Resize', ['x', 's'], ['y'], [attr.string('mode', 'linear')]), [init.floats('s', [4], [1, 1, 2, 2])])],
      [
        'resize-11',
        singleOp(11, node('Resize', ['x', 'roi', 'scales', 'sizes'], ['y'], [attr.string('mode', 'linear'), attr.string('coordinate_transformation_mode', 'asymmetric')]), [
          init.floats('roi', [0], []),
          init.floats('scales', [0], []),
          init.int64('sizes', [1, 4, 16, 16]),
        ]),
      ],
      [
        'resize-13-scales',
        singleOp(13, node('Resize', ['x', '', 'scales'], ['y'], [attr.string('mode', 'linear'), attr.string('coordinate_transformation_mode', 'asymmetric')]), [
          init.floats('scales', [4], [1, 1, 2, 2]),
        ]),
      ],
      ['upsample-7', singleOp(7, node('Upsample', ['x'], ['y'], [attr.string('mode', 'linear'), attr.floats('scales', [1, 1, 2, 2])]))],
      ['upsample-9', singleOp(9, node('Upsample', ['x', 's'], ['y'], [attr.string('mode', 'bilinear')]), [init.floats('s', [4], [1, 1, 2, 2])])],
    ];
    for (const [title, bytes] of cases) {
      const graph = read(bytes);
      expect(only(graph), title).toMatchObject({ op: 'Resize', mode: 'bilinear', size: [16, 16], alignCorners: false, halfPixelCenters: false, inputs: ['x'] });
      expect(shape(graph), title).toEqual([1, 4, 16, 16]);
    }
  });

  it('Resize: coordinate modes and nearest', () => {
    const resize = (mode: string, transform: string) =>
      only(
        read(singleOp(13, node('Resize', ['x', '', '', 'sizes'], ['y'], [attr.string('mode', mode), attr.string('coordinate_transformation_mode', transform)]), [init.int64('sizes', [1, 4, 5, 7])])),
      );
    expect(resize('linear', 'align_corners')).toMatchObject({ mode: 'bilinear', size: [5, 7], alignCorners: true, halfPixelCenters: false });
    expect(resize('linear', 'half_pixel')).toMatchObject({ alignCorners: false, halfPixelCenters: true });
    expect(resize('linear', 'pytorch_half_pixel')).toMatchObject({ alignCorners: false, halfPixelCenters: true });
    expect(resize('nearest', 'asymmetric')).toMatchObject({ mode: 'nearest', alignCorners: false, halfPixelCenters: false });
    expect(resize('nearest', 'tf_half_pixel_for_nn')).toMatchObject({ mode: 'nearest', halfPixelCenters: true });
    expect(() => resize('cubic', 'asymmetric')).toThrow(/mode cubic is not supported/);
    expect(() => resize('linear', 'tf_crop_and_resize')).toThrow(/tf_crop_and_resize is not supported/);
    // default coordinate mode from opset 11 is half_pixel
    const dflt = read(singleOp(13, node('Resize', ['x', '', '', 'sizes'], ['y'], [attr.string('mode', 'nearest')]), [init.int64('sizes', [1, 4, 4, 4])]));
    expect(only(dflt)).toMatchObject({ halfPixelCenters: true });
  });

  it('Clip: bounds as attributes (opset 6) and as inputs (opset 11)', () => {
    const old = read(singleOp(6, node('Clip', ['x'], ['y'], [attr.float('min', 0), attr.float('max', 6)])));
    const now = read(singleOp(11, node('Clip', ['x', 'lo', 'hi'], ['y']), [init.floats('lo', [], [0]), init.raw('hi', [], [6])]));
    const relu = read(singleOp(13, node('Clip', ['x', 'lo'], ['y']), [init.floats('lo', [], [0])]));
    expect(only(old)).toMatchObject({ op: 'Relu6', inputs: ['x'] });
    expect(only(now)).toMatchObject({ op: 'Relu6', inputs: ['x'] });
    expect(only(relu)).toMatchObject({ op: 'Relu' });
    expect(() => read(singleOp(11, node('Clip', ['x', 'lo', 'hi'], ['y'], [], 'clamp'), [init.floats('lo', [], [0]), init.floats('hi', [], [1])]))).toThrow(
      /node clamp \(Clip\): Clip\(0, 1\) is not supported/,
    );
  });

  it('ReduceMean: axes as an attribute (opset 13) and as an input (opset 18)', () => {
    const old = read(singleOp(13, node('ReduceMean', ['x'], ['y'], [attr.ints('axes', [2, 3]), attr.int('keepdims', 0)])));
    const now = read(singleOp(18, node('ReduceMean', ['x', 'a'], ['y']), [init.int64('a', [2, 3])]));
    expect(only(old)).toMatchObject({ op: 'Mean', axes: [2, 3], keepDims: false });
    expect(shape(old)).toEqual([1, 4]);
    expect(shape(now)).toEqual([1, 4, 1, 1]);
    const all = read(singleOp(13, node('ReduceMean', ['x'], ['y'])));
    expect(shape(all)).toEqual([1, 1, 1, 1]);
  });

  it('Softmax: default axis 1 before opset 13, -1 from 13', () => {
    expect(only(read(singleOp(11, node('Softmax', ['x'], ['y']))))).toMatchObject({ op: 'Softmax', axis: 1, beta: 1 });
    expect(only(read(singleOp(13, node('Softmax', ['x'], ['y']))))).toMatchObject({ op: 'Softmax', axis: -1 });
  });
});

describe('readOnnx: ops', () => {
  const conv = (attributes: ReturnType<typeof attr.int>[], weights = [6, 4, 3, 3], group = 1) =>
    read(singleOp(13, node('Conv', ['x', 'w', 'b'], ['y'], [...attributes, attr.int('group', group)]), [init.external('w', weights), init.external('b', [weights[0]])], [1, 4, 9, 9]));

  it('Conv padding: SAME_UPPER, SAME_LOWER, VALID and explicit pads', () => {
    const upper = conv([attr.string('auto_pad', 'SAME_UPPER'), attr.ints('strides', [2, 2])]);
    expect(only(upper)).toMatchObject({ op: 'Conv', padding: { kind: 'same' }, kernel: [3, 3], strides: [2, 2], outChannels: 6, weightLayout: 'OIHW', inputs: ['x', 'w', 'b'] });
    expect(shape(upper)).toEqual([1, 6, 5, 5]);
    const lower = conv([attr.string('auto_pad', 'SAME_LOWER'), attr.ints('strides', [2, 2]), attr.ints('kernel_shape', [3, 3])], [6, 4, 3, 3]);
    expect(only(lower)).toMatchObject({ padding: { kind: 'explicit', pads: [1, 1, 1, 1] } });
    const lowerEven = read(singleOp(13, node('Conv', ['x', 'w'], ['y'], [attr.string('auto_pad', 'SAME_LOWER')]), [init.external('w', [2, 4, 2, 2])], [1, 4, 6, 6]));
    expect(only(lowerEven)).toMatchObject({ padding: { kind: 'explicit', pads: [1, 1, 0, 0] } });
    expect(shape(lowerEven)).toEqual([1, 2, 6, 6]);
    expect(only(conv([attr.string('auto_pad', 'VALID')]))).toMatchObject({ padding: { kind: 'valid' } });
    const explicit = conv([attr.ints('pads', [1, 0, 2, 3]), attr.ints('dilations', [2, 1])]);
    expect(only(explicit)).toMatchObject({ padding: { kind: 'explicit', pads: [1, 0, 2, 3] }, dilations: [2, 1] });
    expect(shape(explicit)).toEqual([1, 6, 8, 10]);
  });

  it('Conv groups: depthwise weights [C, 1, kh, kw]', () => {
    const depthwise = conv([attr.ints('pads', [1, 1, 1, 1])], [8, 1, 3, 3], 4);
    expect(only(depthwise)).toMatchObject({ groups: 4, outChannels: 8 });
    expect(shape(depthwise)).toEqual([1, 8, 9, 9]);
    expect(() => conv([], [8, 2, 3, 3], 4)).toThrow(/does not fit weights/);
  });

  it('pools, ceil_mode, global pools, Gemm, MatMul, Flatten, Concat', () => {
    const max = read(singleOp(13, node('MaxPool', ['x'], ['y'], [attr.ints('kernel_shape', [3, 3]), attr.ints('strides', [2, 2]), attr.int('ceil_mode', 1)])));
    expect(shape(max)).toEqual([1, 4, 4, 4]);
    expect(only(max)).toMatchObject({ op: 'MaxPool', padding: { kind: 'explicit', pads: [0, 0, 1, 1] } });
    const floor = read(singleOp(13, node('AveragePool', ['x'], ['y'], [attr.ints('kernel_shape', [3, 3]), attr.ints('strides', [2, 2])])));
    expect(shape(floor)).toEqual([1, 4, 3, 3]);
    expect(only(read(singleOp(13, node('GlobalAveragePool', ['x'], ['y']))))).toMatchObject({ op: 'GlobalAveragePool' });
    const globalMax = read(singleOp(13, node('GlobalMaxPool', ['x'], ['y'])));
    expect(only(globalMax)).toMatchObject({ op: 'MaxPool', kernel: [8, 8] });
    expect(shape(globalMax)).toEqual([1, 4, 1, 1]);

    const gemm = read(singleOp(13, node('Gemm', ['x', 'w', 'c'], ['y'], [attr.int('transB', 1), attr.float('alpha', 0.5)]), [init.external('w', [3, 10]), init.external('c', [3])], [2, 10]));
    expect(only(gemm)).toMatchObject({ op: 'Gemm', transA: false, transB: true, alpha: 0.5, beta: 1 });
    expect(shape(gemm)).toEqual([2, 3]);
    expect(shape(read(singleOp(13, node('MatMul', ['x', 'w'], ['y']), [init.external('w', [8, 5])])))).toEqual([1, 4, 8, 5]);
    expect(shape(read(singleOp(13, node('Flatten', ['x'], ['y'], [attr.int('axis', 2)]))))).toEqual([4, 64]);
    const concat = read(singleOp(13, node('Concat', ['x', 'x'], ['y'], [attr.int('axis', 1)])));
    expect(shape(concat)).toEqual([1, 8, 8, 8]);
    expect(() => read(singleOp(13, node('Concat', ['x', 'x'], ['y'])))).toThrow(/attribute axis is missing/);
  });

  it('DequantizeLinear and Cast to float32 as Dequantize', () => {
    const bytes = model({
      opset: 13,
      nodes: [node('DequantizeLinear', ['q', 's', 'z'], ['y'])],
      inputs: [value('q', [1, 4], ONNX_TYPE.UINT8)],
      outputs: [value('y', [1, 4])],
      initializers: [init.floats('s', [], [0.5]), { name: 'z', dims: [], dataType: ONNX_TYPE.UINT8, int32Data: [128] }],
    });
    const graph = read(bytes);
    expect(only(graph)).toMatchObject({ op: 'Dequantize', inputs: ['q', 's', 'z'] });
    expect(graph.tensors.get('q')!.dtype).toBe('uint8');
    expect(graph.tensors.get('y')!.dtype).toBe('float32');
    expect(graph.tensors.get('z')!.data).toEqual(new Uint8Array([128]));
    expect(() => read(singleOp(13, node('Cast', ['x'], ['y'], [attr.int('to', ONNX_TYPE.INT8)])))).toThrow(/Cast/);
  });

  it('drops Identity and Dropout: their outputs are aliases', () => {
    const bytes = model({
      opset: 13,
      nodes: [node('Identity', ['x'], ['a']), node('Relu', ['a'], ['b']), node('Dropout', ['b'], ['c', 'mask']), node('Identity', ['c'], ['y'])],
      inputs: [value('x', [1, 4])],
      outputs: [value('y', [1, 4])],
    });
    const graph = read(bytes);
    expect(only(graph)).toMatchObject({ op: 'Relu', inputs: ['x'], outputs: ['b'] });
    expect(graph.outputs).toEqual(['b']);
    expect(graph.tensors.has('a')).toBe(false);
  });

  it('reads initializers as constants (raw, typed and external data); an initializer listed as input is no input', () => {
    const bytes = model({
      opset: 13,
      nodes: [node('Add', ['x', 'a'], ['t']), node('Add', ['t', 'b'], ['u']), node('Mul', ['u', 'c'], ['y'])],
      inputs: [value('x', [2, 3]), value('a', [2, 3])],
      outputs: [value('y', [2, 3])],
      initializers: [init.raw('a', [2, 3], [1, 2, 3, 4, 5, 6]), init.floats('b', [3], [7, 8, 9]), init.external('c', [1])],
    });
    const graph = read(bytes);
    expect(graph.inputs).toEqual(['x']);
    expect(graph.tensors.get('a')).toMatchObject({ constant: true, shape: [2, 3], dtype: 'float32' });
    expect([...(graph.tensors.get('a')!.data as Float32Array)]).toEqual([1, 2, 3, 4, 5, 6]);
    expect([...(graph.tensors.get('b')!.data as Float32Array)]).toEqual([7, 8, 9]);
    expect(graph.tensors.get('c')).toEqual({ name: 'c', shape: [1], dtype: 'float32', constant: true, data: undefined });
    expect(graphToProblem(graph).records.map((r) => r.id)).toEqual(['t', 'u']);
  });

  it('reads Constant nodes and int64 data', () => {
    const bytes = model({
      opset: 13,
      nodes: [node('Constant', [], ['shape'], [attr.tensor('value', init.int64('', [-1, 8]))]), node('Reshape', ['x', 'shape'], ['y'])],
      inputs: [value('x', [1, 4, 8, 8])],
      outputs: [value('y', [32, 8])],
    });
    const graph = read(bytes);
    expect(only(graph)).toMatchObject({ op: 'Reshape', shape: [32, 8] });
    expect(graph.tensors.has('shape')).toBe(false); // became the attribute
  });

  it('checks inferred shapes against value_info and names the node', () => {
    const bytes = model({
      opset: 13,
      nodes: [node('Relu', ['x'], ['t'], [], 'first'), node('MaxPool', ['t'], ['y'], [attr.ints('kernel_shape', [2, 2])], 'pool')],
      inputs: [value('x', [1, 4, 8, 8])],
      outputs: [value('y', [1, 4, 'H', 7])],
      valueInfo: [value('t', [1, 4, 8, 8])],
    });
    expect(shape(read(bytes))).toEqual([1, 4, 7, 7]);
    const wrong = model({
      opset: 13,
      nodes: [node('Relu', ['x'], ['t'], [], 'first'), node('MaxPool', ['t'], ['y'], [attr.ints('kernel_shape', [2, 2])], 'pool')],
      inputs: [value('x', [1, 4, 8, 8])],
      outputs: [value('y', [1, 4, 8, 8])],
    });
    const error = thrown(() => read(wrong));
    expect(error).toBeInstanceOf(GraphError);
    expect(error.message).toBe('test.onnx: node pool (MaxPool): the file declares its output y as [1,4,8,8], but it computes [1,4,7,7].');
  });
});

describe('readOnnx: errors', () => {
  it('names the op type, the node and the file of an unsupported op', () => {
    const bytes = model({
      opset: 13,
      nodes: [node('LSTM', ['x', 'w', 'r'], ['y'], [attr.int('hidden_size', 4)], 'encoder/lstm')],
      inputs: [value('x', [5, 1, 3])],
      outputs: [value('y', undefined)],
      initializers: [init.external('w', [1, 16, 3]), init.external('r', [1, 16, 4])],
    });
    const error = thrown(() => readOnnx(bytes, 'models/seq.onnx'));
    expect(error).toBeInstanceOf(GraphError);
    expect(error.message).toBe('models/seq.onnx: node encoder/lstm (LSTM): op type LSTM is not supported.');
    const unnamed = thrown(() => readOnnx(model({ opset: 13, nodes: [node('Erf', ['x'], ['y'])], inputs: [value('x', [2])], outputs: [value('y', [2])] }), 'e.onnx'));
    expect(unnamed.message).toBe('e.onnx: node Erf_0 (Erf): op type Erf is not supported.');
    const domain = thrown(() => readOnnx(model({ opset: 13, nodes: [{ ...node('Gelu', ['x'], ['y']), domain: 'com.microsoft' }], inputs: [value('x', [2])], outputs: [value('y', [2])] }), 'g.onnx'));
    expect(domain.message).toMatch(/op com\.microsoft\.Gelu is not supported/);
  });

  it("reads a Transpose that is not one of the writer's as a Transpose node, and refuses a perm that is no permutation", () => {
    const bytes = singleOp(13, node('Transpose', ['x'], ['y'], [attr.ints('perm', [0, 2, 3, 1])], 'nhwc'));
    expect(only(readOnnx(bytes, 't.onnx'))).toMatchObject({ op: 'Transpose', perm: [0, 2, 3, 1], inputs: ['x'], outputs: ['y'] });
    expect(shape(readOnnx(bytes, 't.onnx'))).toEqual([1, 8, 8, 4]);
    const reversed = singleOp(13, node('Transpose', ['x'], ['y'], [], 'reverse'));
    expect(only(readOnnx(reversed, 't.onnx'))).toMatchObject({ op: 'Transpose', perm: [3, 2, 1, 0] });
    const other = singleOp(13, node('Transpose', ['x'], ['y'], [attr.ints('perm', [1, 1, 2, 3])], 'swap'));
    expect(() => readOnnx(other, 't.onnx')).toThrow('t.onnx: node swap (Transpose): perm [1,1,2,3] is not a permutation of rank 4');
  });

  const dynamic = () => model({ opset: 13, nodes: [node('Relu', ['image'], ['y'])], inputs: [value('image', ['batch', 3, 224, 224])], outputs: [value('y', ['batch', 3, 224, 224])] });

  it('asks for --input-shape when a graph input has a dynamic dimension', () => {
    const error = thrown(() => readOnnx(dynamic(), 'net.onnx'));
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).file).toBe('net.onnx');
    expect(error.message).toBe('net.onnx: graph input image has a dynamic dimension ([batch, 3, 224, 224]); give it a fixed shape with --input-shape image=1x3x224x224.');
    const missing = model({ opset: 13, nodes: [node('Relu', ['x'], ['y'])], inputs: [value('x', [undefined, 8])], outputs: [value('y', undefined)] });
    expect(() => read(missing)).toThrow(/--input-shape x=1x8/);
    const rankless = model({ opset: 13, nodes: [node('Relu', ['x'], ['y'])], inputs: [value('x', undefined)], outputs: [value('y', undefined)] });
    expect(() => read(rankless)).toThrow(/graph input x has no declared shape; give it a fixed shape with --input-shape x=1x3x224x224/);
  });

  it('uses an --input-shape override', () => {
    const graph = readOnnx(dynamic(), 'net.onnx', { inputShapes: new Map([['image', [2, 3, 224, 224]]]) });
    expect(shape(graph, 'image')).toEqual([2, 3, 224, 224]);
    expect(shape(graph)).toEqual([2, 3, 224, 224]);
    expect(() => readOnnx(dynamic(), 'net.onnx', { inputShapes: new Map([['image', [2, 3, 224]]]) })).toThrow(/has 3 dimensions, but the model's input image has 4/);
    expect(() => readOnnx(dynamic(), 'net.onnx', { inputShapes: new Map([['img', [1, 3, 224, 224]]]) })).toThrow(/--input-shape names img, which is not an input/);
  });

  it('reports a truncated or empty file as an InputError with no line', () => {
    const bytes = writeOnnx(nchwNetwork(), { weights: 'none' });
    const error = thrown(() => readOnnx(bytes.subarray(0, bytes.length - 7), 'cut.onnx'));
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).line).toBeUndefined();
    expect(error.message).toBe('cut.onnx: is not a readable ONNX model: its protobuf data is corrupt or truncated.');
    expect(() => readOnnx(new Uint8Array(), 'empty.onnx')).toThrow(InputError);
    expect(() => readOnnx(new TextEncoder().encode('hello, world'), 'text.onnx')).toThrow(InputError);
  });

  it('survives seeded truncations and bit flips: an InputError, a GraphError or a Graph, never anything else', () => {
    const seeds = [writeOnnx(nhwcNetwork(true), { weights: 'random', seed: 5 }), writeOnnx(nhwcNetwork(), { weights: 'none', opset: 18 }), writeOnnx(nchwNetwork(), { weights: 'none', opset: 11 })];
    const random = mulberry32(2024);
    const outcomes = { graph: 0, input: 0, graphError: 0 };
    const started = performance.now();
    for (let i = 0; i < 200; i++) {
      const source = seeds[i % seeds.length];
      let bytes: Uint8Array;
      if (i % 4 === 0) {
        bytes = source.slice(0, Math.floor(random() * source.length));
      } else {
        bytes = source.slice();
        const flips = 1 + Math.floor(random() * 6);
        for (let k = 0; k < flips; k++) bytes[Math.floor(random() * bytes.length)] ^= 1 << Math.floor(random() * 8);
      }
      try {
        const graph = readOnnx(bytes, 'fuzz.onnx');
        graphToProblem(graph);
        outcomes.graph++;
      } catch (error) {
        if (error instanceof InputError) outcomes.input++;
        else if (error instanceof GraphError) outcomes.graphError++;
        else throw error;
      }
    }
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(outcomes.graph + outcomes.input + outcomes.graphError).toBe(200);
    expect(outcomes.input).toBeGreaterThan(0);
  });

  it('rejects data that does not fit the shape and declares no opset as InputErrors', () => {
    const short = model({ opset: 13, nodes: [node('Add', ['x', 'a'], ['y'])], inputs: [value('x', [3])], outputs: [value('y', [3])], initializers: [init.raw('a', [3], [1, 2])] });
    expect(() => read(short)).toThrow(/constant a has 8 bytes of raw data, but 3 float32 elements need 12/);
    const noOpset = model({ opset: 0, nodes: [], inputs: [], outputs: [] });
    expect(() => read(noOpset)).toThrow(/declares no opset/);
  });

  it('rejects a node that reads a tensor nothing defines', () => {
    const bytes = model({ opset: 13, nodes: [node('Relu', ['ghost'], ['y'], [], 'r')], inputs: [value('x', [1])], outputs: [value('y', [1])] });
    expect(() => read(bytes)).toThrow(/node r \(Relu\): its input ghost is neither a graph input/);
  });
});
