import type { Instance } from './instance.ts';

/**
 * A partial assignment: the records at positions < depth sit in `objects` objects.
 * Records arrive in non-increasing size, so an object's size is that of the record that
 * opened it, and every later record fits in every object by size; from then on an
 * object is only its *occupancy*, the time points its records cover.
 *
 * Per object and point the state keeps the free gap around the point (the largest
 * interval of free points containing it), or -1 where the object is occupied: a record
 * joins an object iff the gap at its first point reaches its last point.
 */
export class SearchState {
  objects = 0;
  readonly objectSize: Float64Array;
  /** Object of the record at each assigned position. */
  readonly objectOf: Int32Array;
  /** Number of assigned records live at each point (one per object occupied there). */
  readonly assignedLive: Int32Array;
  readonly gapFirst: Int32Array;
  readonly gapLast: Int32Array;
  /** Occupancy bitsets, `words` per object. */
  readonly occupancy: Uint32Array;

  constructor(readonly instance: Instance) {
    const { n, points, words } = instance;
    // Never more objects than records (plus one so that an empty problem allocates).
    const capacity = n + 1;
    this.objectSize = new Float64Array(capacity);
    this.objectOf = new Int32Array(n).fill(-1);
    this.assignedLive = new Int32Array(points);
    this.gapFirst = new Int32Array(capacity * points);
    this.gapLast = new Int32Array(capacity * points);
    this.occupancy = new Uint32Array(capacity * words);
  }

  /** Whether the record at `position` can join `object` (no conflict with its records). */
  fits(position: number, object: number): boolean {
    const { first, last, points } = this.instance;
    const at = object * points + first[position];
    return this.gapFirst[at] >= 0 && this.gapLast[at] >= last[position];
  }

  /** Puts the record at `position` into `object`; `object === objects` opens a new one. */
  place(position: number, object: number): void {
    const { first, last, points, size, words } = this.instance;
    const base = object * points;
    if (object === this.objects) {
      this.objects++;
      this.objectSize[object] = size[position];
      this.gapFirst.fill(0, base, base + points);
      this.gapLast.fill(points - 1, base, base + points);
      this.occupancy.fill(0, object * words, (object + 1) * words);
    }
    const a = first[position];
    const b = last[position];
    const gapFirst = this.gapFirst[base + a];
    const gapLast = this.gapLast[base + a];
    this.gapLast.fill(a - 1, base + gapFirst, base + a);
    this.gapFirst.fill(b + 1, base + b + 1, base + gapLast + 1);
    this.gapFirst.fill(-1, base + a, base + b + 1);
    for (let t = a; t <= b; t++) {
      this.assignedLive[t]++;
      this.occupancy[object * words + (t >>> 5)] |= 1 << (t & 31);
    }
    this.objectOf[position] = object;
  }

  /** Undoes `place(position, object)`; `opened` says whether that place opened the object. */
  unplace(position: number, object: number, opened: boolean): void {
    const { first, last, points, words } = this.instance;
    const base = object * points;
    const a = first[position];
    const b = last[position];
    // The gap the record was cut from: the free gaps touching it on either side, merged.
    const gapFirst = a > 0 && this.gapFirst[base + a - 1] >= 0 ? this.gapFirst[base + a - 1] : a;
    const gapLast = b + 1 < points && this.gapFirst[base + b + 1] >= 0 ? this.gapLast[base + b + 1] : b;
    this.gapFirst.fill(gapFirst, base + gapFirst, base + gapLast + 1);
    this.gapLast.fill(gapLast, base + gapFirst, base + gapLast + 1);
    for (let t = a; t <= b; t++) {
      this.assignedLive[t]--;
      this.occupancy[object * words + (t >>> 5)] &= ~(1 << (t & 31));
    }
    this.objectOf[position] = -1;
    if (opened) this.objects--;
  }
}
