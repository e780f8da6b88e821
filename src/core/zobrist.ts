/**
 * Zobrist keys for searches that memoize sets of items (placed records, scheduled nodes):
 * two 32-bit lanes per item from xorshift32 over a fixed seed, so that a search hashes the
 * same set to the same key on every run and every machine.
 */
export function zobristKeys(count: number, seed: number): { readonly a: Int32Array; readonly b: Int32Array } {
  const a = new Int32Array(count);
  const b = new Int32Array(count);
  let state = seed | 0;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state | 0;
  };
  for (let i = 0; i < count; i++) {
    a[i] = next();
    b[i] = next();
  }
  return { a, b };
}
