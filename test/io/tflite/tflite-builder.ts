import { Builder } from 'flatbuffers';

/**
 * Builds small .tflite files for tests with the flatbuffers runtime's Builder, following
 * schema.fbs field ids. Just enough of the schema for the reader's tests.
 */

export const TYPE = { FLOAT32: 0, FLOAT16: 1, INT32: 2, UINT8: 3, INT64: 4, STRING: 5, BOOL: 6, INT16: 7, INT8: 9 } as const;

/** One field of an options table: id, kind, value. */
export type OptionField =
  | { readonly id: number; readonly int8: number }
  | { readonly id: number; readonly int32: number }
  | { readonly id: number; readonly bool: boolean }
  | { readonly id: number; readonly float32: number }
  | { readonly id: number; readonly int32s: readonly number[] };

export interface TensorSpec {
  readonly name: string;
  readonly shape: readonly number[];
  readonly type?: number;
  /** Constant data (the tensor gets a buffer of its own). */
  readonly data?: Uint8Array;
  /** Keep the data after the FlatBuffer (Buffer.offset / Buffer.size), as models over 2 GB do. */
  readonly external?: boolean;
  readonly signature?: readonly number[];
}

export interface OperatorSpec {
  /** Builtin operator code (e.g. 3 for CONV_2D). */
  readonly code: number;
  readonly inputs: readonly number[];
  readonly outputs: readonly number[];
  /** BuiltinOptions union type and the table's fields. */
  readonly options?: { readonly type: number; readonly fields: readonly OptionField[] };
  readonly customCode?: string;
  /** Write the code only in the int8 deprecated_builtin_code field (old files). */
  readonly deprecatedOnly?: boolean;
}

export interface ModelSpec {
  readonly tensors: readonly TensorSpec[];
  readonly operators: readonly OperatorSpec[];
  readonly inputs: readonly number[];
  readonly outputs: readonly number[];
  readonly version?: number;
  /** Number of copies of the subgraph (default 1). */
  readonly subgraphs?: number;
  readonly identifier?: string;
  readonly name?: string;
}

function int32Vector(b: Builder, values: readonly number[]): number {
  b.startVector(4, values.length, 4);
  for (let k = values.length - 1; k >= 0; k--) b.addInt32(values[k]);
  return b.endVector();
}

function offsetVector(b: Builder, offsets: readonly number[]): number {
  b.startVector(4, offsets.length, 4);
  for (let k = offsets.length - 1; k >= 0; k--) b.addOffset(offsets[k]);
  return b.endVector();
}

function optionsTable(b: Builder, fields: readonly OptionField[]): number {
  const vectors = fields.map((f) => ('int32s' in f ? int32Vector(b, f.int32s) : 0));
  b.startObject(Math.max(0, ...fields.map((f) => f.id + 1)));
  fields.forEach((f, k) => {
    if ('int8' in f) b.addFieldInt8(f.id, f.int8, null);
    else if ('int32' in f) b.addFieldInt32(f.id, f.int32, null);
    else if ('bool' in f) b.addFieldInt8(f.id, f.bool ? 1 : 0, null);
    else if ('float32' in f) b.addFieldFloat32(f.id, f.float32, null);
    else b.addFieldOffset(f.id, vectors[k], 0);
  });
  return b.endObject();
}

function build(spec: ModelSpec, externalAt: number): { bytes: Uint8Array; external: Uint8Array } {
  const b = new Builder(1024);
  // Buffers: 0 is the empty sentinel, then one per constant tensor.
  const bufferOf: number[] = [];
  const buffers: number[] = [];
  const externalParts: Uint8Array[] = [];
  let externalLength = 0;
  const emptyBuffer = (): number => {
    b.startObject(3);
    return b.endObject();
  };
  buffers.push(emptyBuffer());
  for (const tensor of spec.tensors) {
    if (tensor.data === undefined) {
      bufferOf.push(0);
      continue;
    }
    let table: number;
    if (tensor.external) {
      b.startObject(3);
      b.addFieldInt64(1, BigInt(externalAt + externalLength), null);
      b.addFieldInt64(2, BigInt(tensor.data.length), null);
      table = b.endObject();
      externalParts.push(tensor.data);
      externalLength += tensor.data.length;
    } else {
      b.startVector(1, tensor.data.length, 16);
      for (let k = tensor.data.length - 1; k >= 0; k--) b.addInt8(tensor.data[k]);
      const data = b.endVector();
      b.startObject(3);
      b.addFieldOffset(0, data, 0);
      table = b.endObject();
    }
    bufferOf.push(buffers.length);
    buffers.push(table);
  }

  const tensors = spec.tensors.map((tensor, index) => {
    const name = b.createString(tensor.name);
    const shape = int32Vector(b, tensor.shape);
    const signature = tensor.signature === undefined ? 0 : int32Vector(b, tensor.signature);
    b.startObject(8);
    b.addFieldOffset(0, shape, 0);
    b.addFieldInt8(1, tensor.type ?? TYPE.FLOAT32, null);
    b.addFieldInt32(2, bufferOf[index], 0);
    b.addFieldOffset(3, name, 0);
    if (signature !== 0) b.addFieldOffset(7, signature, 0);
    return b.endObject();
  });

  const codes = spec.operators.map((op) => {
    const custom = op.customCode === undefined ? 0 : b.createString(op.customCode);
    b.startObject(4);
    b.addFieldInt8(0, Math.min(op.code, 127), null);
    if (custom !== 0) b.addFieldOffset(1, custom, 0);
    b.addFieldInt32(2, 1, null);
    if (!op.deprecatedOnly) b.addFieldInt32(3, op.code, null);
    return b.endObject();
  });

  const operators = spec.operators.map((op, index) => {
    const inputs = int32Vector(b, op.inputs);
    const outputs = int32Vector(b, op.outputs);
    const options = op.options === undefined ? 0 : optionsTable(b, op.options.fields);
    b.startObject(5);
    b.addFieldInt32(0, index, null);
    b.addFieldOffset(1, inputs, 0);
    b.addFieldOffset(2, outputs, 0);
    if (op.options !== undefined) {
      b.addFieldInt8(3, op.options.type, null);
      b.addFieldOffset(4, options, 0);
    }
    return b.endObject();
  });

  const subgraphs: number[] = [];
  for (let k = 0; k < (spec.subgraphs ?? 1); k++) {
    const tensorVector = offsetVector(b, tensors);
    const inputs = int32Vector(b, spec.inputs);
    const outputs = int32Vector(b, spec.outputs);
    const operatorVector = offsetVector(b, operators);
    const name = b.createString(spec.name ?? 'main');
    b.startObject(5);
    b.addFieldOffset(0, tensorVector, 0);
    b.addFieldOffset(1, inputs, 0);
    b.addFieldOffset(2, outputs, 0);
    b.addFieldOffset(3, operatorVector, 0);
    b.addFieldOffset(4, name, 0);
    subgraphs.push(b.endObject());
  }

  const codeVector = offsetVector(b, codes);
  const subgraphVector = offsetVector(b, subgraphs);
  const bufferVector = offsetVector(b, buffers);
  const description = b.createString('memplan test model');
  b.startObject(5);
  b.addFieldInt32(0, spec.version ?? 3, null);
  b.addFieldOffset(1, codeVector, 0);
  b.addFieldOffset(2, subgraphVector, 0);
  b.addFieldOffset(3, description, 0);
  b.addFieldOffset(4, bufferVector, 0);
  b.finish(b.endObject(), spec.identifier ?? 'TFL3');
  const external = new Uint8Array(externalLength);
  let at = 0;
  for (const part of externalParts) {
    external.set(part, at);
    at += part.length;
  }
  return { bytes: b.asUint8Array().slice(), external };
}

/** A .tflite file for `spec`; external data follows the FlatBuffer at a 16-byte boundary. */
export function buildTflite(spec: ModelSpec): Uint8Array {
  const first = build(spec, 0);
  if (first.external.length === 0) return first.bytes;
  const start = Math.ceil(first.bytes.length / 16) * 16;
  const second = build(spec, start);
  if (second.bytes.length !== first.bytes.length) throw new Error('external data moved the FlatBuffer');
  const file = new Uint8Array(start + second.external.length);
  file.set(second.bytes, 0);
  file.set(second.external, start);
  return file;
}

/** Little-endian bytes of float32 values. */
export function float32Bytes(values: readonly number[]): Uint8Array {
  return new Uint8Array(new Float32Array(values).buffer);
}

/** Little-endian bytes of int32 values. */
export function int32Bytes(values: readonly number[]): Uint8Array {
  return new Uint8Array(new Int32Array(values).buffer);
}

/** Little-endian bytes of int64 values. */
export function int64Bytes(values: readonly number[]): Uint8Array {
  return new Uint8Array(new BigInt64Array(values.map((v) => BigInt(v))).buffer);
}
