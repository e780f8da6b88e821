import { epochMs } from '../../../core/clock.ts';
import { makeProblem, type Problem } from '../../../core/problem.ts';
import { greedyBySize } from '../greedy-by-size.ts';
import { peelBands } from './band-peel.ts';
import { Budget, type Checkpoint } from './budget.ts';
import { decompose, type Decomposition } from './decompose.ts';
import { flatUnits, rebuildCut, REBUILD_UP_TO, restartRebuild, RESTARTS_UP_TO } from './cut-rebuild.ts';
import { packAroundPeak } from './peak-window.ts';
import { chainedPart, offsetsOfChained, partState, portfolioRun, roundDown, roundUp, runNodes, SCAN_UP_TO, type PartState } from './parts.ts';
import type { SearchOutcome } from './skyline-search.ts';
import { TrajectoryRecorder, type TrajectoryPoint } from './trajectory.ts';

export interface ExactOffsetsOptions {
  readonly alignment: number;
  readonly timeLimitMs: number;
  /** Search nodes in all (default: unlimited); a run stopped by nodes alone repeats exactly. */
  readonly nodeLimit?: number;
  /** Varies the order of the searches (default 0); every seed is sound, each has other luck. */
  readonly seed?: number;
  /** When the plan started (epochMs()), for the trajectory's times; default: now. */
  readonly startEpochMs?: number;
}

/**
 * The other thread of a portfolio (portfolio.ts), met at checkpoints: every SYNC_NODES
 * nodes each side hands over its best arena and bound and gets the other's as of the
 * same checkpoint, so that what a side knows of the other depends on node counts only.
 */
export interface Partner {
  exchange(arena: number, bound: number): { readonly arena: number; readonly bound: number; readonly stop: boolean };
}

/**
 * cut-rebuild.ts runs on parts up to REBUILD_UP_TO records, for at most this many nodes
 * and the question's time (the planted guillotine cuts it rebuilds take 200 to 6,000 nodes
 * at 200 records, 1,500 and 32,000 at 300, seeds 42 and 41: 1 s for the latter on a 2-core
 * EPYC; where it fails, at 400 records, the nodes take 1-2.5 s). Then restartRebuild()'s
 * runs take turns with the searches (decide). Larger parts are peeled in bands instead
 * (band-peel.ts).
 */
export const REBUILD_NODES = 64_000;

/** Nodes between two checkpoints of a portfolio (about 20 to 100 ms of search). */
export const SYNC_NODES = 1 << 16;

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
  /** Best arena and bound over time (trajectory.ts); the last point is this outcome's. */
  readonly trajectory: readonly TrajectoryPoint[];
}

/** What every search of a problem starts from: its parts, each with its bound and incumbent. */
export interface Setup {
  readonly decomposition: Decomposition;
  readonly states: PartState[];
  /** Proven lower bound of the whole problem (the parts' bounds on their bases). */
  lowest(): number;
  /** Arena of the parts' best packings together. */
  highest(): number;
}

export function setUp(problem: Problem, alignment: number): Setup {
  const decomposition = decompose(problem.records, alignment);
  const states = decomposition.parts.map((part) => partState(problem, part, alignment));
  return {
    decomposition,
    states,
    lowest: () => states.reduce((top, s) => Math.max(top, s.part.base + s.low), decomposition.fixedTop),
    highest: () => states.reduce((top, s) => Math.max(top, s.part.base + s.high), decomposition.fixedTop),
  };
}

/**
 * Best offsets within the budget and whether they are optimal. The problem is cut into
 * parts (decompose.ts), each part starts from the better of Greedy by Size and Strip
 * Packing Best-fit, and the part that sets the arena is searched (skyline-search.ts) at a
 * capacity chosen between what is proven and what is found: first the lower bound, then
 * by bisection, until the arena meets the bound or the budget is spent.
 */
export function solveOffsetsExact(problem: Problem, options: ExactOffsetsOptions, partner?: Partner, within?: Budget): ExactOffsetsOutcome {
  const { setup, trajectory, budget, other } = startSearch(problem, options, partner, within);
  const { states, lowest, highest } = setup;
  // Alone (one thread, offsets/search), this search peels bands itself; beside improver.ts,
  // which peels while this one goes on, or nested (the rest above bands), it does not.
  if (within === undefined && partner === undefined) {
    peelLargeParts(states, options, budget);
    trajectory.note(highest(), Math.min(highest(), lowest()));
  }

  for (;;) {
    const low = Math.max(lowest(), other.bound);
    const high = highest();
    if (Math.min(high, other.arena) <= low || budget.spent()) break;
    // The part that sets the arena (the first of them); it cannot be done: high > low.
    const state = states.find((s) => s.part.base + s.high === high)!;
    // The part's arenas are multiples of its grain, so questions are asked at multiples of
    // it: a capacity between two of them is the question at the lower one again.
    const grain = state.grain;
    // Nothing at or above what either side has found is worth asking for.
    const ceiling = roundDown(Math.min(state.high, other.arena - state.part.base) - 1, grain);
    if (state.low > ceiling) break; // this part has nothing left to try
    // Above the questions that ran out of budget, or, once they reach the ceiling, the
    // ceiling again (with a share of the time that is left).
    const floor = Math.min(ceiling, Math.max(state.low, roundUp(state.stoppedAt + 1, grain)));
    // Nothing below the global bound is worth asking for. The first question is the bound
    // itself (often tight); later ones bisect between what is proven and what is found.
    let capacity = Math.max(low - state.part.base, floor);
    if (state.asked > 0) capacity = Math.max(capacity, roundDown((floor + ceiling) / 2, grain));
    capacity = Math.min(capacity, ceiling);
    // Each question gets half the time left; the first, at the bound, a quarter when
    // improver.ts runs beside this search: the questions that bisect are what finds the
    // packings far below the improver's (MiniMalloc J at 60 s, seeds 1-4: 972-976 KiB with a
    // quarter, 976-980 with half or three quarters), and with the chains searched beside the
    // part (decide) MiniMalloc D is packed at its bound in 7-9 s, not 30 s.
    const share = state.asked === 0 && partner !== undefined ? FIRST_SHARE_BESIDE_IMPROVER : 1 / 2;
    state.asked++;
    const outcome = decide(state, capacity, budget.child(Infinity, Math.max(50, budget.remainingMs() * share)), options.seed ?? 0);
    if (outcome.status === 'found') {
      state.high = outcome.arena;
      state.offsets = outcome.offsets;
    } else if (outcome.status === 'infeasible') {
      state.low = Math.max(state.low, roundUp(capacity + 1, state.grain));
    } else {
      state.stoppedAt = Math.max(state.stoppedAt, capacity);
    }
    trajectory.note(highest(), Math.min(highest(), lowest()));
  }

  let offsets = assemble(problem.records.length, setup.decomposition, states);
  let arena = highest();
  // Greedy by Size on the whole problem, in case the parts' start was worse (it never is
  // in practice; this makes "never worse than Greedy by Size" hold by construction).
  // Nothing beats an arena at the bound, so then it is not run.
  if (arena > lowest()) {
    const whole = greedyBySize.plan(problem, { alignment: options.alignment });
    if (whole.footprint < arena) {
      offsets = Float64Array.from(whole.offsets);
      arena = whole.footprint;
    }
  }
  return finishSearch(setup, offsets, arena, budget, trajectory);
}

/** What a search of a portfolio starts with: the parts, its trajectory, its budget, and what its partner has found and proven as of the last checkpoint. */
export interface SearchStart {
  readonly setup: Setup;
  readonly trajectory: TrajectoryRecorder;
  readonly budget: Budget;
  readonly other: { readonly arena: number; readonly bound: number };
}

/**
 * The start both searches share (this file's and improver.ts's): the problem set up in
 * parts, the first trajectory point, and a budget that meets the partner, if any, every
 * SYNC_NODES nodes to trade arenas and bounds.
 */
export function startSearch(problem: Problem, options: ExactOffsetsOptions, partner?: Partner, within?: Budget): SearchStart {
  const setup = setUp(problem, options.alignment);
  const { lowest, highest } = setup;
  const trajectory = new TrajectoryRecorder(options.startEpochMs ?? epochMs());
  const other = { arena: Infinity, bound: 0 };
  const checkpoint: Checkpoint | undefined =
    partner === undefined
      ? undefined
      : {
          nodes: SYNC_NODES,
          call: () => {
            const met = partner.exchange(highest(), lowest());
            other.arena = met.arena;
            other.bound = met.bound;
            return !met.stop;
          },
        };
  const budget = within?.child(options.nodeLimit, options.timeLimitMs) ?? Budget.of(options.timeLimitMs, options.nodeLimit ?? Infinity, checkpoint);
  trajectory.note(highest(), Math.min(highest(), lowest()));
  return { setup, trajectory, budget, other };
}

/** The outcome of a search that ends with `offsets` of arena `arena`: its bound is the parts' proof, capped by the arena. */
export function finishSearch(setup: Setup, offsets: Float64Array, arena: number, budget: Budget, trajectory: TrajectoryRecorder): ExactOffsetsOutcome {
  const bound = Math.min(arena, setup.lowest());
  trajectory.note(arena, bound);
  return { offsets, arena, bound, optimal: arena === bound, parts: setup.states.length, nodes: budget.nodesUsed, trajectory: trajectory.points };
}

/** peelAndPack on every part of more than REBUILD_UP_TO records not yet solved. */
export function peelLargeParts(states: readonly PartState[], options: ExactOffsetsOptions, budget: Budget): void {
  for (const state of states) if (state.instances[0].n > REBUILD_UP_TO && state.high > state.low) peelAndPack(state, options, budget);
}

/**
 * A large part with no slack at its bound (a rectangle cut into pieces, too large for
 * cut-rebuild.ts whole): bands peeled off its bottom (band-peel.ts), and the rest packed
 * above them by this file's search, nested in the budget. Keeps the packing only if it
 * beats the part's best; proves nothing (the peel is a heuristic). The peel gets up to an
 * eighth of the time left and PEEL_NODES nodes, the rest's search (only where the bands
 * take half the height or more) a sixteenth of the time and of the nodes left (in tries at
 * 1000 records, 1 s packed it within a grain or two of what 15 s did).
 */
function peelAndPack(state: PartState, options: ExactOffsetsOptions, budget: Budget): void {
  const capacity = state.low;
  const peeled = peelBands(state.instances[0], state.grain, capacity, budget.child(PEEL_NODES, budget.remainingMs() / 8));
  // Bands of less than half the height leave the rest nearly as hard as the part: not worth its search.
  if (peeled === undefined || budget.spent() || 2 * peeled.restBase < capacity) return;
  const offsets = peeled.offsets;
  let arena = peeled.restBase;
  if (peeled.rest.length > 0) {
    const records = peeled.rest.map((k) => state.problem.records[k]);
    const rest = makeProblem(`${state.problem.name} above its bands`, records, state.problem.operatorCount);
    const nodes = budget.nodesLeft();
    const restOptions = { ...options, timeLimitMs: budget.remainingMs() / 16, nodeLimit: Number.isFinite(nodes) ? Math.floor(nodes / 16) : undefined };
    const packed = solveOffsetsExact(rest, restOptions, undefined, budget);
    peeled.rest.forEach((k, i) => (offsets[k] = peeled.restBase + packed.offsets[i]));
    arena = peeled.restBase + packed.arena;
  }
  if (arena < state.high) {
    state.high = arena;
    state.offsets = offsets;
  }
}

/** Share of the time left that the question at the bound gets when improver.ts runs beside this search. */
const FIRST_SHARE_BESIDE_IMPROVER = 1 / 4;

/** Nodes band-peel.ts may take in all (its levels stop it far sooner where it finds no band). */
const PEEL_NODES = 2_000_000;

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
  // A part with no slack at the capacity may be a rectangle cut into pieces, which the
  // rebuild finds in milliseconds where the searches below need millions of nodes. One
  // try per part, by nodes only (so runs repeat), and only where it pays for itself.
  if (!state.rebuildTried && state.instances[0].n <= REBUILD_UP_TO) {
    state.rebuildTried = true;
    const rebuilt = rebuildCut(state.instances[0], state.grain, capacity, budget.child(REBUILD_NODES));
    if (rebuilt.status === 'found') return rebuilt;
  }
  // Where the one try fails (or the part is larger), restarts of the rebuild with drawn
  // choices take turns with the searches' runs on parts that are flat at the capacity.
  const flat = state.instances[0].n <= RESTARTS_UP_TO ? flatUnits(state.instances[0], state.grain, capacity) : undefined;
  let restarts = 0;
  const large = state.instances[0].n > SCAN_UP_TO;
  if (large) {
    const built = packAroundPeak(state, capacity, budget.child(Infinity, (3 * budget.remainingMs()) / 4));
    if (built.status === 'found') return built;
  }
  // On parts up to SCAN_UP_TO records, runs alternate between the part and its chains
  // (chains.ts) while the chains' search has not ended: a packing of the chains is one of
  // the part, and often found far sooner (MiniMalloc D at its bound: 1-8 s on the chains
  // with seeds 0-2, 30 s on the part); an end without one proves nothing of the part, so
  // then only the part goes on. (Larger parts: no change measured on the planted 5000, at
  // 10 s; left as they were.)
  const chained = large ? undefined : chainedPart(state);
  let chainsOpen = chained !== undefined;
  const steps = [0, 0];
  for (let turn = 0; ; turn++) {
    if (flat !== undefined) {
      restarts++;
      const rebuilt = restartRebuild(state.instances[0], state.grain, flat, capacity, budget, restarts, seed);
      if (rebuilt.status === 'found') return rebuilt;
      if (budget.spent()) return { status: 'stopped' };
    }
    const onChains = chainsOpen && turn % 2 === 1;
    const target = onChains ? chained!.state : state;
    const step = steps[onChains ? 1 : 0]++;
    // On small parts each order runs under both engines (they differ in the valley they
    // branch on, and each solves instances the other does not), on large parts under the
    // lazy one only. Run lengths follow Luby's sequence (1, 1, 2, 1, 1, 2, 4, ...), which
    // wastes little on heavy-tailed searches.
    const run = large ? step : step >> 1;
    const outcome = portfolioRun(target, capacity, budget.child(runNodes(target, run)), run, large || step % 2 === 1, seed);
    if (onChains) {
      if (outcome.status === 'found') return { ...outcome, offsets: offsetsOfChained(chained!, outcome.offsets) };
      if (outcome.status === 'infeasible') chainsOpen = false;
      if (budget.spent()) return { status: 'stopped' };
    } else if (outcome.status !== 'stopped' || budget.spent()) return outcome;
  }
}
