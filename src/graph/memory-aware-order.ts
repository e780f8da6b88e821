/**
 * Memory-aware operator order: a topological order of a graph's nodes whose peak of live
 * record bytes is as low as a fixed amount of search finds, never above the given order's.
 *
 * "Live" is graphToProblem's: a record (a tensor that record-tensors.ts calls one) is live
 * from the first to the last operator in the order that reads or writes it, inclusive;
 * with includeGraphIO, graph inputs from the first operator and graph outputs to the last.
 * The peak of an order is therefore the offsets lower bound (the largest operator breadth)
 * of the Problem its graph gives, the bound no arena can beat.
 *
 * The algorithm, in three steps:
 *
 * 1. Split at cut nodes. A node that every other node reaches or is reached from (an
 *    ancestor or a descendant of every node) runs at the same position in every topological
 *    order, and the nodes before it are the same set in every order. The graph therefore
 *    splits into segments (the nodes between two cut nodes, and the second cut node) whose
 *    internal orders are independent: what is live while a segment runs depends only on the
 *    set of nodes run before it, never on their order. The peak of an order is the largest
 *    peak over its segments, so each segment is scheduled on its own. Cut nodes come from one
 *    pass over the given order: position p is a cut iff every earlier node has a successor at
 *    or before p and every later node a predecessor at or after p (an induction over
 *    positions shows that is "reaches p" and "is reached from p"). Chains (MobileNet) become
 *    segments of one node; Inception's modules, DeepLab's ASPP and detection heads become
 *    small segments.
 *
 * 2. Per segment, a depth-first branch and bound over the ready set, in the spirit of
 *    Serenity's dynamic program over zero-indegree sets (Ahn et al., MLSys 2020): a state is
 *    the set of segment nodes run so far; the bytes live after it depend on the set alone, and
 *    running a ready node v costs (bytes live before) + (bytes of the records v touches first).
 *    The peak of an order is the largest step cost along its path, so a path is cut as soon
 *    as a step reaches the best complete order's peak (initially the given order's: only a
 *    strictly lower peak replaces it), and a state already reached with a lower or equal
 *    peak so far is not expanded again (memoized by a Zobrist hash of the set; a hash
 *    collision can only cut the search short, never yield an invalid order, since every
 *    order is built from real steps). Children are tried in greedy list-scheduling order:
 *    the lowest peak so far after the step, then the largest net release of bytes, then the
 *    given position. So the first dive is the greedy schedule and the search improves on it;
 *    because cutting at the peak prunes everything below the step that set it, backtracking
 *    goes straight to the decisions before the peak. With enough budget the search is
 *    exhaustive and the segment's order optimal.
 *
 * 3. Stop early. Each segment's peak is at least its lower bound: the bytes live across the
 *    whole segment plus the bytes a single node touches. The graph's peak is at least the
 *    largest of these. Segments are scheduled from the highest given peak down, each one
 *    only until it is no higher than that bound or than a peak already settled elsewhere
 *    (going lower would not lower the graph's peak); a segment whose given peak is already
 *    there is left in the given order.
 *
 * Determinism: the only limit is a count of work units (states expanded and ready nodes
 * weighed) per segment and per graph, never a clock; the first dive may take a few times
 * the segment's limit so that the greedy schedule is complete. Hashes come from a fixed seed
 * and every tie is broken by the given position, so a graph gives the same order on every
 * machine. Finally the whole order's peak is recomputed from scratch and the given order is
 * returned unless the new one is strictly lower.
 */
import { zobristKeys } from '../core/zobrist.ts';
import { executionOrder } from './execution-order.ts';
import type { Graph, Node } from './ir.ts';
import { recordSizer, type RecordSelection } from './record-tensors.ts';

export interface MemoryAwareOrderOptions {
  /**
   * Most search work per segment, in units of one state expanded or one ready node weighed
   * as a next step (a count, not a time, so that every machine stops at the same place).
   */
  readonly workPerSegment?: number;
  /** Most search work over the whole graph. */
  readonly work?: number;
}

// The defaults keep each zoo network well under a second and graphs of thousands of nodes
// within seconds (one unit is well under a microsecond).
const DEFAULT_WORK_PER_SEGMENT = 1_000_000;
const DEFAULT_WORK = 4_000_000;
/** How many times its limit a segment's first dive may take (see improve). */
const DIVE_ALLOWANCE = 8;

/**
 * The nodes of `graph` in a topological order whose peak of live record bytes (records as
 * `options` select and size them) is at most the given order's, and lower where the
 * search finds one. The given order is executionOrder(graph).
 */
export function memoryAwareOrder(graph: Graph, options: RecordSelection = {}, budget: MemoryAwareOrderOptions = {}): readonly Node[] {
  const given = executionOrder(graph);
  const model = buildModel(graph, given, options);
  if (model.n < 2) return given;
  const order = scheduleSegments(model, budget.workPerSegment ?? DEFAULT_WORK_PER_SEGMENT, budget.work ?? DEFAULT_WORK);
  if (order === undefined || peakOf(model, order) >= peakOf(model, identity(model.n))) return given;
  return Array.from(order, (position) => given[position]);
}

/**
 * The peak of live record bytes when the graph's nodes run in `order` (a topological order
 * of all of them): the offsets lower bound of graphToProblem's Problem for that order.
 */
export function orderPeak(graph: Graph, order: readonly Node[], options: RecordSelection = {}): number {
  const model = buildModel(graph, order, options);
  return peakOf(model, identity(model.n));
}

/** The graph as positions in one topological order, records as indices. */
interface Model {
  readonly n: number;
  /** Distinct predecessor / successor positions of each node (data dependencies). */
  readonly preds: readonly Int32Array[];
  readonly succs: readonly Int32Array[];
  /** Distinct records each node reads or writes. */
  readonly touch: readonly Int32Array[];
  readonly size: Float64Array;
  /** Positions of the nodes touching each record, ascending. */
  readonly touchers: readonly Int32Array[];
  /** includeGraphIO: graph inputs live from the first step, graph outputs to the last. */
  readonly openStart: Uint8Array;
  readonly openEnd: Uint8Array;
}

function buildModel(graph: Graph, order: readonly Node[], options: RecordSelection): Model {
  const n = order.length;
  const producer = new Map<string, number>();
  order.forEach((node, position) => node.outputs.forEach((name) => producer.set(name, position)));
  const sizeOf = recordSizer(graph, options);
  const recordIndex = new Map<string, number>();
  const sizes: number[] = [];
  const touchers: number[][] = [];
  const preds: Int32Array[] = [];
  const touch: Int32Array[] = [];
  order.forEach((node, position) => {
    const from = new Set<number>();
    for (const name of node.inputs) {
      const p = producer.get(name);
      if (p !== undefined && p !== position) from.add(p);
    }
    preds.push(Int32Array.from(from));
    const mine = new Set<number>();
    for (const name of [...node.inputs, ...node.outputs]) {
      let r = recordIndex.get(name);
      if (r === undefined) {
        const bytes = sizeOf(name);
        if (bytes === undefined) continue;
        r = sizes.length;
        recordIndex.set(name, r);
        sizes.push(bytes);
        touchers.push([]);
      }
      if (!mine.has(r)) {
        mine.add(r);
        touchers[r].push(position);
      }
    }
    touch.push(Int32Array.from(mine));
  });
  const succLists: number[][] = order.map(() => []);
  preds.forEach((from, position) => from.forEach((p) => succLists[p].push(position)));
  const openStart = new Uint8Array(sizes.length);
  const openEnd = new Uint8Array(sizes.length);
  if (options.includeGraphIO) {
    for (const name of graph.inputs) if (recordIndex.has(name)) openStart[recordIndex.get(name)!] = 1;
    for (const name of graph.outputs) if (recordIndex.has(name)) openEnd[recordIndex.get(name)!] = 1;
  }
  return {
    n,
    preds,
    succs: succLists.map((list) => Int32Array.from(list)),
    touch,
    size: Float64Array.from(sizes),
    touchers: touchers.map((list) => Int32Array.from(list)),
    openStart,
    openEnd,
  };
}

function identity(n: number): Int32Array {
  return Int32Array.from({ length: n }, (_, k) => k);
}

/** Peak of live bytes of the model's nodes run in `order` (positions), simulated from scratch. */
function peakOf(model: Model, order: Int32Array): number {
  const rem = Int32Array.from(model.touchers, (list) => list.length);
  const count = rem.slice();
  const isOpen = (r: number): boolean => (model.openStart[r] === 1 || rem[r] < count[r]) && (model.openEnd[r] === 1 || rem[r] > 0);
  let live = 0;
  for (let r = 0; r < rem.length; r++) if (isOpen(r)) live += model.size[r];
  let peak = 0;
  for (const v of order) {
    let step = live;
    for (const r of model.touch[v]) if (!isOpen(r)) step += model.size[r];
    peak = Math.max(peak, step);
    for (const r of model.touch[v]) {
      const before = isOpen(r);
      rem[r]--;
      live += ((isOpen(r) ? 1 : 0) - (before ? 1 : 0)) * model.size[r];
    }
  }
  return peak;
}

/** Cut positions of the model's (topological) order; see the header, step 1. */
function cutPositions(model: Model): number[] {
  const { n, preds, succs } = model;
  const suffixMinMaxPred = new Float64Array(n + 1);
  suffixMinMaxPred[n] = Infinity;
  for (let q = n - 1; q >= 0; q--) {
    let maxPred = -1;
    for (const p of preds[q]) maxPred = Math.max(maxPred, p);
    suffixMinMaxPred[q] = Math.min(suffixMinMaxPred[q + 1], maxPred);
  }
  const cuts: number[] = [];
  let prefixMaxMinSucc = -Infinity;
  for (let p = 0; p < n; p++) {
    if (prefixMaxMinSucc <= p && suffixMinMaxPred[p + 1] >= p) cuts.push(p);
    let minSucc = Infinity;
    for (const s of succs[p]) minSucc = Math.min(minSucc, s);
    prefixMaxMinSucc = Math.max(prefixMaxMinSucc, minSucc);
  }
  return cuts;
}

/** One segment as a problem of its own: local nodes 0..m-1 are positions lo..lo+m-1. */
interface Segment {
  readonly lo: number;
  readonly m: number;
  readonly preds: readonly Int32Array[];
  readonly succs: readonly Int32Array[];
  readonly touch: readonly Int32Array[];
  readonly size: Float64Array;
  /** Touchers inside the segment, per local record. */
  readonly count: Int32Array;
  /** Live before the segment's first step (touched earlier, or a graph input kept). */
  readonly before: Uint8Array;
  /** Live after its last step (touched later, or a graph output kept). */
  readonly after: Uint8Array;
  /** Bytes of records live across the whole segment that no segment node touches. */
  readonly base: number;
}

function segmentOf(model: Model, lo: number, hi: number, base: number, local: Int32Array): Segment {
  const m = hi - lo + 1;
  const records: number[] = [];
  const touch: Int32Array[] = [];
  for (let p = lo; p <= hi; p++) {
    touch.push(
      model.touch[p].map((r) => {
        if (local[r] < 0) {
          local[r] = records.length;
          records.push(r);
        }
        return local[r];
      }),
    );
  }
  const size = Float64Array.from(records, (r) => model.size[r]);
  const count = new Int32Array(records.length);
  const before = new Uint8Array(records.length);
  const after = new Uint8Array(records.length);
  records.forEach((r, k) => {
    const list = model.touchers[r];
    for (const p of list) if (p >= lo && p <= hi) count[k]++;
    before[k] = model.openStart[r] === 1 || list[0] < lo ? 1 : 0;
    after[k] = model.openEnd[r] === 1 || list[list.length - 1] > hi ? 1 : 0;
    local[r] = -1;
  });
  const inside = (list: Int32Array): Int32Array => list.filter((p) => p >= lo).map((p) => p - lo);
  return {
    lo,
    m,
    preds: model.preds.slice(lo, hi + 1).map(inside),
    succs: model.succs.slice(lo, hi + 1).map((list) => list.filter((p) => p <= hi).map((p) => p - lo)),
    touch,
    size,
    count,
    before,
    after,
    base,
  };
}

/**
 * Bytes live across each segment without being touched in it: for every record, the
 * segments strictly between two consecutive segments that touch it (with includeGraphIO,
 * from the start / to the end), summed with a difference array.
 */
function untouchedBytes(model: Model, segmentOfPosition: Int32Array, segments: number): Float64Array {
  const diff = new Float64Array(segments + 1);
  model.touchers.forEach((list, r) => {
    const ids = Array.from(list, (p) => segmentOfPosition[p]);
    if (model.openStart[r] === 1) ids.unshift(-1);
    if (model.openEnd[r] === 1) ids.push(segments);
    for (let k = 1; k < ids.length; k++) {
      if (ids[k] > ids[k - 1] + 1) {
        diff[ids[k - 1] + 1] += model.size[r];
        diff[ids[k]] -= model.size[r];
      }
    }
  });
  const base = new Float64Array(segments);
  let running = 0;
  for (let s = 0; s < segments; s++) base[s] = running += diff[s];
  return base;
}

/** The whole order (positions), or undefined when no segment could be improved. */
function scheduleSegments(model: Model, workPerSegment: number, totalWork: number): Int32Array | undefined {
  const cuts = cutPositions(model);
  const bounds: [number, number][] = [];
  let lo = 0;
  for (const cut of cuts) {
    bounds.push([lo, cut]);
    lo = cut + 1;
  }
  if (lo < model.n) bounds.push([lo, model.n - 1]);
  const segmentOfPosition = new Int32Array(model.n);
  bounds.forEach(([from, to], s) => segmentOfPosition.fill(s, from, to + 1));
  const base = untouchedBytes(model, segmentOfPosition, bounds.length);
  const local = new Int32Array(model.size.length).fill(-1);

  // Only segments with a choice of order are searched; the others just bound the peak.
  const open: { index: number; search: SegmentSearch; givenPeak: number }[] = [];
  let lowerBound = 0;
  bounds.forEach(([from, to], s) => {
    const segment = segmentOf(model, from, to, base[s], local);
    const search = new SegmentSearch(segment);
    lowerBound = Math.max(lowerBound, search.lowerBound());
    if (segment.m > 1 && !isChain(segment)) open.push({ index: s, search, givenPeak: search.givenPeak() });
    else lowerBound = Math.max(lowerBound, search.givenPeak());
  });
  // Highest given peak first; ties in position order (a stable sort).
  open.sort((a, b) => b.givenPeak - a.givenPeak);
  const chosen = new Map<number, Int32Array>();
  let settled = lowerBound;
  let workLeft = totalWork;
  for (let k = 0; k < open.length; k++) {
    const { index, search, givenPeak } = open[k];
    const target = Math.max(settled, search.lowerBound());
    if (givenPeak <= target || workLeft <= 0) {
      settled = Math.max(settled, givenPeak);
      continue;
    }
    const found = search.improve(givenPeak, target, Math.min(workPerSegment, workLeft));
    workLeft -= search.work;
    if (found !== undefined) chosen.set(index, found.order);
    settled = Math.max(settled, found?.peak ?? givenPeak);
  }
  if (chosen.size === 0) return undefined;
  const order = new Int32Array(model.n);
  bounds.forEach(([from, to], s) => {
    const inner = chosen.get(s);
    for (let p = from; p <= to; p++) order[p] = inner === undefined ? p : from + inner[p - from];
  });
  return order;
}

/** A segment whose nodes each depend on the one before: a single possible order. */
function isChain(segment: Segment): boolean {
  for (let i = 1; i < segment.m; i++) if (!segment.preds[i].includes(i - 1)) return false;
  return true;
}

/** Step 2 of the header: branch and bound over one segment's orders. */
class SegmentSearch {
  /** Work the last improve() did: states expanded plus ready nodes weighed. */
  work = 0;
  private readonly rem: Int32Array;
  private readonly indeg: Int32Array;
  private readonly ready: Int32Array;
  private readonly readyAt: Int32Array;
  private readyCount = 0;
  private live: number;
  /** Sort keys of the candidates of one step, by node. */
  private readonly stepAfter: Float64Array;
  private readonly changeOf: Float64Array;

  constructor(private readonly segment: Segment) {
    const { m, count, before, size, preds } = segment;
    this.rem = count.slice();
    this.indeg = Int32Array.from(preds, (list) => list.length);
    this.ready = new Int32Array(m);
    this.readyAt = new Int32Array(m).fill(-1);
    this.stepAfter = new Float64Array(m);
    this.changeOf = new Float64Array(m);
    for (let i = 0; i < m; i++) if (this.indeg[i] === 0) this.addReady(i);
    this.live = segment.base;
    for (let r = 0; r < size.length; r++) if (before[r] === 1) this.live += size[r];
  }

  /** No order of the segment peaks lower: bytes live throughout plus what one node touches. */
  lowerBound(): number {
    const { before, after, size, touch, base } = this.segment;
    let throughout = base;
    for (let r = 0; r < size.length; r++) if (before[r] === 1 && after[r] === 1) throughout += size[r];
    let bound = throughout;
    for (const records of touch) {
      let node = throughout;
      for (const r of records) if (!(before[r] === 1 && after[r] === 1)) node += size[r];
      bound = Math.max(bound, node);
    }
    return bound;
  }

  /** The peak of the given (local identity) order. */
  givenPeak(): number {
    const start = this.live;
    let peak = 0;
    for (let v = 0; v < this.segment.m; v++) {
      peak = Math.max(peak, this.live + this.allocation(v));
      this.apply(v);
    }
    for (let v = this.segment.m - 1; v >= 0; v--) this.undo(v);
    this.live = start;
    return peak;
  }

  /**
   * An order with a peak below `bound`, the lowest the search finds (stopping once at or
   * below `target`), or undefined. Leaves the state as it found it.
   */
  improve(bound: number, target: number, maxWork: number): { order: Int32Array; peak: number } | undefined {
    const { m } = this.segment;
    const keys = zobristKeys(m, 0x9e3779b9);
    const seen = new Map<number, number>();
    const path = new Int32Array(m);
    const liveAt = new Float64Array(m + 1);
    let depth = 0;
    let hashA = 0;
    let hashB = 0;
    let best: Int32Array | undefined;
    let peak = bound;
    this.work = 0;
    // The first dive (the greedy list schedule, cut at the bound) may take several times the
    // limit to reach its end (a complete order is what the search is for); the limit proper
    // applies from the first backtrack on.
    let diving = true;
    const diveWork = DIVE_ALLOWANCE * maxWork;
    const frames: { candidates: Int32Array; next: number; peak: number }[] = [{ candidates: this.candidates(0, peak), next: 0, peak: 0 }];
    search: while (frames.length > 0) {
      const frame = frames[frames.length - 1];
      if (frame.next >= frame.candidates.length) {
        frames.pop();
        diving = false;
        if (depth > 0) {
          const v = path[--depth];
          this.undo(v);
          this.live = liveAt[depth];
          hashA ^= keys.a[v];
          hashB ^= keys.b[v];
        }
        continue;
      }
      const v = frame.candidates[frame.next++];
      const stepPeak = Math.max(frame.peak, this.live + this.allocation(v));
      if (stepPeak >= peak) continue;
      liveAt[depth] = this.live;
      this.apply(v);
      path[depth++] = v;
      hashA ^= keys.a[v];
      hashB ^= keys.b[v];
      this.work++;
      let expand = true;
      if (depth === m) {
        peak = stepPeak;
        best = path.slice();
        expand = false;
        diving = false;
      } else {
        // 53 bits of the two 32-bit hashes: an exact JS number key.
        const key = (hashA >>> 0) * 2 ** 21 + (hashB >>> 11);
        const previous = seen.get(key);
        if (previous !== undefined && previous <= stepPeak) expand = false;
        else seen.set(key, stepPeak);
      }
      const outOfWork = this.work >= (diving ? diveWork : maxWork);
      if (expand && peak > target && !outOfWork) {
        frames.push({ candidates: this.candidates(stepPeak, peak), next: 0, peak: stepPeak });
        continue;
      }
      this.undo(v);
      this.live = liveAt[--depth];
      hashA ^= keys.a[v];
      hashB ^= keys.b[v];
      if (peak <= target || outOfWork) break search;
    }
    // Unwind whatever the early stop left applied.
    while (depth > 0) {
      const v = path[--depth];
      this.undo(v);
      this.live = liveAt[depth];
    }
    return best === undefined ? undefined : { order: best, peak };
  }

  /**
   * Ready nodes whose step keeps the peak below `bound`, in greedy order: the lowest peak
   * after the step, then the largest net release of bytes, then the given position.
   */
  private candidates(peakSoFar: number, bound: number): Int32Array {
    this.work += this.readyCount;
    const nodes: number[] = [];
    const { stepAfter: after, changeOf: change } = this;
    for (let k = 0; k < this.readyCount; k++) {
      const v = this.ready[k];
      const step = Math.max(peakSoFar, this.live + this.allocation(v));
      if (step >= bound) continue;
      nodes.push(v);
      after[v] = step;
      change[v] = this.change(v);
    }
    nodes.sort((a, b) => after[a] - after[b] || change[a] - change[b] || a - b);
    return Int32Array.from(nodes);
  }

  private isOpen(r: number): boolean {
    const { before, after, count } = this.segment;
    return (before[r] === 1 || this.rem[r] < count[r]) && (after[r] === 1 || this.rem[r] > 0);
  }

  /** Bytes of the records v touches that are not live yet (its step = live + this). */
  private allocation(v: number): number {
    let bytes = 0;
    for (const r of this.segment.touch[v]) if (!this.isOpen(r)) bytes += this.segment.size[r];
    return bytes;
  }

  /** Live bytes after running v minus before. */
  private change(v: number): number {
    const { touch, after, size } = this.segment;
    let bytes = 0;
    for (const r of touch[v]) {
      const openAfter = after[r] === 1 || this.rem[r] > 1;
      const open = this.isOpen(r);
      if (openAfter && !open) bytes += size[r];
      else if (!openAfter && open) bytes -= size[r];
    }
    return bytes;
  }

  private apply(v: number): void {
    this.live += this.change(v);
    for (const r of this.segment.touch[v]) this.rem[r]--;
    this.removeReady(v);
    for (const s of this.segment.succs[v]) if (--this.indeg[s] === 0) this.addReady(s);
  }

  /** Reverses apply(v) except for `live`, which callers restore from their stack. */
  private undo(v: number): void {
    const succs = this.segment.succs[v];
    for (let k = succs.length - 1; k >= 0; k--) {
      const s = succs[k];
      if (this.indeg[s]++ === 0) this.removeReady(s);
    }
    this.addReady(v);
    for (const r of this.segment.touch[v]) this.rem[r]++;
  }

  private addReady(v: number): void {
    this.readyAt[v] = this.readyCount;
    this.ready[this.readyCount++] = v;
  }

  private removeReady(v: number): void {
    const at = this.readyAt[v];
    const last = this.ready[--this.readyCount];
    this.ready[at] = last;
    this.readyAt[last] = at;
    this.readyAt[v] = -1;
  }
}
