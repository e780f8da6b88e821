import type { Approach } from '../core/plans.ts';
import { flexnn, flexnnNoPreload } from './budgeted/flexnn.ts';
import { bestOf } from './offsets/best-of.ts';
import { exact as offsetsExact } from './offsets/exact.ts';
import { greedyByBreadth as offsetsGreedyByBreadth } from './offsets/greedy-by-breadth.ts';
import { greedyBySize as offsetsGreedyBySize } from './offsets/greedy-by-size.ts';
import { naive as offsetsNaive } from './offsets/naive.ts';
import { pathCover } from './offsets/path-cover.ts';
import { search as offsetsSearch } from './offsets/search.ts';
import { skylineByLifetime } from './offsets/skyline-by-lifetime.ts';
import { stripPackingBestFit, stripPackingBestFitSmallerFirst } from './offsets/strip-packing-best-fit.ts';
import type { Planner } from './planner.ts';
import { equality } from './shared-objects/equality.ts';
import { exact as sharedObjectsExact } from './shared-objects/exact.ts';
import { greedyByBreadth } from './shared-objects/greedy-by-breadth.ts';
import { greedyBySizeImprovedSizeFirst } from './shared-objects/greedy-by-size-improved-size-first.ts';
import { greedyBySizeImproved } from './shared-objects/greedy-by-size-improved.ts';
import { greedyBySize } from './shared-objects/greedy-by-size.ts';
import { greedyInOrder } from './shared-objects/greedy-in-order.ts';
import { minCostFlow } from './shared-objects/min-cost-flow.ts';
import { naive } from './shared-objects/naive.ts';
import { UnknownPlannerError } from './unknown-planner-error.ts';

/** Every built-in strategy, in the order tables list them. Adding one: a file and a line here. */
export const PLANNERS: readonly Planner[] = [
  naive,
  equality,
  greedyInOrder,
  minCostFlow,
  greedyByBreadth,
  greedyBySize,
  greedyBySizeImproved,
  greedyBySizeImprovedSizeFirst,
  sharedObjectsExact,
  offsetsNaive,
  offsetsGreedyBySize,
  offsetsGreedyByBreadth,
  stripPackingBestFit,
  stripPackingBestFitSmallerFirst,
  skylineByLifetime,
  pathCover,
  bestOf,
  offsetsSearch,
  offsetsExact,
];

/**
 * Planners of budgeted problems (weights loaded ahead, a memory budget; ids `budgeted/...`,
 * offsets plans with load steps). They are kept apart from PLANNERS, the strategies of the
 * paper's tables and of the activation-only property tests (registry.test.ts), because
 * they answer another question: fit a budget, not the smallest arena. They plan
 * activation-only problems too (test/planners/budgeted/ runs them on random problems).
 */
export const BUDGETED_PLANNERS: readonly Planner[] = [flexnn, flexnnNoPreload];

export function plannersOf(approach: Approach): Planner[] {
  return PLANNERS.filter((p) => p.approach === approach);
}

/** The planner with this id (a strategy or a budgeted planner), or an error that names the closest ids. */
export function findPlanner(id: string): Planner {
  const known = [...PLANNERS, ...BUDGETED_PLANNERS];
  const found = known.find((p) => p.id === id);
  if (found) return found;
  const closest = known
    .map((p) => ({ id: p.id, distance: editDistance(id, p.id) }))
    .sort((a, b) => a.distance - b.distance)
    .slice(0, 3)
    .map((p) => p.id);
  throw new UnknownPlannerError(`unknown planner "${id}"; the closest are ${closest.join(', ')} (see \`memplan list planners\`).`);
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}
