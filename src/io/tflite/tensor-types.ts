import type { DType } from '../../graph/dtype.ts';

/** TFLite's TensorType enum (schema.fbs), by code. */
const TENSOR_TYPE_NAMES: readonly string[] = [
  'FLOAT32',
  'FLOAT16',
  'INT32',
  'UINT8',
  'INT64',
  'STRING',
  'BOOL',
  'INT16',
  'COMPLEX64',
  'INT8', // 0-9
  'FLOAT64',
  'COMPLEX128',
  'UINT64',
  'RESOURCE',
  'VARIANT',
  'UINT32',
  'UINT16',
  'INT4',
  'BFLOAT16', // 10-18
];

/** The element types the IR holds. */
const DTYPE_OF_TENSOR_TYPE: ReadonlyMap<number, DType> = new Map<number, DType>([
  [0, 'float32'],
  [1, 'float16'],
  [2, 'int32'],
  [3, 'uint8'],
  [4, 'int64'],
  [6, 'bool'],
  [7, 'int16'],
  [9, 'int8'],
  [10, 'float64'],
]);

/** The IR's element type for a TFLite TensorType code, or undefined when it has none. */
export function dtypeOfTensorType(code: number): DType | undefined {
  return DTYPE_OF_TENSOR_TYPE.get(code);
}

/** A TensorType code's name as the schema spells it (e.g. "STRING"). */
export function tensorTypeName(code: number): string {
  return TENSOR_TYPE_NAMES[code] ?? `TensorType ${code}`;
}
