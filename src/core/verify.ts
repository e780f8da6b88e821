import type { Plan } from './plans.ts';
import type { Problem } from './problem.ts';

/**
 * The independent verifier. It trusts nothing a planner returns and shares no code with
 * any planner: it re-derives conflicts, memory overlaps and the footprint from the
 * problem alone. A plan is reported only after it has passed through here.
 *
 * Budgeted problems (FlexNN): a record occupies its memory over its residency, which is
 * [first, last] except for a weight an offsets plan loads ahead (`loadSteps`): from its
 * load step, which must lie in its load window [earliest, first], through `last`.
 * Intermediates live inside one layer. The footprint may not exceed the budget.
 */
export interface Violation {
  readonly kind: 'length' | 'offset' | 'alignment' | 'overlap' | 'object-id' | 'object-size' | 'shared-conflict' | 'footprint' | 'claim' | 'budget' | 'load-window' | 'scratch';
  readonly message: string;
}

export interface Verification {
  readonly valid: boolean;
  readonly violations: readonly Violation[];
  /** The footprint recomputed from the plan (NaN when the plan is too malformed to tell). */
  readonly footprint: number;
}

export interface VerifyOptions {
  /** Every offset (and, for shared objects, every object size) must be a multiple of it. */
  readonly alignment?: number;
  /** Stop collecting after this many violations (the plan is invalid either way). */
  readonly maxViolations?: number;
  /** Bytes the footprint may not exceed; default: the problem's own budget, if any. */
  readonly budget?: number;
}

export function verifyPlan(problem: Problem, plan: Plan, options: VerifyOptions = {}): Verification {
  const collector = new ViolationCollector(options.maxViolations ?? 20);
  const alignment = options.alignment ?? 1;
  verifyIntermediates(problem, collector);
  const footprint =
    plan.approach === 'offsets'
      ? verifyOffsets(problem, plan.offsets, residencyStarts(problem, plan.loadSteps, collector), alignment, collector)
      : verifySharedObjects(problem, plan.objectIds, plan.objectSizes, alignment, collector);
  if (!Number.isNaN(footprint) && plan.footprint !== footprint) {
    collector.add('footprint', `the plan claims a footprint of ${plan.footprint} bytes but needs ${footprint}.`);
  }
  const budget = options.budget ?? problem.budget;
  if (budget !== undefined && !Number.isNaN(footprint) && footprint > budget) {
    collector.add('budget', `the plan needs ${footprint} bytes, over the budget of ${budget}.`);
  }
  verifyClaim(plan, footprint, collector);
  return { valid: collector.violations.length === 0, violations: collector.violations, footprint };
}

/**
 * An optimality claim must at least be consistent: a bound is a byte count no larger than
 * the footprint, and "optimal" means the footprint meets it.
 */
function verifyClaim(plan: Plan, footprint: number, out: ViolationCollector): void {
  const { optimal, bound } = plan;
  if (optimal === undefined && bound === undefined) return;
  if (!isByteCount(bound)) {
    out.add('claim', `the plan claims a lower bound of ${bound}; a bound is a whole number of bytes >= 0 below 2^53.`);
    return;
  }
  if (optimal !== undefined && typeof optimal !== 'boolean') out.add('claim', `the plan's optimality claim is ${String(optimal)}, not true or false.`);
  if (Number.isNaN(footprint)) return;
  if (bound > footprint) out.add('claim', `the plan claims a lower bound of ${bound} bytes above its own footprint of ${footprint}.`);
  if (optimal === true && bound !== footprint) out.add('claim', `the plan claims to be optimal with ${footprint} bytes but proves only a bound of ${bound}.`);
}

class ViolationCollector {
  readonly violations: Violation[] = [];
  constructor(private readonly limit: number) {}
  add(kind: Violation['kind'], message: string): void {
    if (this.violations.length < this.limit) this.violations.push({ kind, message });
  }
}

function isByteCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Scratch is a kernel's own temporary: it lives inside one operator. */
function verifyIntermediates(problem: Problem, out: ViolationCollector): void {
  for (const record of problem.records) {
    if (record.kind === 'scratch' && record.first !== record.last) {
      out.add('scratch', `scratch ${record.id} spans operators ${record.first}-${record.last}; scratch lives inside its one operator.`);
    }
  }
}

/**
 * Where each record's memory is taken: its first operator, or a weight's load step. A
 * load step must lie in the weight's load window [earliest, first] (later, the layer would
 * read it before it is loaded); any other record is allocated where it is first used.
 */
function residencyStarts(problem: Problem, loadSteps: readonly number[] | undefined, out: ViolationCollector): number[] {
  const { records } = problem;
  const starts = records.map((r) => r.first);
  if (loadSteps === undefined) return starts;
  if (!Array.isArray(loadSteps) || loadSteps.length !== records.length) {
    out.add('length', `the plan has ${Array.isArray(loadSteps) ? loadSteps.length : 'no'} load steps for ${records.length} records.`);
    return starts;
  }
  loadSteps.forEach((step, i) => {
    const record = records[i];
    if (!Number.isSafeInteger(step)) {
      out.add('load-window', `record ${record.id} has load step ${step}; steps are whole operator indices.`);
    } else if (record.kind === 'weight') {
      const earliest = record.earliest ?? 0;
      if (step > record.first) {
        out.add('load-window', `weight ${record.id} is loaded at operator ${step}, after its layer uses it at operator ${record.first}.`);
      } else if (step < earliest) {
        out.add('load-window', `weight ${record.id} is loaded at operator ${step}, before its load window opens at operator ${earliest}.`);
      } else {
        starts[i] = step;
      }
    } else if (step !== record.first) {
      const what = record.kind === 'scratch' ? 'scratch' : 'activation';
      out.add(
        what === 'scratch' ? 'scratch' : 'load-window',
        `${what} ${record.id} is given memory from operator ${step}, but it exists only from operator ${record.first}; only weights are loaded ahead.`,
      );
    }
  });
  return starts;
}

function verifyOffsets(problem: Problem, offsets: readonly number[], starts: readonly number[], alignment: number, out: ViolationCollector): number {
  const { records } = problem;
  if (!Array.isArray(offsets) || offsets.length !== records.length) {
    out.add('length', `the plan has ${Array.isArray(offsets) ? offsets.length : 'no'} offsets for ${records.length} records.`);
    return NaN;
  }
  let malformed = false;
  let footprint = 0;
  offsets.forEach((offset, i) => {
    if (!isByteCount(offset) || !Number.isSafeInteger(offset + records[i].size)) {
      out.add('offset', `record ${records[i].id} has offset ${offset}; offsets are whole numbers of bytes >= 0 below 2^53.`);
      malformed = true;
      return;
    }
    if (offset % alignment !== 0) {
      out.add('alignment', `record ${records[i].id} has offset ${offset}, not a multiple of the alignment ${alignment}.`);
    }
    footprint = Math.max(footprint, offset + records[i].size);
  });
  if (malformed) return NaN;

  // Sweep over time, each record from where its memory is taken. Records live at the same
  // operator all conflict pairwise, so the live set must be pairwise disjoint in memory;
  // kept sorted by offset, a new record only needs checking against its two neighbours.
  // Zero-byte records occupy no memory.
  const byFirst = records.map((_, i) => i).filter((i) => records[i].size > 0);
  byFirst.sort((a, b) => starts[a] - starts[b]);
  const byLast = byFirst.slice().sort((a, b) => records[a].last - records[b].last);
  const live: number[] = [];
  const before = (a: number, b: number): boolean => offsets[a] < offsets[b] || (offsets[a] === offsets[b] && a < b);
  const position = (i: number): number => {
    let lo = 0;
    let hi = live.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(live[mid], i)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const inLive = new Uint8Array(records.length);
  let ended = 0;
  for (const i of byFirst) {
    const now = starts[i];
    for (; ended < byLast.length && records[byLast[ended]].last < now; ended++) {
      const j = byLast[ended];
      if (inLive[j]) {
        live.splice(position(j), 1);
        inLive[j] = 0;
      }
    }
    const at = position(i);
    const below = at > 0 ? live[at - 1] : -1;
    const above = at < live.length ? live[at] : -1;
    const clash = below >= 0 && offsets[below] + records[below].size > offsets[i] ? below : above >= 0 && offsets[i] + records[i].size > offsets[above] ? above : -1;
    if (clash >= 0) {
      out.add(
        'overlap',
        `records ${records[clash].id} and ${records[i].id} are live together ` +
          `(operators ${starts[clash]}-${records[clash].last} and ${starts[i]}-${records[i].last}) ` +
          `but share bytes [${Math.max(offsets[clash], offsets[i])}, ` +
          `${Math.min(offsets[clash] + records[clash].size, offsets[i] + records[i].size)}).`,
      );
      continue;
    }
    live.splice(at, 0, i);
    inLive[i] = 1;
  }
  return footprint;
}

function verifySharedObjects(problem: Problem, objectIds: readonly number[], objectSizes: readonly number[], alignment: number, out: ViolationCollector): number {
  const { records } = problem;
  if (!Array.isArray(objectIds) || objectIds.length !== records.length) {
    out.add('length', `the plan assigns ${Array.isArray(objectIds) ? objectIds.length : 'no'} objects for ${records.length} records.`);
    return NaN;
  }
  if (!Array.isArray(objectSizes)) {
    out.add('length', 'the plan has no object sizes.');
    return NaN;
  }
  let footprint = 0;
  let malformed = false;
  objectSizes.forEach((size, id) => {
    if (!isByteCount(size)) {
      out.add('object-size', `object ${id} has size ${size}; sizes are whole numbers of bytes >= 0 below 2^53.`);
      malformed = true;
      return;
    }
    if (size % alignment !== 0) out.add('alignment', `object ${id} has size ${size}, not a multiple of the alignment ${alignment}.`);
    footprint += size;
  });
  const members: number[][] = objectSizes.map(() => []);
  objectIds.forEach((id, i) => {
    if (!Number.isInteger(id) || id < 0 || id >= objectSizes.length) {
      out.add('object-id', `record ${records[i].id} is assigned to object ${id}, which does not exist.`);
      malformed = true;
      return;
    }
    members[id].push(i);
    if (records[i].size > objectSizes[id]) {
      out.add('object-size', `record ${records[i].id} (${records[i].size} bytes) does not fit object ${id} (${objectSizes[id]} bytes).`);
    }
  });
  // Within an object, sorted by first use, pairwise disjoint iff neighbours are disjoint.
  members.forEach((list, id) => {
    list.sort((a, b) => records[a].first - records[b].first);
    for (let k = 1; k < list.length; k++) {
      const a = records[list[k - 1]];
      const b = records[list[k]];
      if (a.last >= b.first) {
        out.add('shared-conflict', `records ${a.id} (operators ${a.first}-${a.last}) and ${b.id} (operators ${b.first}-${b.last}) are live together but share object ${id}.`);
      }
    }
  });
  return malformed ? NaN : footprint;
}
