import { Builder } from 'flatbuffers';
import { float32Bytes, int32Bytes, int64Bytes, TYPE, type ModelSpec, type OperatorSpec, type TensorSpec } from './tflite-builder.ts';

/** Small hand-made models for the reader's tests. */

/** Builtin operator codes and BuiltinOptions union types (schema.fbs). */
export const OP = {
  ADD: 0,
  AVERAGE_POOL_2D: 1,
  CONCATENATION: 2,
  CONV_2D: 3,
  DEPTHWISE_CONV_2D: 4,
  DEQUANTIZE: 6,
  FULLY_CONNECTED: 9,
  LOGISTIC: 14,
  MAX_POOL_2D: 17,
  MUL: 18,
  RELU: 19,
  RELU6: 21,
  RESHAPE: 22,
  RESIZE_BILINEAR: 23,
  SOFTMAX: 25,
  SPACE_TO_DEPTH: 26,
  TANH: 28,
  CUSTOM: 32,
  PAD: 34,
  MEAN: 40,
  SQUEEZE: 43,
  RESIZE_NEAREST_NEIGHBOR: 97,
  BROADCAST_TO: 130,
} as const;
export const OPTIONS = {
  Conv2D: 1,
  DepthwiseConv2D: 2,
  Pool2D: 5,
  FullyConnected: 8,
  Softmax: 9,
  Concatenation: 10,
  Add: 11,
  ResizeBilinear: 15,
  Mul: 21,
  Reducer: 27,
  Squeeze: 30,
  ResizeNearestNeighbor: 74,
} as const;

const zeros = (count: number): Uint8Array => float32Bytes(new Array<number>(count).fill(0));

export function conv(inputs: number[], outputs: number[], fields: { stride?: number; padding?: number; activation?: number; dilation?: number } = {}): OperatorSpec {
  return {
    code: OP.CONV_2D,
    inputs,
    outputs,
    options: {
      type: OPTIONS.Conv2D,
      fields: [
        { id: 0, int8: fields.padding ?? 0 },
        { id: 1, int32: fields.stride ?? 1 },
        { id: 2, int32: fields.stride ?? 1 },
        { id: 3, int8: fields.activation ?? 0 },
        { id: 4, int32: fields.dilation ?? 1 },
        { id: 5, int32: fields.dilation ?? 1 },
      ],
    },
  };
}

/** input [1,8,8,3] -> CONV_2D (4 filters 3x3, stride 2, SAME, RELU) -> [1,4,4,4]. */
export function convModel(overrides: { conv?: OperatorSpec; output?: TensorSpec; input?: TensorSpec } = {}): ModelSpec {
  return {
    tensors: [
      overrides.input ?? { name: 'input', shape: [1, 8, 8, 3] },
      { name: 'filter', shape: [4, 3, 3, 3], data: zeros(4 * 3 * 3 * 3) },
      { name: 'bias', shape: [4], data: float32Bytes([1, 2, 3, 4]) },
      overrides.output ?? { name: 'conv', shape: [1, 4, 4, 4] },
    ],
    operators: [overrides.conv ?? conv([0, 1, 2], [3], { stride: 2, activation: 1 })],
    inputs: [0],
    outputs: [3],
  };
}

/** A model with one of every operator the reader maps. */
export function everyOpModel(): ModelSpec {
  const t: TensorSpec[] = [];
  const add = (spec: TensorSpec): number => t.push(spec) - 1;
  const ops: OperatorSpec[] = [];
  const input = add({ name: 'input', shape: [1, 8, 8, 3] });
  const filter = add({ name: 'filter', shape: [4, 3, 3, 3], data: zeros(108) });
  const bias = add({ name: 'bias', shape: [4], data: zeros(4) });
  const c1 = add({ name: 'conv', shape: [1, 4, 4, 4] });
  ops.push(conv([input, filter, bias], [c1], { stride: 2, activation: 1 }));
  const dwFilter = add({ name: 'dw_filter', shape: [1, 3, 3, 8], data: zeros(72) });
  const d1 = add({ name: 'depthwise', shape: [1, 4, 4, 8] });
  ops.push({
    code: OP.DEPTHWISE_CONV_2D,
    inputs: [c1, dwFilter, -1],
    outputs: [d1],
    options: {
      type: OPTIONS.DepthwiseConv2D,
      fields: [
        { id: 0, int8: 0 },
        { id: 1, int32: 1 },
        { id: 2, int32: 1 },
        { id: 3, int32: 2 },
        { id: 4, int8: 3 },
        { id: 5, int32: 2 },
        { id: 6, int32: 2 },
      ],
    },
  });
  const pool = (code: number, inputIndex: number, name: string, shape: number[], padding: number, stride: number): number => {
    const out = add({ name, shape });
    ops.push({
      code,
      inputs: [inputIndex],
      outputs: [out],
      options: {
        type: OPTIONS.Pool2D,
        fields: [
          { id: 0, int8: padding },
          { id: 1, int32: stride },
          { id: 2, int32: stride },
          { id: 3, int32: 2 },
          { id: 4, int32: 2 },
          { id: 5, int8: 0 },
        ],
      },
    });
    return out;
  };
  const mp = pool(OP.MAX_POOL_2D, d1, 'max_pool', [1, 2, 2, 8], 1, 2);
  const ap = pool(OP.AVERAGE_POOL_2D, mp, 'avg_pool', [1, 2, 2, 8], 0, 1);
  const sum = add({ name: 'sum', shape: [1, 2, 2, 8] });
  ops.push({ code: OP.ADD, inputs: [mp, ap], outputs: [sum], options: { type: OPTIONS.Add, fields: [{ id: 0, int8: 2 }] } });
  const product = add({ name: 'product', shape: [1, 2, 2, 8] });
  ops.push({ code: OP.MUL, inputs: [sum, sum], outputs: [product], options: { type: OPTIONS.Mul, fields: [{ id: 0, int8: 4 }] } });
  const paddings = add({ name: 'paddings', shape: [4, 2], type: TYPE.INT32, data: int32Bytes([0, 0, 1, 1, 1, 1, 0, 0]) });
  const padded = add({ name: 'padded', shape: [1, 4, 4, 8] });
  ops.push({ code: OP.PAD, inputs: [product, paddings], outputs: [padded] });
  const size1 = add({ name: 'size1', shape: [2], type: TYPE.INT32, data: int32Bytes([6, 6]) });
  const up = add({ name: 'bilinear', shape: [1, 6, 6, 8] });
  ops.push({ code: OP.RESIZE_BILINEAR, inputs: [padded, size1], outputs: [up], options: { type: OPTIONS.ResizeBilinear, fields: [{ id: 2, bool: true }] } });
  const size2 = add({ name: 'size2', shape: [2], type: TYPE.INT32, data: int32Bytes([3, 3]) });
  const down = add({ name: 'nearest', shape: [1, 3, 3, 8] });
  ops.push({ code: OP.RESIZE_NEAREST_NEIGHBOR, inputs: [up, size2], outputs: [down], options: { type: OPTIONS.ResizeNearestNeighbor, fields: [{ id: 1, bool: true }] } });
  const cat = add({ name: 'concat', shape: [1, 3, 3, 16] });
  ops.push({
    code: OP.CONCATENATION,
    inputs: [down, down],
    outputs: [cat],
    options: {
      type: OPTIONS.Concatenation,
      fields: [
        { id: 0, int32: 3 },
        { id: 1, int8: 0 },
      ],
    },
  });
  const axes = add({ name: 'axes', shape: [2], type: TYPE.INT64, data: int64Bytes([1, 2]) });
  const mean = add({ name: 'mean', shape: [1, 1, 1, 16] });
  ops.push({ code: OP.MEAN, inputs: [cat, axes], outputs: [mean], options: { type: OPTIONS.Reducer, fields: [{ id: 0, bool: true }] } });
  const squeezed = add({ name: 'squeezed', shape: [1, 16] });
  ops.push({ code: OP.SQUEEZE, inputs: [mean], outputs: [squeezed], options: { type: OPTIONS.Squeeze, fields: [{ id: 0, int32s: [1, 2] }] } });
  const weights = add({ name: 'weights', shape: [10, 16], data: zeros(160) });
  const fc = add({ name: 'fc', shape: [1, 10] });
  ops.push({ code: OP.FULLY_CONNECTED, inputs: [squeezed, weights, -1], outputs: [fc], options: { type: OPTIONS.FullyConnected, fields: [{ id: 0, int8: 3 }] } });
  let last = fc;
  for (const [code, name] of [
    [OP.RELU, 'relu'],
    [OP.RELU6, 'relu6'],
    [OP.LOGISTIC, 'logistic'],
    [OP.TANH, 'tanh'],
  ] as const) {
    const out = add({ name, shape: [1, 10] });
    ops.push({ code, inputs: [last], outputs: [out] });
    last = out;
  }
  const newShape = add({ name: 'new_shape', shape: [2], type: TYPE.INT32, data: int32Bytes([2, -1]) });
  const reshaped = add({ name: 'reshaped', shape: [2, 5] });
  ops.push({ code: OP.RESHAPE, inputs: [last, newShape], outputs: [reshaped] });
  const softmax = add({ name: 'softmax', shape: [2, 5] });
  ops.push({ code: OP.SOFTMAX, inputs: [reshaped], outputs: [softmax], options: { type: OPTIONS.Softmax, fields: [{ id: 0, float32: 0.5 }] } });
  const quantized = add({ name: 'quantized', shape: [2, 5], type: TYPE.UINT8 });
  const dequantized = add({ name: 'dequantized', shape: [2, 5] });
  ops.push({ code: OP.DEQUANTIZE, inputs: [quantized], outputs: [dequantized] });
  const output = add({ name: 'output', shape: [2, 5] });
  ops.push({ code: OP.ADD, inputs: [softmax, dequantized], outputs: [output] });
  return { tensors: t, operators: ops, inputs: [input, quantized], outputs: [output] };
}

/**
 * A hostile file: `operators` CONCATENATION ops that all point at one shared inputs vector
 * of `fanIn` copies of tensor 0 (FlatBuffers let many tables share one vector). Each op
 * is valid on its own; reading them all would cost operators x fanIn.
 */
export function sharedInputsModel(operators: number, fanIn: number): Uint8Array {
  const b = new Builder(1 << 20);
  const vector = (values: readonly number[]): number => {
    b.startVector(4, values.length, 4);
    for (let k = values.length - 1; k >= 0; k--) b.addInt32(values[k]);
    return b.endVector();
  };
  const offsets = (values: readonly number[]): number => {
    b.startVector(4, values.length, 4);
    for (let k = values.length - 1; k >= 0; k--) b.addOffset(values[k]);
    return b.endVector();
  };
  const shared = vector(new Array<number>(fanIn).fill(0));
  const tensor = (name: string, shape: number[]): number => {
    const nameOffset = b.createString(name);
    const shapeOffset = vector(shape);
    b.startObject(4);
    b.addFieldOffset(0, shapeOffset, 0);
    b.addFieldOffset(3, nameOffset, 0);
    return b.endObject();
  };
  const tensors = [tensor('x', [1]), ...Array.from({ length: operators }, (_, k) => tensor(`y${k}`, [fanIn]))];
  const ops = Array.from({ length: operators }, (_, k) => {
    const outputs = vector([k + 1]);
    b.startObject(3);
    b.addFieldOffset(1, shared, 0);
    b.addFieldOffset(2, outputs, 0);
    return b.endObject();
  });
  b.startObject(4);
  b.addFieldInt8(0, OP.CONCATENATION, null);
  b.addFieldInt32(3, OP.CONCATENATION, null);
  const code = b.endObject();
  const tensorVector = offsets(tensors);
  const inputs = vector([0]);
  const outputs = vector([operators]);
  const operatorVector = offsets(ops);
  b.startObject(4);
  b.addFieldOffset(0, tensorVector, 0);
  b.addFieldOffset(1, inputs, 0);
  b.addFieldOffset(2, outputs, 0);
  b.addFieldOffset(3, operatorVector, 0);
  const subgraph = b.endObject();
  b.startObject(0);
  const emptyBuffer = b.endObject();
  const codes = offsets([code]);
  const subgraphs = offsets([subgraph]);
  const buffers = offsets([emptyBuffer]);
  b.startObject(5);
  b.addFieldInt32(0, 3, null);
  b.addFieldOffset(1, codes, 0);
  b.addFieldOffset(2, subgraphs, 0);
  b.addFieldOffset(4, buffers, 0);
  b.finish(b.endObject(), 'TFL3');
  return b.asUint8Array().slice();
}
