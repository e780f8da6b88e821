/**
 * What a record holds (FlexNN's three kinds of layer memory): an `activation` (a tensor
 * between layers, the default and the only kind of the paper's problems), a `weight` (a
 * layer's parameters, read from storage; it may be loaded before its layer, from step
 * `earliest` on) or `scratch` (a kernel's temporary, such as an im2col band: FlexNN's
 * intermediates, TFLite's temporaries), live inside its one operator.
 */
export type RecordKind = 'activation' | 'weight' | 'scratch';

/**
 * A tensor's usage over the fixed execution order (Pisarchyk & Lee 2020, section 2):
 * the tensor is live from operator `first` to operator `last`, BOTH INCLUDED.
 * `size` is in bytes. Everything downstream of the io layer speaks this type.
 *
 * A weight's [first, last] is its layer; a plan may load it earlier (OffsetsPlan's
 * `loadSteps`, no earlier than `earliest`, default 0), and then it occupies its memory
 * from its load step through `last`. Planners that know nothing of loading plan every
 * record over [first, last], which is always allowed (a weight loaded at its layer).
 */
export interface TensorUsageRecord {
  readonly id: string;
  readonly size: number;
  readonly first: number;
  readonly last: number;
  /** Absent: 'activation'. */
  readonly kind?: RecordKind;
  /** Weights only: the earliest operator at which the weight may be loaded (default 0). */
  readonly earliest?: number;
}

export const RECORD_KINDS: readonly RecordKind[] = ['activation', 'weight', 'scratch'];

export function recordKind(record: TensorUsageRecord): RecordKind {
  return record.kind ?? 'activation';
}

/** Two records conflict (may not share memory) iff their closed usage intervals intersect. */
export function conflicts(a: TensorUsageRecord, b: TensorUsageRecord): boolean {
  return !(a.last < b.first || b.last < a.first);
}

/** The closed interval's length in operators. */
export function lifetime(record: TensorUsageRecord): number {
  return record.last - record.first + 1;
}
