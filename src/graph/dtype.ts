/** Element types the readers understand, with their sizes in bytes. */
export const DTYPE_BYTES = {
  float32: 4,
  float16: 2,
  float64: 8,
  int8: 1,
  uint8: 1,
  int16: 2,
  int32: 4,
  int64: 8,
  bool: 1,
} as const;

export type DType = keyof typeof DTYPE_BYTES;

export function isDType(name: string): name is DType {
  return Object.hasOwn(DTYPE_BYTES, name);
}
