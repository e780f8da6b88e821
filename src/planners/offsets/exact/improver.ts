import type { Problem } from '../../../core/problem.ts';
import type { Budget } from './budget.ts';
import { flatUnits, restartRebuild, RESTARTS_UP_TO } from './cut-rebuild.ts';
import { chainedPart, offsetsOfChained, PORTFOLIO, portfolioRun, roundUp, runNodes, SCAN_UP_TO, type ChainedPart, type PartState } from './parts.ts';
import type { SearchOutcome } from './skyline-search.ts';
import { assemble, finishSearch, peelLargeParts, startSearch, type ExactOffsetsOptions, type ExactOffsetsOutcome, type Partner } from './solve.ts';

/**
 * The second search of the portfolio (portfolio.ts runs it beside solve.ts's): it always
 * asks for a packing a step below the best one found, never at the bound, so that on
 * instances where the bound is far (or not reachable) it keeps finding better packings
 * while the first search spends its time proving. The step starts at an eighth of the
 * gap between what is proven and what is found, halves when a question runs out of
 * nodes and doubles when one is answered. Questions alternate between the part itself and
 * its chains (chains.ts), which only find. Orders are the seeded noisy ones (the first
 * search runs the fixed ones), with the moves that fit their valley first (search-setup.ts's
 * fitClass: on the planted cuts of 1000 records it ends 1.5-2 points closer to the
 * optimum in the same time; the first search keeps the plain orders that its proofs were
 * measured with: with fitFirst there, MiniMalloc D is no longer proven in 60 s). An
 * 'infeasible' answer on the part itself is a proof and raises the part's bound; on the
 * chains it proves nothing and counts as stopped. On parts of up to RESTARTS_UP_TO records
 * flat at their bound, each question follows a restart of cut-rebuild.ts at the bound.
 */
export function improveProblem(problem: Problem, options: ExactOffsetsOptions, partner?: Partner): ExactOffsetsOutcome {
  const { setup, trajectory, budget, other } = startSearch(problem, options, partner);
  const { states, lowest, highest } = setup;
  const seed = options.seed ?? 0;
  const contexts = new Map<PartState, Context>();
  // Large parts with no slack get their bands peeled (solve.ts's peelLargeParts) once a
  // twentieth of the time has gone: the questions before it find the early packings.
  const peelBelowMs = (budget.remainingMs() * 19) / 20;
  let peeled = false;
  while (!budget.spent()) {
    if (!peeled && budget.remainingMs() <= peelBelowMs) {
      peeled = true;
      peelLargeParts(states, options, budget);
      trajectory.note(highest(), Math.min(highest(), lowest()));
    }
    const high = highest();
    if (Math.min(high, other.arena) <= Math.max(lowest(), other.bound)) break;
    const state = states.find((s) => s.part.base + s.high === high)!;
    const base = state.part.base;
    let context = contexts.get(state);
    if (context === undefined) {
      const flat = state.instances[0].n <= RESTARTS_UP_TO ? flatUnits(state.instances[0], state.grain, state.low) : undefined;
      context = { step: Math.max(state.grain, roundUp((state.high - state.low) / 8, state.grain)), chains: chainedPart(state), asked: 0, flat, flatAt: state.low, restarts: 0 };
      contexts.set(state, context);
    }
    // A part flat at its bound may be a cut: a restart of the rebuild at the bound before
    // each question (the first search's restarts end with its question at the bound; these
    // go on, drawn from this thread's seed as its runs are, so that a plan seed of 0 does
    // not repeat the first search's draws).
    if (context.flat !== undefined && context.flatAt === state.low) {
      context.restarts++;
      const rebuilt = restartRebuild(state.instances[0], state.grain, context.flat, state.low, budget, context.restarts, seed + 7919);
      if (rebuilt.status === 'found') {
        state.high = rebuilt.arena;
        state.offsets = rebuilt.offsets;
        trajectory.note(highest(), Math.min(highest(), lowest()));
        continue;
      }
      if (budget.spent()) break;
    }
    // A step below the better of the two sides' packings, never below what either proved.
    const capacity = Math.max(state.low, other.bound - base, Math.min(state.high, other.arena - base) - context.step);
    if (capacity >= state.high) break;
    const onChains = context.chains !== undefined && context.asked % 2 === 1;
    const outcome = ask(onChains ? context.chains!.state : state, capacity, budget, seed, context.asked);
    context.asked++;
    if (outcome.status === 'found') {
      state.high = outcome.arena;
      state.offsets = onChains ? offsetsOfChained(context.chains!, outcome.offsets) : outcome.offsets;
      // Answered: aim twice as far next time (halved again as soon as that is too far).
      context.step = Math.max(state.grain, roundUp(Math.min(2 * context.step, (state.high - state.low) / 2), state.grain));
    } else if (outcome.status === 'infeasible' && !onChains) {
      state.low = Math.max(state.low, roundUp(capacity + 1, state.grain));
    } else if (!onChains || context.asked % 4 === 0) {
      context.step = Math.max(state.grain, roundUp(context.step / 2, state.grain));
    }
    trajectory.note(highest(), Math.min(highest(), lowest()));
  }
  return finishSearch(setup, assemble(problem.records.length, setup.decomposition, states), highest(), budget, trajectory);
}

interface Context {
  step: number;
  readonly chains: ChainedPart | undefined;
  asked: number;
  /** Sizes in grains where the part is flat at its bound (flatAt), for the rebuild's restarts; else undefined. */
  readonly flat: Int32Array | undefined;
  readonly flatAt: number;
  restarts: number;
}

/**
 * One question: a few runs of the seeded noisy orders (Luby lengths, both engines on small
 * parts), until one answers or the question's nodes are spent.
 */
function ask(state: PartState, capacity: number, budget: Budget, seed: number, asked: number): SearchOutcome {
  const n = state.instances[0].n;
  const large = n > SCAN_UP_TO;
  const question = budget.child(QUESTION_RUNS * runNodes(state, asked % 63));
  for (let step = 0; ; step++) {
    const run = PORTFOLIO.length + asked * QUESTION_RUNS + step;
    const outcome = portfolioRun(state, capacity, question.child(runNodes(state, step)), run, large || step % 2 === 1, seed + 7919, true);
    if (outcome.status !== 'stopped' || question.spent()) return outcome;
  }
}

/** Runs per question (their nodes: parts.ts's runNodes, Luby lengths). */
const QUESTION_RUNS = 4;
