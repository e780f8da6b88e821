/**
 * A tensor's usage over the fixed execution order (Pisarchyk & Lee 2020, section 2):
 * the tensor is live from operator `first` to operator `last`, BOTH INCLUDED.
 * `size` is in bytes. Everything downstream of the io layer speaks this type.
 */
export interface TensorUsageRecord {
  readonly id: string;
  readonly size: number;
  readonly first: number;
  readonly last: number;
}

/** Two records conflict (may not share memory) iff their closed usage intervals intersect. */
export function conflicts(a: TensorUsageRecord, b: TensorUsageRecord): boolean {
  return !(a.last < b.first || b.last < a.first);
}

/** The closed interval's length in operators. */
export function lifetime(record: TensorUsageRecord): number {
  return record.last - record.first + 1;
}
