import { lowerBounds } from '../core/bounds.ts';
import type { Approach } from '../core/plans.ts';
import type { Problem } from '../core/problem.ts';
import { mulberry32 } from '../core/synthetic.ts';
import { graphToProblem } from '../graph/lifetimes.ts';
import { loadSource } from '../io/source.ts';
import { firstUseSequence } from '../planners/first-use-order.ts';
import { planAndVerify } from '../planners/plan-and-verify.ts';
import type { Planner } from '../planners/planner.ts';
import type { Experiment } from './config.ts';
import { loadPlanner } from './load-planner.ts';
import { Progress } from './progress.ts';
import { InvalidPlanError } from '../planners/invalid-plan-error.ts';

/**
 * How much a strategy's footprint moves with the order of equal keys. Each draw shuffles
 * the records (seeded) and every strategy plans that order with the draw's `tieSeed`, so
 * wherever a strategy breaks a tie by record order (equal sizes, first uses, gaps) or by
 * operator index (equal breadths) the tie falls another way; its keys stay the same. `stable` is the table's own
 * figure (TFLite's record order). A strategy that gives one footprint in every draw is
 * found tie-order independent on that network, not assumed so.
 */
export interface TieOrderCell {
  readonly model: string;
  readonly modelLabel: string;
  readonly planner: string;
  readonly plannerTitle: string;
  /** Lower bound of the study's approach (bytes). */
  readonly lowerBound: number;
  /** The footprint in the tables (records in TFLite's order). */
  readonly stable: number;
  /** Footprint under each draw, in draw order (bytes). */
  readonly draws: readonly number[];
}

export interface TieOrderStudy {
  readonly experiment: string;
  readonly approach: Approach;
  readonly seed: number;
  readonly drawCount: number;
  readonly cells: readonly TieOrderCell[];
}

/** Random tie orders per network in `memplan reproduce` (`--tie-orders`). */
export const DEFAULT_TIE_ORDERS = 200;

export interface TieOrderOptions {
  /** Seeded random tie orders per network (the study's N). */
  readonly draws: number;
  /** Registry ids planned beside the experiment's own strategies (rule variants). */
  readonly extraPlanners?: readonly string[];
  readonly quiet?: boolean;
}

/**
 * Draw `d` of an experiment seeded `seed`: the records in a seeded shuffle and the seed of
 * the operators' tie order, the same for every planner (the claims compare strategies
 * within one draw).
 */
export function drawTieOrder(problem: Problem, seed: number, draw: number): { records: Problem; tieSeed: number } {
  const random = mulberry32(Math.imul(seed, 0x9e3779b1) ^ Math.imul(draw + 1, 0x85ebca6b));
  const records = problem.records.slice();
  for (let i = records.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [records[i], records[j]] = [records[j], records[i]];
  }
  return { records: { ...problem, records }, tieSeed: Math.floor(random() * 2 ** 32) };
}

/**
 * Runs the study over an experiment's networks and its strategies (searches left out:
 * their answers do not hinge on a tie rule). Every plan goes through the verifier.
 */
export async function runTieOrderStudy(experiment: Experiment, options: TieOrderOptions): Promise<TieOrderStudy> {
  if (!Number.isSafeInteger(options.draws) || options.draws < 1) throw new RangeError(`the number of tie orders must be a whole number >= 1, got ${options.draws}.`);
  const planners: Planner[] = [];
  for (const entry of [...experiment.planners, ...(options.extraPlanners ?? []).map((ref) => ({ ref, module: false }))]) {
    const planner = await loadPlanner(entry);
    if (!planner.searches && !planners.some((p) => p.id === planner.id)) planners.push(planner);
  }
  const progress = new Progress(experiment.models.length, `${experiment.name} tie orders`, process.stderr, options.quiet);
  const cells: TieOrderCell[] = [];
  for (const model of experiment.models) {
    const loaded = await loadSource(model.source);
    const problem = loaded.kind === 'records' ? loaded.problem : graphToProblem(loaded.graph, experiment.records);
    const bounds = lowerBounds(problem);
    const lowerBound = experiment.approach === 'offsets' ? bounds.offsets : bounds.sharedObjects;
    const plan = (planner: Planner, records: Problem, tieSeed?: number): number => {
      const verified = planAndVerify(planner, records, { alignment: experiment.alignment, bounds, tieSeed });
      if (!verified.valid) throw new InvalidPlanError(`${planner.id} produced an invalid plan for ${model.label} under a shuffled tie order: ${verified.violations[0]?.message}`);
      return verified.footprint;
    };
    const byPlanner = planners.map(() => [] as number[]);
    // A planner that plans the records sorted by first use gets one footprint per sorted
    // sequence: planned once each (on the paper's networks, one sequence in all 200 draws:
    // Min-cost Flow took 15 of the 27 s of `memplan reproduce` planning it 200 times).
    const planned = planners.map(() => new Map<string, number>());
    for (let d = 0; d < options.draws; d++) {
      const { records, tieSeed } = drawTieOrder(problem, experiment.seed, d);
      let sequence: string | undefined;
      planners.forEach((planner, k) => {
        if (!planner.ordersByFirstUse) return byPlanner[k].push(plan(planner, records, tieSeed));
        sequence ??= firstUseSequence(records);
        const footprint = planned[k].get(sequence) ?? plan(planner, records, tieSeed);
        planned[k].set(sequence, footprint);
        byPlanner[k].push(footprint);
      });
    }
    planners.forEach((planner, k) => {
      cells.push({
        model: model.source,
        modelLabel: model.label,
        planner: planner.id,
        plannerTitle: planner.title,
        lowerBound,
        stable: plan(planner, problem),
        draws: byPlanner[k],
      });
    });
    progress.step(model.label);
  }
  return { experiment: experiment.name, approach: experiment.approach, seed: experiment.seed, drawCount: options.draws, cells };
}
