import type { FlatBuffer, Table, TableVector } from './flatbuffer-reader.ts';

/**
 * The fields of TFLite's schema (schema.fbs, version 3) that the reader needs, by field
 * id. Each accessor turns one table into a plain object; vectors of tables stay lazy.
 */

/** A byte range of the file. */
export interface ByteRange {
  readonly offset: number;
  readonly length: number;
}

export interface OperatorCodeFields {
  /** max(deprecated_builtin_code, builtin_code), as TFLite reads it. */
  readonly builtinCode: number;
  readonly customCode: string | undefined;
}

export interface ModelFields {
  readonly version: number;
  readonly operatorCodes: TableVector;
  readonly subgraphs: TableVector;
  readonly buffers: TableVector;
}

export interface SubGraphFields {
  readonly name: string;
  readonly tensors: TableVector;
  readonly inputs: readonly number[];
  readonly outputs: readonly number[];
  readonly operators: TableVector;
}

export interface TensorFields {
  readonly shape: readonly number[];
  readonly type: number;
  readonly buffer: number;
  readonly name: string;
  /** The shape with -1 for unknown dimensions; undefined when the file has none. */
  readonly shapeSignature: readonly number[] | undefined;
}

export interface OperatorFields {
  readonly opcodeIndex: number;
  /** Tensor indices; -1 marks an absent optional input. */
  readonly inputs: readonly number[];
  readonly outputs: readonly number[];
  /** The BuiltinOptions union's type (0: none). */
  readonly optionsType: number;
  readonly options: Table | undefined;
}

/** Model: version 0, operator_codes 1, subgraphs 2, description 3, buffers 4. */
export function modelFields(buffer: FlatBuffer): ModelFields {
  const model = buffer.root('the model table');
  return {
    version: model.uint32(0, 'version', 0),
    operatorCodes: model.tables(1, 'operator_codes', (k) => `operator code ${k}`),
    subgraphs: model.tables(2, 'subgraphs', (k) => `subgraph ${k}`),
    buffers: model.tables(4, 'buffers', (k) => `buffer ${k}`),
  };
}

/** OperatorCode: deprecated_builtin_code 0 (int8), custom_code 1, version 2, builtin_code 3 (int32). */
export function operatorCodeFields(code: Table): OperatorCodeFields {
  const deprecated = code.int8(0, 'deprecated_builtin_code', 0);
  const extended = code.int32(3, 'builtin_code', 0);
  return { builtinCode: Math.max(deprecated, extended), customCode: code.string(1, 'custom_code') };
}

/** SubGraph: tensors 0, inputs 1, outputs 2, operators 3, name 4. */
export function subGraphFields(subgraph: Table, index: number): SubGraphFields {
  return {
    tensors: subgraph.tables(0, 'tensors', (k) => `tensor ${k} of subgraph ${index}`),
    inputs: subgraph.int32s(1, 'inputs'),
    outputs: subgraph.int32s(2, 'outputs'),
    operators: subgraph.tables(3, 'operators', (k) => `operator ${k} of subgraph ${index}`),
    name: subgraph.string(4, 'name') ?? '',
  };
}

/** Tensor: shape 0, type 1 (int8), buffer 2 (uint32), name 3, ..., shape_signature 7. */
export function tensorFields(tensor: Table): TensorFields {
  return {
    shape: tensor.int32s(0, 'shape'),
    type: tensor.int8(1, 'type', 0),
    buffer: tensor.uint32(2, 'buffer', 0),
    name: tensor.string(3, 'name') ?? '',
    shapeSignature: tensor.has(7) ? tensor.int32s(7, 'shape_signature') : undefined,
  };
}

/**
 * Operator: opcode_index 0 (uint32), inputs 1, outputs 2, builtin_options_type 3 (uint8),
 * builtin_options 4.
 */
export function operatorFields(operator: Table): OperatorFields {
  const optionsType = operator.uint8(3, 'builtin_options_type', 0);
  return {
    opcodeIndex: operator.uint32(0, 'opcode_index', 0),
    inputs: operator.int32s(1, 'inputs'),
    outputs: operator.int32s(2, 'outputs'),
    optionsType,
    options: optionsType === 0 ? undefined : operator.table(4, 'builtin_options'),
  };
}

/**
 * Buffer: data 0 ([ubyte]); offset 1 and size 2 (uint64) for data kept after the FlatBuffer
 * (models over 2 GB; an offset counts from the start of the file and is valid when > 1).
 * Returns the data's range of the file, or undefined for an empty buffer.
 */
export function bufferData(buffer: FlatBuffer, table: Table): ByteRange | undefined {
  const data = table.byteRange(0, 'data');
  if (data !== undefined && data.length > 0) return data;
  const offset = table.uint64(1, 'offset', 0);
  const size = table.uint64(2, 'size', 0);
  if (offset <= 1 || size === 0) return undefined;
  buffer.need(offset, size, `the data of ${table.what}`);
  return { offset, length: size };
}
