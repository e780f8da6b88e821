import { DTYPE_BYTES, type DType } from '../../graph/dtype.ts';
import type { ByteRange } from './schema-fields.ts';

/**
 * A constant's data as a typed array over the file's bytes. The view shares the file's
 * memory when the data is aligned for its element type, and is a copy otherwise (typed
 * arrays need aligned starts). `range.length` must be a multiple of the element size.
 * float16 data is a Uint16Array of raw halves and bool data a Uint8Array.
 */
export function constantView(bytes: Uint8Array, range: ByteRange, dtype: DType): ArrayBufferView {
  const size = DTYPE_BYTES[dtype];
  const count = range.length / size;
  const start = bytes.byteOffset + range.offset;
  const aligned = start % size === 0;
  const buffer = aligned ? bytes.buffer : bytes.slice(range.offset, range.offset + range.length).buffer;
  const offset = aligned ? start : 0;
  switch (dtype) {
    case 'float32':
      return new Float32Array(buffer, offset, count);
    case 'float64':
      return new Float64Array(buffer, offset, count);
    case 'float16':
      return new Uint16Array(buffer, offset, count);
    case 'int8':
      return new Int8Array(buffer, offset, count);
    case 'uint8':
    case 'bool':
      return new Uint8Array(buffer, offset, count);
    case 'int16':
      return new Int16Array(buffer, offset, count);
    case 'int32':
      return new Int32Array(buffer, offset, count);
    case 'int64':
      return new BigInt64Array(buffer, offset, count);
  }
}

/** Whether a constant view was copied out of the file (its data was not aligned). */
export function needsCopy(bytes: Uint8Array, range: ByteRange, dtype: DType): boolean {
  return (bytes.byteOffset + range.offset) % DTYPE_BYTES[dtype] !== 0;
}

/**
 * An integer constant's values (little-endian, as TFLite stores them), or undefined when
 * the element type is not an integer type. int64 values beyond 2^53 lose precision.
 */
export function constantIntegers(bytes: Uint8Array, range: ByteRange, dtype: DType): number[] | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset + range.offset, range.length);
  const size = DTYPE_BYTES[dtype];
  let read: (at: number) => number;
  switch (dtype) {
    case 'int8':
      read = (at) => view.getInt8(at);
      break;
    case 'uint8':
      read = (at) => view.getUint8(at);
      break;
    case 'int16':
      read = (at) => view.getInt16(at, true);
      break;
    case 'int32':
      read = (at) => view.getInt32(at, true);
      break;
    case 'int64':
      read = (at) => Number(view.getBigInt64(at, true));
      break;
    default:
      return undefined;
  }
  const values: number[] = [];
  for (let at = 0; at + size <= range.length; at += size) values.push(read(at));
  return values;
}
