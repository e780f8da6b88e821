import type { Problem } from '../../../core/problem.ts';
import { greedyBySize } from '../greedy-by-size.ts';
import { Budget } from './budget.ts';
import { decompose, type Decomposition } from './decompose.ts';
import { packAroundPeak } from './peak-window.ts';
import { partState, portfolioRun, roundUp, runNodes, SCAN_UP_TO, type PartState } from './parts.ts';
import type { SearchOutcome } from './skyline-search.ts';

export interface ExactOffsetsOptions {
  readonly alignment: number;
  readonly timeLimitMs: number;
  /** Search nodes in all (default: unlimited); a run stopped by nodes alone repeats exactly. */
  readonly nodeLimit?: number;
  /** Varies the order of the searches (default 0); every seed is sound, each has other luck. */
  readonly seed?: number;
}

export interface ExactOffsetsOutcome {
  /** Per record, in input order. */
  readonly offsets: Float64Array;
  readonly arena: number;
  /** A proven lower bound on the arena of any valid plan. */
  readonly bound: number;
  /** arena === bound: no valid plan has a smaller arena. */
  readonly optimal: boolean;
  readonly parts: number;
  readonly nodes: number;
}

/**
 * Best offsets within the budget and whether they are optimal. The problem is cut into
 * parts (decompose.ts), each part starts from the better of Greedy by Size and Strip
 * Packing Best-fit, and the part that sets the arena is searched (skyline-search.ts) at a
 * capacity chosen between what is proven and what is found: first the lower bound, then
 * by bisection, until the arena meets the bound or the budget is spent.
 */
export function solveOffsetsExact(problem: Problem, options: ExactOffsetsOptions): ExactOffsetsOutcome {
  const budget = Budget.of(options.timeLimitMs, options.nodeLimit ?? Infinity);
  const { alignment } = options;
  const { records } = problem;
  const decomposition = decompose(records, alignment);
  const states = decomposition.parts.map((part) => partState(problem, part, alignment));

  const lowest = (): number => states.reduce((top, s) => Math.max(top, s.part.base + s.low), decomposition.fixedTop);
  const highest = (): number => states.reduce((top, s) => Math.max(top, s.part.base + s.high), decomposition.fixedTop);

  for (;;) {
    const low = lowest();
    const high = highest();
    if (high <= low || budget.spent()) break;
    // The part that sets the arena (the first of them); it cannot be done: high > low.
    const state = states.find((s) => s.part.base + s.high === high)!;
    const floor = Math.max(state.low, state.stoppedAt + 1);
    const ceiling = state.high - 1;
    if (floor > ceiling) break; // this part has nothing left to try within the budget
    // Nothing below the global bound is worth asking for. The first question is the bound
    // itself (often tight); later ones bisect between what is proven and what is found.
    let capacity = Math.max(low - state.part.base, floor);
    if (state.asked > 0) capacity = Math.max(capacity, Math.floor((floor + ceiling) / 2));
    capacity = Math.min(capacity, ceiling);
    state.asked++;
    const outcome = decide(state, capacity, budget.child(Infinity, Math.max(50, budget.remainingMs() / 2)), options.seed ?? 0);
    if (outcome.status === 'found') {
      state.high = outcome.arena;
      state.offsets = outcome.offsets;
    } else if (outcome.status === 'infeasible') {
      state.low = Math.max(state.low, roundUp(capacity + 1, state.grain));
    } else {
      state.stoppedAt = Math.max(state.stoppedAt, capacity);
    }
  }

  let offsets = assemble(records.length, decomposition, states);
  let arena = highest();
  // Greedy by Size on the whole problem, in case the parts' start was worse (it never is
  // in practice; this makes "never worse than Greedy by Size" hold by construction).
  // Nothing beats an arena at the bound, so then it is not run.
  if (arena > lowest()) {
    const whole = greedyBySize.plan(problem, { alignment });
    if (whole.footprint < arena) {
      offsets = Float64Array.from(whole.offsets);
      arena = whole.footprint;
    }
  }
  const bound = Math.min(arena, lowest());
  return { offsets, arena, bound, optimal: arena === bound, parts: states.length, nodes: budget.nodesUsed };
}

/** Offsets of the whole problem: fixed records where decompose put them, parts on their bases. */
export function assemble(n: number, decomposition: Decomposition, states: readonly PartState[]): Float64Array {
  const offsets = new Float64Array(n);
  for (let i = 0; i < n; i++) if (!Number.isNaN(decomposition.fixed[i])) offsets[i] = decomposition.fixed[i];
  for (const s of states) s.part.records.forEach((i, k) => (offsets[i] = s.part.base + s.offsets[k]));
  return offsets;
}

/**
 * Runs the portfolio at one capacity until a run ends (found or proven infeasible) or the
 * budget does. A large part first tries the construction around its peak (peak-window.ts)
 * with up to 3/4 of the budget: on one-peak traces it fits at the bound where the search
 * alone does not, and where it fits no search is needed.
 */
function decide(state: PartState, capacity: number, budget: Budget, seed: number): SearchOutcome {
  const large = state.instances[0].n > SCAN_UP_TO;
  if (large) {
    const built = packAroundPeak(state, capacity, budget.child(Infinity, (3 * budget.remainingMs()) / 4));
    if (built.status === 'found') return built;
  }
  for (let step = 0; ; step++) {
    // On small parts each order runs under both engines (they differ in the valley they
    // branch on, and each solves instances the other does not), on large parts under the
    // lazy one only. Run lengths follow Luby's sequence (1, 1, 2, 1, 1, 2, 4, ...), which
    // wastes little on heavy-tailed searches.
    const run = large ? step : step >> 1;
    const outcome = portfolioRun(state, capacity, budget.child(runNodes(state, run)), run, large || step % 2 === 1, seed);
    if (outcome.status !== 'stopped' || budget.spent()) return outcome;
  }
}
