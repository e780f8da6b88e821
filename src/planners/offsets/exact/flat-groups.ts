/**
 * The full-span groups of a piece with no slack that cut-rebuild.ts stacks: subsets of the
 * piece's records whose live grains are the same (g) at every point and that have a time
 * cut of their own (a point none of them crosses). A 0/1 variable per record (in the
 * group or not) and two kinds of linear equations:
 *
 * - level: at every point where a record starts, the group's live sizes sum to g;
 * - step: between two such points, what the group starts equals what it ended (implied
 *   by two levels, but on a handful of records, so it propagates far more);
 *
 * each kept arc-consistent (a value stays only if a subset sum of the other free records
 * completes the equation). The search solves independent components apart (free records
 * that share no equation through free records: what crosses between them is fixed, so a
 * component that fails fails them all, and no other is retried for it), branching on a
 * record of the equation with the fewest free records, larger records first, "in" before
 * "out"; each question takes the first assignment it finds.
 *
 * Which groups are asked for, in turn:
 * 1. pairs of cuts: the group is cut at u (records crossing u are outside it) and the rest
 *    is cut at v (records crossing v are in it), the constrained pairs first (largest
 *    crossing sizes); a stack of two groups, each cut in time, is found this way;
 * 2. one cut: the group is cut at u, any rest (stacks of three or more groups).
 * Heights g are those that subsets of what ends and starts at the cuts can make.
 *
 * With `random` (cut-rebuild.ts's restarts), the cuts are taken in an order jittered by up
 * to CUT_JITTER grains of crossing size, and ties between records, between equations and
 * between "in" and "out" are broken at random: the rebuild's failures are heavy-tailed, and
 * restarts with other choices find what one long run does not.
 */
export class FlatGroups {
  private readonly m: number;
  /** Equations over local indices: variables, coefficients (signed grains), level or step. */
  private readonly eqVars: Int32Array[] = [];
  private readonly eqCoef: Int32Array[] = [];
  private readonly eqLevel: boolean[] = [];
  private readonly varEqs: number[][];
  /** -1 free, 0 out of the group, 1 in it. */
  private readonly dom: Int8Array;
  private readonly trail: number[] = [];
  private readonly queued: Uint8Array;
  /**
   * Scratch of components() and branchVariableOf(), reused: a record or an equation is in
   * the current call's set when its mark equals the call's (a counter), so nothing is
   * cleared between calls.
   */
  private marks = 0;
  private readonly eqMark: Int32Array;
  private readonly varMark: Int32Array;
  private readonly rootMark: Int32Array;
  private readonly parent: Int32Array;
  private readonly rootGroup: Int32Array;
  private g = 0;
  private revisions = 0;
  /** Subset-sum bit table of revise() and its backward rows, reused. */
  private table = new Uint32Array(1 << 10);
  private after = new Uint32Array(16);
  private shifted = new Uint32Array(16);

  constructor(
    private readonly ids: readonly number[],
    private readonly a: number,
    private readonly b: number,
    private readonly height: number,
    private readonly first: Int32Array,
    private readonly last: Int32Array,
    private readonly units: Int32Array,
    private readonly tick: () => void,
    private readonly firstOnly: boolean,
    private readonly random?: () => number,
  ) {
    this.m = ids.length;
    this.dom = new Int8Array(this.m).fill(-1);
    const starts = [...new Set(ids.map((k) => first[k]))].sort((p, q) => p - q);
    for (const u of starts) {
      const vars: number[] = [];
      ids.forEach((k, i) => {
        if (first[k] <= u && last[k] >= u) vars.push(i);
      });
      this.addEquation(vars, (i) => units[ids[i]], true);
    }
    for (let s = 1; s < starts.length; s++) {
      const u = starts[s];
      const previous = starts[s - 1];
      const vars: number[] = [];
      ids.forEach((k, i) => {
        if (first[k] === u || (first[k] <= previous && last[k] >= previous && last[k] < u)) vars.push(i);
      });
      this.addEquation(vars, (i) => (first[ids[i]] === u ? units[ids[i]] : -units[ids[i]]), false);
    }
    this.varEqs = Array.from({ length: this.m }, () => []);
    this.eqVars.forEach((vars, q) => vars.forEach((v) => this.varEqs[v].push(q)));
    this.queued = new Uint8Array(this.eqVars.length);
    this.eqMark = new Int32Array(this.eqVars.length);
    this.varMark = new Int32Array(this.m);
    this.rootMark = new Int32Array(this.m);
    this.parent = new Int32Array(this.m);
    this.rootGroup = new Int32Array(this.m);
  }

  private addEquation(vars: number[], coefficient: (i: number) => number, level: boolean): void {
    if (vars.length === 0) return;
    this.eqVars.push(Int32Array.from(vars));
    this.eqCoef.push(Int32Array.from(vars, coefficient));
    this.eqLevel.push(level);
  }

  /**
   * Calls `found(group, rest, g)` (record ids) for flat groups with a time cut until it
   * returns true (then true), or until there are no more to try (then false).
   */
  each(found: (group: number[], rest: number[], g: number) => boolean): boolean {
    const { ids, a, b, height, first, last, units, m } = this;
    // Per boundary u in (a, b): records crossing it (live at u - 1 and u), ending before it, starting at it.
    const crossing: number[][] = Array.from({ length: b - a }, () => []);
    const ending: number[][] = Array.from({ length: b - a }, () => []);
    const starting: number[][] = Array.from({ length: b - a }, () => []);
    for (let i = 0; i < m; i++) {
      const k = ids[i];
      for (let u = first[k] + 1; u <= last[k]; u++) crossing[u - a].push(i);
      if (last[k] + 1 < b) ending[last[k] + 1 - a].push(i);
      if (first[k] > a) starting[first[k] - a].push(i);
    }
    const sizeOf = (list: number[]): number => list.reduce((s, i) => s + units[ids[i]], 0);
    const sums = (list: number[]): Uint8Array =>
      subsetSums(
        list.map((i) => units[ids[i]]),
        height,
      );
    // Per candidate cut: what crosses it, and the sums subsets of what ends and starts there make.
    const cuts: { u: number; crossing: number; ends: Uint8Array; starts: Uint8Array; heights: Uint8Array }[] = [];
    for (let u = a + 1; u < b; u++) {
      const x = u - a;
      if (ending[x].length === 0 || starting[x].length === 0) continue;
      const across = sizeOf(crossing[x]);
      if (across >= height) continue;
      const ends = sums(ending[x]);
      const starts = sums(starting[x]);
      const heights = new Uint8Array(height + 1);
      for (let g = 1; g < height; g++) heights[g] = ends[g] & starts[g];
      cuts.push({ u, crossing: across, ends, starts, heights });
    }
    const fixes = (outside: number, inside: number | undefined): [number, number][] => [
      ...crossing[outside - a].map((i): [number, number] => [i, 0]),
      ...(inside === undefined ? [] : crossing[inside - a].map((i): [number, number] => [i, 1])),
    ];
    const answer = (g: number): boolean => {
      const group: number[] = [];
      const rest: number[] = [];
      for (let i = 0; i < m; i++) (this.dom[i] === 1 ? group : rest).push(ids[i]);
      return found(group, rest, g);
    };

    // 1. Pairs of cuts, most constrained first.
    const pairs: [number, number, number][] = [];
    const mark = new Int32Array(m).fill(-1);
    for (const p of cuts) {
      for (const i of crossing[p.u - a]) mark[i] = p.u;
      for (const q of cuts) {
        if (q.u === p.u || p.crossing + q.crossing > height) continue;
        if (crossing[q.u - a].some((i) => mark[i] === p.u)) continue;
        pairs.push([p.u, q.u, p.crossing + q.crossing]);
      }
    }
    const jitter = this.jitter(cuts.map((c) => c.u));
    for (const p of pairs) p[2] += jitter.get(p[0])! + jitter.get(p[1])!;
    pairs.sort((p, q) => q[2] - p[2] || p[0] - q[0] || p[1] - q[1]);
    const cutAt = new Map(cuts.map((c) => [c.u, c]));
    for (const [u, v] of pairs) {
      const cu = cutAt.get(u)!;
      // At v the group is what crosses v plus subsets of what ends and starts there.
      const { crossing: across, ends, starts } = cutAt.get(v)!;
      for (let g = Math.max(1, across); g <= Math.min(height - 1, height - cu.crossing); g++) {
        if (!cu.heights[g] || !ends[g - across] || !starts[g - across]) continue;
        if (this.run(fixes(u, v), g, answer)) return true;
      }
    }
    // 2. One cut.
    const byCrossing = cuts.slice().sort((p, q) => q.crossing + jitter.get(q.u)! - p.crossing - jitter.get(p.u)! || p.u - q.u);
    for (const cu of byCrossing) {
      for (let g = 1; g <= Math.min(height - 1, height - cu.crossing); g++) {
        if (cu.heights[g] && this.run(fixes(cu.u, undefined), g, answer)) return true;
      }
    }
    return false;
  }

  /** Per cut point, what is added to its crossing size when cuts are ordered: 0, or drawn. */
  private jitter(points: number[]): Map<number, number> {
    const random = this.random;
    return new Map(points.map((u) => [u, random === undefined ? 0 : random() * CUT_JITTER]));
  }

  /** Fixes, propagates and searches at height g; the domains are as before on return. */
  private run(fixes: [number, number][], g: number, answer: (g: number) => boolean): boolean {
    this.tick();
    this.g = g;
    const mark = this.trail.length;
    let ok = true;
    for (const [v, value] of fixes) {
      if (this.dom[v] === 1 - value) {
        ok = false;
        break;
      }
      if (this.dom[v] === -1) this.set(v, value);
    }
    ok = ok && this.propagate(undefined);
    const result = ok && this.search(answer);
    this.undo(mark);
    return result;
  }

  /**
   * Two ways to search, which solve different instances (cut-rebuild.ts tries both):
   * - first only (`firstOnly`): the first assignment of the free records that satisfies
   *   every equation, solved component by component, handed to `answer`; if the group it
   *   makes leads to no packing the question gives up rather than enumerate the product of
   *   the components' solutions;
   * - all: one search over every record, each assignment handed to `answer` in turn.
   */
  private search(answer: (g: number) => boolean): boolean {
    if (this.firstOnly) return this.solveAll(this.freeRecords()) && answer(this.g);
    return this.enumerate(answer);
  }

  /** "In" before "out", or drawn. */
  private valueOrder(): readonly number[] {
    return this.random !== undefined && this.random() < 0.5 ? OUT_FIRST : IN_FIRST;
  }

  private freeRecords(): number[] {
    const free: number[] = [];
    for (let v = 0; v < this.m; v++) if (this.dom[v] === -1) free.push(v);
    return free;
  }

  private enumerate(answer: (g: number) => boolean): boolean {
    this.tick();
    const v = this.branchVariableOf(this.freeRecords());
    if (v < 0) return answer(this.g);
    for (const value of this.valueOrder()) {
      const mark = this.trail.length;
      this.set(v, value);
      if (this.propagate([v]) && this.enumerate(answer)) return true;
      this.undo(mark);
    }
    return false;
  }

  /**
   * Fixes every record of `vars` (free ones) so that every equation holds, component by
   * component: records that share no equation with a free record between them are
   * independent (the records crossing from one to the other are fixed), so each component
   * is solved on its own and a failing one fails the whole without retrying the others.
   * Domains keep the solution on success and are restored on failure.
   */
  private solveAll(vars: number[]): boolean {
    const mark = this.trail.length;
    for (const component of this.components(vars)) {
      if (!this.solveComponent(component)) {
        this.undo(mark);
        return false;
      }
    }
    return true;
  }

  private solveComponent(vars: number[]): boolean {
    this.tick();
    const v = this.branchVariableOf(vars);
    if (v < 0) return true;
    for (const value of this.valueOrder()) {
      const mark = this.trail.length;
      this.set(v, value);
      if (this.propagate([v]) && this.solveAll(vars.filter((x) => this.dom[x] === -1))) return true;
      this.undo(mark);
    }
    return false;
  }

  /** The free records of `vars` in groups linked through equations (union-find). */
  private components(vars: number[]): number[][] {
    const { dom, parent, varMark, rootMark, rootGroup, eqMark } = this;
    const mark = ++this.marks;
    const members: number[] = [];
    for (const v of vars) {
      if (dom[v] !== -1) continue;
      varMark[v] = mark;
      parent[v] = v;
      members.push(v);
    }
    const find = (x: number): number => {
      let r = x;
      while (parent[r] !== r) r = parent[r];
      while (parent[x] !== r) {
        const next = parent[x];
        parent[x] = r;
        x = next;
      }
      return r;
    };
    for (const v of members) {
      for (const q of this.varEqs[v]) {
        if (eqMark[q] === mark) continue;
        eqMark[q] = mark;
        let root = -1;
        for (const w of this.eqVars[q]) {
          if (dom[w] !== -1 || varMark[w] !== mark) continue;
          const r = find(w);
          if (root < 0) root = r;
          else if (r !== root) parent[r] = root;
        }
      }
    }
    // In the order of their first member, then smallest first: a failing component is found cheapest.
    const groups: number[][] = [];
    for (const v of members) {
      const r = find(v);
      if (rootMark[r] !== mark) {
        rootMark[r] = mark;
        rootGroup[r] = groups.length;
        groups.push([]);
      }
      groups[rootGroup[r]].push(v);
    }
    return groups.sort((a, b) => a.length - b.length);
  }

  /** A free record of `vars` in the equation with the fewest free records (the largest of them); -1 when none. */
  private branchVariableOf(vars: number[]): number {
    const { dom, eqMark, random } = this;
    const mark = ++this.marks;
    let best = -1;
    let fewest = Infinity;
    for (const v of vars) {
      if (dom[v] !== -1) continue;
      for (const q of this.varEqs[v]) {
        if (eqMark[q] === mark) continue;
        eqMark[q] = mark;
        let free = 0;
        let pick = -1;
        for (const w of this.eqVars[q]) {
          if (dom[w] !== -1) continue;
          free++;
          const size = this.units[this.ids[w]];
          const picked = pick < 0 ? -1 : this.units[this.ids[pick]];
          if (size > picked || (size === picked && random !== undefined && random() < 0.5)) pick = w;
        }
        if (free > 0 && (free < fewest || (free === fewest && random !== undefined && random() < 0.3))) {
          fewest = free;
          best = pick;
        }
      }
    }
    return best;
  }

  private set(v: number, value: number): void {
    this.dom[v] = value;
    this.trail.push(v);
  }

  private undo(mark: number): void {
    while (this.trail.length > mark) this.dom[this.trail.pop()!] = -1;
  }

  /** Revises the equations of `changed` records (all equations when undefined) to a fixpoint; false on a wipe-out. */
  private propagate(changed: number[] | undefined): boolean {
    const work: number[] = [];
    const enqueue = (q: number): void => {
      if (!this.queued[q]) {
        this.queued[q] = 1;
        work.push(q);
      }
    };
    if (changed === undefined) for (let q = 0; q < this.eqVars.length; q++) enqueue(q);
    else for (const v of changed) for (const q of this.varEqs[v]) enqueue(q);
    const fixed: number[] = [];
    let ok = true;
    while (work.length > 0) {
      const q = work.pop()!;
      this.queued[q] = 0;
      if (!ok) continue; // drain the queue so its flags are clear
      // Revisions are most of the work: every REVISIONS_PER_NODE of them count as a node.
      if (++this.revisions % REVISIONS_PER_NODE === 0) this.tick();
      if (!this.revise(q, fixed)) ok = false;
      while (fixed.length > 0) for (const r of this.varEqs[fixed.pop()!]) enqueue(r);
    }
    return ok;
  }

  /**
   * Arc consistency of one equation: sum of coef * x = rhs (g for a level, 0 for a step).
   * A record with a negative coefficient is counted through its complement (1 - x), so
   * every free coefficient is positive and a subset-sum table over 0..rhs decides which
   * values stay. Records left with one value are fixed and pushed to `fixed`.
   */
  private revise(q: number, fixed: number[]): boolean {
    const vars = this.eqVars[q];
    const coef = this.eqCoef[q];
    let rhs = this.eqLevel[q] ? this.g : 0;
    const free: number[] = [];
    let reach = 0;
    for (let j = 0; j < vars.length; j++) {
      const d = this.dom[vars[j]];
      const c = coef[j];
      if (d === 1) rhs -= c;
      else if (d === -1) {
        free.push(j);
        if (c < 0) rhs -= c;
        reach += Math.abs(c);
      }
    }
    if (rhs < 0 || rhs > reach) return false;
    const f = free.length;
    if (f === 0) return rhs === 0;
    // Sums 0..rhs as bits, 32 to a word: row i of the table holds the sums the first i
    // free records make (revisions are most of the rebuild's time: a byte per sum cost
    // five times as much).
    const words = (rhs + 32) >>> 5;
    if (this.table.length < (f + 1) * words) this.table = new Uint32Array((f + 1) * words * 2);
    if (this.after.length < words) {
      this.after = new Uint32Array(words * 2);
      this.shifted = new Uint32Array(words * 2);
    }
    const table = this.table;
    table.fill(0, 0, (f + 1) * words);
    table[0] = 1;
    const spare = (rhs + 1) & 31; // bits used in the last word (0: all 32)
    const lastMask = spare === 0 ? 0xffffffff : (1 << spare) - 1;
    for (let i = 0; i < f; i++) {
      const row = i * words;
      shiftUp(table, row, table, row + words, Math.abs(coef[free[i]]), words);
      for (let w = 0; w < words; w++) table[row + words + w] |= table[row + w];
      table[row + 2 * words - 1] &= lastMask;
    }
    if (!((table[f * words + (rhs >>> 5)] >>> (rhs & 31)) & 1)) return false;
    // Backwards: sums s from which the records i.. can still reach rhs.
    const after = this.after;
    const shifted = this.shifted;
    after.fill(0, 0, words);
    after[rhs >>> 5] = 1 << (rhs & 31);
    for (let i = f - 1; i >= 0; i--) {
      const c = Math.abs(coef[free[i]]);
      const row = i * words;
      shiftDown(after, shifted, c, words);
      let without = false;
      let withIt = false;
      for (let w = 0; w < words; w++) {
        const t = table[row + w];
        if (t & after[w]) without = true;
        if (t & shifted[w]) withIt = true;
        after[w] |= shifted[w];
      }
      if (!without && !withIt) return false;
      if (!without || !withIt) {
        const v = vars[free[i]];
        // withIt: the counted value is 1, which for a complemented record means out.
        const value = coef[free[i]] < 0 ? (withIt ? 0 : 1) : withIt ? 1 : 0;
        this.set(v, value);
        fixed.push(v);
      }
    }
    return true;
  }
}

const REVISIONS_PER_NODE = 64;
/** Grains of crossing size by which a restart's cut order is jittered (0-8 measured alike on the planted cuts of 400 records). */
const CUT_JITTER = 3;
const IN_FIRST = [1, 0] as const;
const OUT_FIRST = [0, 1] as const;

/** to[toAt..toAt + words) = the bits of from[fromAt..fromAt + words) moved c places up (bits past the end dropped). */
function shiftUp(from: Uint32Array, fromAt: number, to: Uint32Array, toAt: number, c: number, words: number): void {
  const whole = c >>> 5;
  const bits = c & 31;
  for (let w = words - 1; w >= 0; w--) {
    const src = w - whole;
    let value = 0;
    if (src >= 0) {
      value = from[fromAt + src] << bits;
      if (bits !== 0 && src > 0) value |= from[fromAt + src - 1] >>> (32 - bits);
    }
    to[toAt + w] = value;
  }
}

/** to[0..words) = the bits of from[0..words) moved c places down. */
function shiftDown(from: Uint32Array, to: Uint32Array, c: number, words: number): void {
  const whole = c >>> 5;
  const bits = c & 31;
  for (let w = 0; w < words; w++) {
    const src = w + whole;
    let value = 0;
    if (src < words) {
      value = from[src] >>> bits;
      if (bits !== 0 && src + 1 < words) value |= from[src + 1] << (32 - bits);
    }
    to[w] = value;
  }
}

/** Which sums up to `limit` subsets of `sizes` make (index = sum). */
function subsetSums(sizes: readonly number[], limit: number): Uint8Array {
  const reach = new Uint8Array(limit + 1);
  reach[0] = 1;
  for (const c of sizes) for (let x = limit; x >= c; x--) if (reach[x - c]) reach[x] = 1;
  return reach;
}
