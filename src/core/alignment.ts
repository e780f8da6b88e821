/**
 * Alignment: an `alignment` of N bytes (N >= 1) asks that every offset be a multiple
 * of N, and that shared objects be sized in multiples of N. Record sizes themselves are
 * not rounded: an offsets arena ends where its highest tensor ends, as TFLite computes it
 * (its test: align 128 on the chain example gives offsets 0,128,... and a total of 160).
 */
export function alignUp(value: number, alignment: number): number {
  if (alignment <= 1) return value;
  const remainder = value % alignment;
  return remainder === 0 ? value : value + (alignment - remainder);
}

/** Checks an alignment option and returns it (1 = none). */
export function checkAlignment(alignment: number | undefined): number {
  const value = alignment ?? 1;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`alignment must be a whole number of bytes >= 1, got ${alignment}.`);
  }
  return value;
}
