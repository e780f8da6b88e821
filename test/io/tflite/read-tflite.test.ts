import { describe, expect, it } from 'vitest';
import { GraphError, type Graph, type Node } from '../../../src/graph/ir.ts';
import { graphToProblem } from '../../../src/graph/lifetimes.ts';
import { InputError } from '../../../src/io/input-error.ts';
import { readTflite } from '../../../src/io/tflite/read-tflite.ts';
import { conv, convModel, everyOpModel, OP, OPTIONS, sharedInputsModel } from './test-models.ts';
import { buildTflite, TYPE, type ModelSpec } from './tflite-builder.ts';

const FILE = 'model.tflite';

function caught(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    expect((error as Error).message).not.toContain('\n');
    return error as Error;
  }
  throw new Error('expected an error');
}

function inputError(run: () => unknown): InputError {
  const error = caught(run);
  expect(error).toBeInstanceOf(InputError);
  expect((error as InputError).file).toBe(FILE);
  expect(error.message.startsWith(`${FILE}: `)).toBe(true);
  return error as InputError;
}

function graphError(run: () => unknown): GraphError {
  const error = caught(run);
  expect(error).toBeInstanceOf(GraphError);
  expect(error.message.startsWith(`${FILE}: `)).toBe(true);
  return error as GraphError;
}

const read = (spec: ModelSpec, options?: Parameters<typeof readTflite>[2]): Graph => readTflite(buildTflite(spec), FILE, options);
const spec = (graph: Graph, name: string): Omit<Node, 'name' | 'inputs' | 'outputs'> => {
  const { name: _n, inputs: _i, outputs: _o, ...rest } = graph.nodes.find((n) => n.name === name) as Node;
  return rest;
};

describe('readTflite: mapping', () => {
  it('reads a convolution: IR op, tensors, constants as views of the file', () => {
    const bytes = buildTflite(convModel());
    const graph = readTflite(bytes, FILE);
    expect(graph.layout).toBe('NHWC');
    expect(graph.name).toBe('model');
    expect(graph.inputs).toEqual(['input']);
    expect(graph.outputs).toEqual(['conv']);
    expect(graph.nodes).toHaveLength(1);
    expect(graph.nodes[0]).toEqual({
      op: 'Conv',
      name: 'conv',
      inputs: ['input', 'filter', 'bias'],
      outputs: ['conv'],
      kernel: [3, 3],
      strides: [2, 2],
      dilations: [1, 1],
      padding: { kind: 'same' },
      groups: 1,
      outChannels: 4,
      weightLayout: 'OHWI',
      activation: 'relu',
    });
    const bias = graph.tensors.get('bias')!;
    expect(bias).toMatchObject({ shape: [4], dtype: 'float32', constant: true });
    expect(bias.data).toBeInstanceOf(Float32Array);
    expect([...(bias.data as Float32Array)]).toEqual([1, 2, 3, 4]);
    expect(bias.data!.buffer).toBe(bytes.buffer);
    expect(graph.tensors.get('filter')!.data!.byteLength).toBe(108 * 4);
    expect(graph.tensors.get('input')).toEqual({ name: 'input', shape: [1, 8, 8, 3], dtype: 'float32', constant: false });
  });

  it('copies constant data only when it is not aligned for its element type', () => {
    const bytes = buildTflite(convModel());
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    const graph = readTflite(shifted.subarray(1), FILE);
    const bias = graph.tensors.get('bias')!.data as Float32Array;
    expect(bias.buffer).not.toBe(shifted.buffer);
    expect([...bias]).toEqual([1, 2, 3, 4]);
  });

  it('reads constant data kept after the FlatBuffer (Buffer.offset and size)', () => {
    const model = convModel();
    const tensors = model.tensors.map((t) => (t.name === 'bias' ? { ...t, external: true } : t));
    const graph = read({ ...model, tensors });
    expect([...(graph.tensors.get('bias')!.data as Float32Array)]).toEqual([1, 2, 3, 4]);
  });

  it('maps every supported operator, checking every output shape', () => {
    const graph = read(everyOpModel());
    expect(graph.nodes.map((n) => n.op)).toEqual([
      'Conv',
      'Conv',
      'MaxPool',
      'AveragePool',
      'Add',
      'Mul',
      'Pad',
      'Resize',
      'Resize',
      'Concat',
      'Mean',
      'Squeeze',
      'FullyConnected',
      'Relu',
      'Relu6',
      'Sigmoid',
      'Tanh',
      'Reshape',
      'Softmax',
      'Dequantize',
      'Add',
    ]);
    expect(spec(graph, 'depthwise')).toEqual({
      op: 'Conv',
      kernel: [3, 3],
      strides: [1, 1],
      dilations: [2, 2],
      padding: { kind: 'same' },
      groups: 4,
      outChannels: 8,
      weightLayout: '1HWO',
      activation: 'relu6',
    });
    expect(spec(graph, 'max_pool')).toEqual({ op: 'MaxPool', kernel: [2, 2], strides: [2, 2], padding: { kind: 'valid' }, activation: 'none' });
    expect(spec(graph, 'avg_pool')).toEqual({ op: 'AveragePool', kernel: [2, 2], strides: [1, 1], padding: { kind: 'same' }, activation: 'none' });
    expect(spec(graph, 'sum')).toEqual({ op: 'Add', activation: 'relu-n1-to-1' });
    expect(spec(graph, 'product')).toEqual({ op: 'Mul', activation: 'tanh' });
    expect(spec(graph, 'padded')).toEqual({
      op: 'Pad',
      pads: [
        [0, 0],
        [1, 1],
        [1, 1],
        [0, 0],
      ],
    });
    expect(spec(graph, 'bilinear')).toEqual({ op: 'Resize', mode: 'bilinear', size: [6, 6], alignCorners: true, halfPixelCenters: false });
    expect(spec(graph, 'nearest')).toEqual({ op: 'Resize', mode: 'nearest', size: [3, 3], alignCorners: false, halfPixelCenters: true });
    expect(spec(graph, 'concat')).toEqual({ op: 'Concat', axis: 3, activation: 'none' });
    expect(spec(graph, 'mean')).toEqual({ op: 'Mean', axes: [1, 2], keepDims: true });
    expect(spec(graph, 'squeezed')).toEqual({ op: 'Squeeze', axes: [1, 2] });
    expect(spec(graph, 'fc')).toEqual({ op: 'FullyConnected', outFeatures: 10, activation: 'relu6', keepDims: false });
    expect(spec(graph, 'reshaped')).toEqual({ op: 'Reshape', shape: [2, 5] });
    expect(spec(graph, 'softmax')).toEqual({ op: 'Softmax', axis: -1, beta: 0.5 });
    expect(graph.nodes.find((n) => n.name === 'fc')!.inputs).toEqual(['squeezed', 'weights', '']);
    expect(graph.inputs).toEqual(['input', 'quantized']);
    expect(graph.tensors.get('quantized')!.dtype).toBe('uint8');
    expect(graph.tensors.get('axes')!.data).toBeInstanceOf(BigInt64Array);
    expect(graph.tensors.get('paddings')!.data).toBeInstanceOf(Int32Array);
    const problem = graphToProblem(graph);
    // Every non-constant tensor except the graph's inputs and output.
    expect(problem.records.map((r) => r.id)).toEqual([
      'conv',
      'depthwise',
      'max_pool',
      'avg_pool',
      'sum',
      'product',
      'padded',
      'bilinear',
      'nearest',
      'concat',
      'mean',
      'squeezed',
      'fc',
      'relu',
      'relu6',
      'logistic',
      'tanh',
      'reshaped',
      'softmax',
      'dequantized',
    ]);
  });

  it('reads operator codes from deprecated_builtin_code and builtin_code, taking the larger', () => {
    const model = convModel();
    const graph = read({ ...model, operators: [{ ...model.operators[0], deprecatedOnly: true }] });
    expect(graph.nodes[0].op).toBe('Conv');
    const error = graphError(() => read({ ...model, operators: [{ code: OP.BROADCAST_TO, inputs: [0], outputs: [3] }] }));
    expect(error.message).toContain('BROADCAST_TO');
  });

  it('makes duplicate and empty tensor names unique', () => {
    const model = convModel();
    const tensors = model.tensors.map((t) => (t.name === 'bias' ? { ...t, name: 'filter' } : t.name === 'conv' ? { ...t, name: '' } : t));
    const graph = read({ ...model, tensors });
    expect(graph.nodes[0].inputs).toEqual(['input', 'filter', 'filter#2']);
    expect(graph.outputs).toEqual(['tensor#3']);
    expect(graph.nodes[0].name).toBe('tensor#3');
  });

  it('escapes control characters in names, so that messages stay on one line', () => {
    const model = convModel();
    const tensors = model.tensors.map((t) => (t.name === 'conv' ? { ...t, name: 'conv\nout\u2028' } : t));
    const graph = read({ ...model, tensors });
    expect(graph.outputs).toEqual(['conv\\x0aout\\u2028']);
  });
});

describe('readTflite: dynamic shapes', () => {
  const dynamic = convModel({
    input: { name: 'input', shape: [1, 8, 8, 3], signature: [-1, 8, 8, 3] },
    output: { name: 'conv', shape: [1, 4, 4, 4], signature: [-1, 4, 4, 4] },
  });

  it('needs a shape for a dynamic graph input, naming the tensor', () => {
    const error = inputError(() => read(dynamic));
    expect(error.message).toContain('"input"');
    expect(error.message).toContain('-1');
  });

  it('takes the given input shape and infers the shapes after it', () => {
    const graph = read(dynamic, { inputShapes: new Map([['input', [2, 8, 8, 3]]]) });
    expect(graph.tensors.get('input')!.shape).toEqual([2, 8, 8, 3]);
    expect(graph.tensors.get('conv')!.shape).toEqual([2, 4, 4, 4]);
  });

  it('rejects an input shape that does not fit the signature or names no input', () => {
    expect(inputError(() => read(dynamic, { inputShapes: new Map([['input', [2, 9, 8, 3]]]) })).message).toContain('does not fit');
    expect(inputError(() => read(dynamic, { inputShapes: new Map([['input', [2, 8, 8]]]) })).message).toContain('does not fit');
    expect(inputError(() => read(dynamic, { inputShapes: new Map([['images', [2, 8, 8, 3]]]) })).message).toContain('"images"');
  });
});

describe('readTflite: errors', () => {
  it('rejects an empty file, a short file and random bytes', () => {
    expect(inputError(() => readTflite(new Uint8Array(0), FILE)).message).toContain('empty');
    expect(inputError(() => readTflite(new Uint8Array([1, 2, 3, 4, 5]), FILE)).message).toContain('too short');
    let seed = 7;
    const random = new Uint8Array(4096).map(() => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
    expect(inputError(() => readTflite(random, FILE)).message).toContain('not a TFLite model');
  });

  it('rejects a FlatBuffer with another identifier', () => {
    const error = inputError(() => read({ ...convModel(), identifier: 'TFL2' }));
    expect(error.message).toBe(`${FILE}: the file is not a TFLite model: bytes 4 to 7 hold "TFL2", not the identifier "TFL3".`);
  });

  it('rejects random bytes behind a TFL3 identifier and every truncation of a model', () => {
    let seed = 11;
    for (let k = 0; k < 50; k++) {
      const random = new Uint8Array(64 + k * 37).map(() => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
      random.set([0x54, 0x46, 0x4c, 0x33], 4);
      inputError(() => readTflite(random, FILE));
    }
    const bytes = buildTflite(convModel());
    for (let length = 0; length < bytes.length; length++) inputError(() => readTflite(bytes.subarray(0, length), FILE));
  });

  it('rejects other schema versions and subgraph counts other than one', () => {
    expect(inputError(() => read({ ...convModel(), version: 2 })).message).toContain('schema version 2');
    expect(inputError(() => read({ ...convModel(), subgraphs: 2 })).message).toBe(`${FILE}: the model has 2 subgraphs; memplan reads models with exactly one.`);
    expect(inputError(() => read({ ...convModel(), subgraphs: 0 })).message).toContain('has 0 subgraphs');
  });

  it('names an unsupported operator, its node and the file', () => {
    const model = convModel();
    const error = graphError(() => read({ ...model, operators: [{ code: OP.SPACE_TO_DEPTH, inputs: [0], outputs: [3] }] }));
    expect(error.message).toBe(`${FILE}: node conv: the TFLite operator SPACE_TO_DEPTH is not supported.`);
    const custom = graphError(() => read({ ...model, operators: [{ code: OP.CUSTOM, customCode: 'TFLite_Detection_PostProcess', inputs: [0], outputs: [3] }] }));
    expect(custom.message).toContain('CUSTOM "TFLite_Detection_PostProcess"');
  });

  it('rejects a SIGN_BIT activation and an unknown one', () => {
    expect(graphError(() => read(convModel({ conv: conv([0, 1, 2], [3], { stride: 2, activation: 5 }) }))).message).toContain('SIGN_BIT');
    expect(inputError(() => read(convModel({ conv: conv([0, 1, 2], [3], { stride: 2, activation: 9 }) }))).message).toContain('activation code 9');
  });

  it('rejects element types the IR does not hold, naming the tensor', () => {
    const error = inputError(() => read(convModel({ input: { name: 'input', shape: [1, 8, 8, 3], type: TYPE.STRING } })));
    expect(error.message).toBe(`${FILE}: tensor "input" has the element type STRING, which memplan does not support.`);
  });

  it('reports an output shape that differs from shape inference, naming the node', () => {
    const error = graphError(() => read(convModel({ output: { name: 'conv', shape: [1, 5, 4, 4] } })));
    expect(error.message).toBe(`${FILE}: node conv (CONV_2D): the file gives output conv the shape [1,5,4,4], but the op computes [1,4,4,4].`);
  });

  it('rejects missing options, bad parameters and options of the wrong type', () => {
    expect(graphError(() => read(convModel({ conv: { code: OP.CONV_2D, inputs: [0, 1, 2], outputs: [3] } }))).message).toContain('has no Conv2DOptions');
    expect(graphError(() => read(convModel({ conv: conv([0, 1, 2], [3], { stride: 0 }) }))).message).toContain('stride_h 0 is not positive');
    const wrongType = conv([0, 1, 2], [3], { stride: 2 });
    expect(inputError(() => read(convModel({ conv: { ...wrongType, options: { ...wrongType.options!, type: OPTIONS.Pool2D } } }))).message).toContain('where Conv2DOptions (1) belongs');
    expect(graphError(() => read(convModel({ conv: conv([0], [3], { stride: 2 }) }))).message).toContain('lacks input 1');
  });

  it('rejects tensor and opcode indices out of range', () => {
    expect(inputError(() => read(convModel({ conv: conv([0, 1, 7], [3], { stride: 2 }) }))).message).toContain('tensor 7');
    expect(inputError(() => read({ ...convModel(), outputs: [-2] })).message).toContain('tensor -2');
  });

  it('needs the axes of MEAN as a constant', () => {
    const model: ModelSpec = {
      tensors: [
        { name: 'x', shape: [1, 4, 4, 8] },
        { name: 'axes', shape: [2], type: TYPE.INT32 },
        { name: 'mean', shape: [1, 8] },
      ],
      operators: [{ code: OP.MEAN, inputs: [0, 1], outputs: [2] }],
      inputs: [0, 1],
      outputs: [2],
    };
    expect(graphError(() => read(model)).message).toContain('axis tensor (input 1) is not a constant');
  });

  it('stops early on a file whose operators share one huge vector', () => {
    // A small version reads fine; the large one would take ~10^9 steps without the work budget.
    expect(readTflite(sharedInputsModel(3, 10), FILE).nodes).toHaveLength(3);
    const error = inputError(() => readTflite(sharedInputsModel(20_000, 100_000), FILE));
    expect(error.message).toMatch(/offsets overlap far more than any real model's do \(at .* of operator \d+ of subgraph 0\)\.$/);
  });
});
