import { DTYPE_BYTES, type DType } from '../../graph/dtype.ts';

/**
 * Constant data as the IR keeps it: one typed array per element type, little-endian as
 * ONNX raw_data and TFLite buffers are. float16 is kept as its bits (Uint16Array), int64 as
 * BigInt64Array, bool as Uint8Array.
 */
export function typedArrayOf(dtype: DType, buffer: ArrayBuffer): ArrayBufferView {
  switch (dtype) {
    case 'float32':
      return new Float32Array(buffer);
    case 'float16':
      return new Uint16Array(buffer);
    case 'float64':
      return new Float64Array(buffer);
    case 'int8':
      return new Int8Array(buffer);
    case 'uint8':
    case 'bool':
      return new Uint8Array(buffer);
    case 'int16':
      return new Int16Array(buffer);
    case 'int32':
      return new Int32Array(buffer);
    case 'int64':
      return new BigInt64Array(buffer);
  }
}

/** IEEE 754 half precision bits -> number. */
export function halfToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction === 0 ? sign * Infinity : NaN;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/**
 * A constant's values as numbers, whatever view holds them: the bytes are decoded by the
 * tensor's element type when their length fits it (raw bytes, or the matching typed array),
 * else a typed array with one entry per element is read entry by entry. Undefined when the
 * data fits neither.
 */
export function numbersOf(data: ArrayBufferView, dtype: DType, count: number): number[] | undefined {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const width = DTYPE_BYTES[dtype];
  if (data.byteLength === count * width) {
    const out = new Array<number>(count);
    for (let k = 0; k < count; k++) {
      const at = k * width;
      switch (dtype) {
        case 'float32':
          out[k] = view.getFloat32(at, true);
          break;
        case 'float16':
          out[k] = halfToNumber(view.getUint16(at, true));
          break;
        case 'float64':
          out[k] = view.getFloat64(at, true);
          break;
        case 'int8':
          out[k] = view.getInt8(at);
          break;
        case 'uint8':
        case 'bool':
          out[k] = view.getUint8(at);
          break;
        case 'int16':
          out[k] = view.getInt16(at, true);
          break;
        case 'int32':
          out[k] = view.getInt32(at, true);
          break;
        case 'int64':
          out[k] = Number(view.getBigInt64(at, true));
          break;
      }
    }
    return out;
  }
  const entries = data as unknown as ArrayLike<number | bigint>;
  if (!(data instanceof DataView) && typeof entries.length === 'number' && entries.length === count) {
    return Array.from({ length: count }, (_, k) => Number(entries[k]));
  }
  return undefined;
}
