import { alignUp, checkAlignment } from '../../core/alignment.ts';
import { offsetsPlan } from '../../core/plans.ts';
import type { Problem } from '../../core/problem.ts';
import { maxOperatorBreadth } from '../../core/profiles.ts';
import { recordKind } from '../../core/records.ts';
import type { OffsetsPlanner } from '../planner.ts';
import { FreeSpace } from './free-space.ts';
import { InfeasibleBudgetError } from './infeasible-budget.ts';
import { smallestBudget } from './smallest-budget.ts';
import { placeActivationsAtBothEnds } from './two-ended-activations.ts';

/**
 * How far back a weight may be preloaded, in operators: FlexNN's scheduler caps it at 50
 * layers (`max_preload_count`), which bounds the search and keeps loads near their use.
 */
export const MAX_PRELOAD_STEPS = 50;

/**
 * FlexNN's preload-aware memory planning (Li et al., MobiCom 2024, section 3.3.2 and
 * Algorithm 1; `FlexnnSchedule::schedule_naive` of its code), in one buffer of the budget:
 *
 * 1. activations first, at the two ends of the buffer, alternating ends layer by layer
 *    (two-ended-activations.ts);
 * 2. then layer by layer (operator by operator): the layer's weights, each at the earliest
 *    load step that still fits, searched back from its layer one operator at a time while
 *    one free range holds it at every step in between, no further back than 50 operators,
 *    its load window and the previous weight's load step (the loader reads weights in
 *    order); at the lowest such offset;
 * 3. then the layer's intermediates in the space left (lowest offset that fits);
 * 4. when the layer fails, it is planned again with its weights at their layer (no
 *    preload); when that fails too, the budget is infeasible: an InfeasibleBudgetError
 *    names the layer and the smallest budget that works for these records (bisection;
 *    skipped when the caller asks only whether the budget fits: findSmallestBudget).
 *
 * FlexNN also pins some weights in memory for good when its profiler finds the network
 * I/O-bound and the budget has room to spare; that needs time profiles, which a memory
 * planner does not have, so nothing is pinned here (every weight is loaded per inference).
 * Without a budget the plan is made at the smallest budget it meets.
 */
export function flexnnPlanner(preload: boolean): OffsetsPlanner {
  const id = preload ? 'budgeted/flexnn' : 'budgeted/flexnn-no-preload';
  return {
    id,
    approach: 'offsets',
    title: preload ? 'FlexNN preload-aware planning' : 'FlexNN planning without preload',
    citation: 'Li et al. 2024 (FlexNN, MobiCom), Algorithm 1',
    complexity: 'n^2',
    plan(problem, options) {
      const alignment = checkAlignment(options?.alignment);
      const budget = options?.budget ?? problem.budget;
      const attempt = (capacity: number): Attempt => planWithin(problem, capacity, alignment, preload);
      // No plan fits below the largest sum of sizes live at one operator.
      const search = (from: number, below: number): number | undefined => smallestBudget((capacity) => attempt(capacity).ok, { step: alignment, start: from, below });
      const breadth = maxOperatorBreadth(problem);
      if (budget === undefined) {
        const capacity = search(sumOfAligned(problem, alignment), breadth - 1) as number;
        const result = attempt(capacity) as Placed;
        return offsetsPlan(problem, result.offsets, result.loadSteps);
      }
      const result = attempt(budget);
      if (result.ok) return offsetsPlan(problem, result.offsets, result.loadSteps);
      const searched = options?.findSmallestBudget !== false;
      const smallest = searched ? search(Math.max(budget, sumOfAligned(problem, alignment)), Math.max(budget, breadth - 1)) : undefined;
      throw new InfeasibleBudgetError(
        failureMessage(id, problem, result, budget, searched, smallest),
        result.step,
        result.records.map((i) => problem.records[i].id),
        budget,
        smallest,
      );
    },
  };
}

export const flexnn = flexnnPlanner(true);
/** The ablation of FlexNN's paper: the same planning with every weight loaded at its own layer. */
export const flexnnNoPreload = flexnnPlanner(false);

interface Placed {
  readonly ok: true;
  readonly offsets: Float64Array;
  readonly loadSteps: Float64Array;
}

interface Failed {
  readonly ok: false;
  /** The operator whose records did not fit. */
  readonly step: number;
  readonly records: readonly number[];
  readonly what: 'activations' | 'layer';
}

type Attempt = Placed | Failed;

function sumOfAligned(problem: Problem, alignment: number): number {
  let total = 0;
  for (const r of problem.records) total += alignUp(r.size, alignment);
  return total;
}

/**
 * Algorithm 1 in a buffer of `budget` bytes, of which it uses the largest multiple of the
 * alignment (FlexNN's plane is aligned the same way), so that every budget between two
 * multiples gets the same plan and a search in alignment steps sees every plan there is.
 */
function planWithin(problem: Problem, budget: number, alignment: number, preload: boolean): Attempt {
  const { records } = problem;
  const capacity = Math.floor(budget / alignment) * alignment;
  const activations: number[] = [];
  const weightsAt: number[][] = Array.from({ length: problem.operatorCount }, () => []);
  const intermediatesAt: number[][] = Array.from({ length: problem.operatorCount }, () => []);
  records.forEach((r, i) => {
    const kind = recordKind(r);
    if (kind === 'weight') weightsAt[r.first].push(i);
    else if (kind === 'scratch') intermediatesAt[r.first].push(i);
    else activations.push(i);
  });

  const ends = placeActivationsAtBothEnds(problem, activations, capacity, alignment);
  if (!ends.ok) return { ok: false, step: ends.step, records: ends.records, what: 'activations' };
  const offsets = ends.offsets;
  const loadSteps = new Float64Array(records.length);
  records.forEach((r, i) => (loadSteps[i] = r.first));
  const space = new FreeSpace(problem.operatorCount, capacity, alignment);
  for (const i of activations) space.take(records[i].first, records[i].last, offsets[i], records[i].size);

  let loadingFrom = 0;
  for (let step = 0; step < problem.operatorCount; step++) {
    const weights = weightsAt[step];
    const intermediates = intermediatesAt[step];
    if (weights.length === 0 && intermediates.length === 0) continue;
    space.mark();
    let layer = placeLayer(problem, space, weights, intermediates, preload ? loadingFrom : undefined, offsets, loadSteps);
    if (!layer.ok && preload) {
      // Greedy preloads can fragment the middle so that the layer's own records no longer
      // fit: plan the layer again with its weights loaded at the layer itself.
      space.rollback();
      layer = placeLayer(problem, space, weights, intermediates, undefined, offsets, loadSteps);
    }
    if (!layer.ok) return { ok: false, step, records: [...weights, ...intermediates], what: 'layer' };
    loadingFrom = layer.loadingFrom;
  }
  return { ok: true, offsets, loadSteps };
}

/**
 * One layer's weights, then its intermediates. With `loadingFrom` (preloading), each
 * weight searches back from its layer as far as one free range stays common to every step.
 */
function placeLayer(
  problem: Problem,
  space: FreeSpace,
  weights: readonly number[],
  intermediates: readonly number[],
  loadingFrom: number | undefined,
  offsets: Float64Array,
  loadSteps: Float64Array,
): { ok: true; loadingFrom: number } | { ok: false } {
  const { records } = problem;
  let from = loadingFrom ?? 0;
  for (const w of weights) {
    const record = records[w];
    let common = space.commonFree(record.first, record.last);
    let offset = space.lowestFit(common, record.size);
    if (offset < 0) return { ok: false };
    let at = record.first;
    if (loadingFrom !== undefined) {
      const earliest = Math.max(from, record.first - MAX_PRELOAD_STEPS, record.earliest ?? 0);
      for (let t = record.first - 1; t >= earliest; t--) {
        const narrowed = space.narrow(common, t);
        const fit = space.lowestFit(narrowed, record.size);
        if (fit < 0) break;
        common = narrowed;
        offset = fit;
        at = t;
      }
    }
    space.take(at, record.last, offset, record.size);
    offsets[w] = offset;
    loadSteps[w] = at;
    // The loader reads weights in order: the next one is not loaded before this one.
    from = at;
  }
  for (const i of intermediates) {
    const record = records[i];
    const offset = space.lowestFit(space.commonFree(record.first, record.last), record.size);
    if (offset < 0) return { ok: false };
    space.take(record.first, record.last, offset, record.size);
    offsets[i] = offset;
  }
  return { ok: true, loadingFrom: from };
}

function failureMessage(id: string, problem: Problem, failure: Failed, budget: number, searched: boolean, smallest: number | undefined): string {
  const bytes = (n: number): string => `${n} bytes (${(n / 2 ** 20).toFixed(3)} MiB)`;
  const named = failure.records.slice(0, 3).map((i) => `${problem.records[i].id} ${problem.records[i].size} B`);
  const more = failure.records.length > 3 ? ` and ${failure.records.length - 3} more` : '';
  const what = failure.what === 'activations' ? 'the activations live' : 'the layer';
  const tail = !searched ? '.' : smallest === undefined ? '; no budget below 2^52 bytes fits them.' : `; the smallest budget that works for these records is ${bytes(smallest)}.`;
  return `${id} cannot fit ${what} at operator ${failure.step} (${named.join(', ')}${more}) in a budget of ${bytes(budget)}${tail}`;
}
