import type { Argv } from 'yargs';
import type { CommandText } from '../command-text.ts';
import { lowerBounds } from '../../core/bounds.ts';
import { APPROACHES, type Approach } from '../../core/plans.ts';
import { naiveFootprint, type Problem } from '../../core/problem.ts';
import { loadProblem, loadSource, SOURCE_KINDS } from '../../io/source.ts';
import { InfeasibleBudgetError, overBudget, unplaced } from '../../planners/budgeted/infeasible-budget.ts';
import { budgetShare } from '../../backends/budgeted/budget-share.ts';
import { planAndVerify, type VerifiedResult } from '../../planners/plan-and-verify.ts';
import { keepingTrajectory, type TrajectoryPoint } from '../../planners/offsets/exact/trajectory.ts';
import { beyondLimit, type Planner } from '../../planners/planner.ts';
import { BUDGETED_PLANNERS, findPlanner, PLANNERS, plannersOf } from '../../planners/registry.ts';
import { plannerByName } from '../../experiments/load-planner.ts';
import { checkAlignedSizes, parseAlignment } from '../alignment-option.ts';
import { budgetedProblemOf, checkBudgetedRecordArgs, parseBudget, smallestBudgetOf } from '../budget-options.ts';
import { UsageError } from '../errors.ts';
import { isParallelSchedule, parseSchedule } from '../../graph/schedule.ts';
import { alignedTable, mib } from '../format.ts';
import { writeFileAtomic } from '../../io/atomic-write.ts';
import { placedRecordsToCsv, placedRecordsToJson } from '../../io/records-writers.ts';
import { sourceOptions, withSourceOptions, type SourceArgs } from '../source-options.ts';

interface PlanArgs extends SourceArgs {
  source: string;
  planner?: string[];
  approach?: Approach;
  align: number;
  timeLimit: number;
  seed: number;
  json: boolean;
  budget?: string;
  findMinBudget: boolean;
  to?: string;
}

export function registerPlan(cli: Argv, text: CommandText): Argv {
  return cli.command<PlanArgs>(
    text.usage,
    text.describe,
    (y) =>
      withSourceOptions(y)
        .positional('source', { type: 'string', demandOption: true, describe: SOURCE_KINDS })
        .option('planner', {
          type: 'string',
          array: true,
          describe: 'planner id, or the path of a module of your own (.ts, .js) that exports one (repeatable); default: every planner of the approach',
        })
        .option('approach', { choices: APPROACHES, describe: 'only planners of this approach' })
        .option('align', { type: 'number', default: 1, describe: 'alignment in bytes for offsets and shared-object sizes' })
        .option('time-limit', { type: 'number', default: 10, describe: 'seconds each search planner (exact, search) may run' })
        .option('seed', { type: 'number', default: 1, describe: 'seed of the search planners' })
        .option('budget', { type: 'string', describe: 'plan weights, activations and scratch in this many bytes (35MiB, 4MB, 1048576); default planners: budgeted/*' })
        .option('to', {
          type: 'string',
          describe: "write the plan (one planner) as plan.csv (MiniMalloc's format with an offset column, as its solutions) or plan.json (records with an offset each); memplan verify reads both",
        })
        .option('find-min-budget', { type: 'boolean', default: false, describe: "find the planner's smallest budget by bisection (one planner; default budgeted/flexnn)" })
        .option('json', { type: 'boolean', default: false, describe: 'print one JSON object (DESIGN.md)' }) as unknown as Argv<PlanArgs>,
    async (args) => {
      let budget = parseBudget(args.budget);
      const budgeted = budget !== undefined || args.findMinBudget;
      if (budgeted) checkBudgetedRecordArgs(args);
      const planners = await choosePlanners(args.planner, args.approach, budgeted ? (args.findMinBudget ? [findPlanner('budgeted/flexnn')] : BUDGETED_PLANNERS) : undefined);
      parseAlignment(args.align);
      if (typeof args.timeLimit !== 'number' || !(args.timeLimit >= 0)) throw new UsageError(`--time-limit must be a number of seconds >= 0, got ${args.timeLimit}.`);
      if (!Number.isSafeInteger(args.seed) || args.seed < 0) throw new UsageError(`--seed must be a whole number >= 0, got ${args.seed}.`);
      if (args.to !== undefined) {
        if (!/\.(csv|json)$/i.test(args.to)) throw new UsageError(`--to writes plan.csv (MiniMalloc's format with offsets) or plan.json; ${args.to} is neither.`);
        if (planners.length !== 1) throw new UsageError(`--to writes one plan; give one --planner, not ${planners.length} planners.`);
      }
      if (args.findMinBudget && planners.length !== 1) throw new UsageError(`--find-min-budget searches one planner's smallest budget; give one --planner, not ${planners.length}.`);
      // A budget changes the records of a network (its weights are sliced for the budget).
      const source = budgeted ? await loadSource(args.source, sourceOptions(args)) : undefined;
      const problemAt = source !== undefined ? budgetedProblemOf(source, sourceOptions(args)) : undefined;
      const smallestFor = (planner: Planner): number | undefined => smallestBudgetOf(source as NonNullable<typeof source>, sourceOptions(args), planner, args.align);
      let minBudget: number | undefined;
      if (problemAt !== undefined && args.findMinBudget) {
        minBudget = smallestFor(planners[0]);
        if (minBudget === undefined) throw new UsageError(`${args.source}: ${planners[0].id} fits no budget below 2^52 bytes.`);
        budget ??= minBudget;
      }
      const problem = problemAt !== undefined ? problemAt(budget) : await loadProblem(args.source, sourceOptions(args));
      checkAlignedSizes(problem, args.align, args.source);
      const explicit = args.planner !== undefined && args.planner.length > 0;
      const skipped: { planner: string; reason: string }[] = [];
      const runnable = planners.filter((planner) => {
        const reason = beyondLimit(planner, problem.records.length);
        if (reason === undefined) return true;
        // Asked for by name: refuse clearly rather than run out of time or memory.
        if (explicit) throw new UsageError(reason);
        skipped.push({ planner: planner.id, reason });
        process.stderr.write(`memplan: skipped ${reason}\n`);
        return false;
      });
      const bounds = lowerBounds(problem);
      // A network's budget is its whole run's: the plan gets the buffer it leaves, which its problem carries.
      // An infeasible budget is named with the smallest budget of the source (smallestFor below), not the planner's own search; a budget always has its source.
      const options = {
        alignment: args.align,
        bounds,
        timeLimitMs: args.timeLimit * 1000,
        seed: args.seed,
        ...(budget !== undefined ? { budget: problem.budget ?? budget, findSmallestBudget: false } : {}),
      };
      // Exact planners' trajectories (best arena and bound over time) for --json.
      const trajectories = new Map<string, readonly TrajectoryPoint[]>();
      const results = runnable.map((planner) => {
        // A search may take its whole time limit: say so rather than sit silent.
        if (planner.searches && !args.json && process.stderr.isTTY) process.stderr.write(`memplan: ${planner.id} searching for up to ${args.timeLimit} s...\n`);
        try {
          return planAndVerify(keepingTrajectory(planner, trajectories), problem, options);
        } catch (error) {
          if (error instanceof InfeasibleBudgetError && source !== undefined && budget !== undefined) {
            // A network's budget is its run's: the planner had the buffer it leaves. A record file's planner had the whole budget.
            const left = source.kind === 'graph' ? budgetShare(source.graph, budget) : undefined;
            throw overBudget({
              subject: `${args.source}: ${planner.id}`,
              what: `cannot fit operator ${error.step} (${unplaced(error.records)})`,
              budget,
              ...(left ? { left } : {}),
              smallest: smallestFor(planner),
              step: error.step,
              records: error.records,
            });
          }
          throw error;
        }
      });
      const report = {
        source: args.source,
        tensors: problem.records.length,
        operators: problem.operatorCount,
        naive: naiveFootprint(problem),
        lowerBounds: { offsets: bounds.offsets, sharedObjects: bounds.sharedObjects },
        ...(budget !== undefined ? { budget } : {}),
        ...(budget !== undefined && problem.budget !== undefined && problem.budget !== budget ? { buffer: problem.budget } : {}),
        ...(minBudget !== undefined ? { minBudget } : {}),
        results: results.map((r) => jsonResult(r, trajectories.get(r.planner), problem)),
        ...(skipped.length > 0 ? { skipped } : {}),
      };
      if (args.to !== undefined && results.length === 1 && results[0].valid) {
        const [only] = results;
        await writeFileAtomic(args.to, /\.csv$/i.test(args.to) ? placedRecordsToCsv(problem, only.offsets) : placedRecordsToJson(problem, only.offsets));
        if (!args.json) process.stderr.write(`memplan: wrote ${only.planner}'s plan to ${args.to}\n`);
      }
      if (args.json) {
        process.stdout.write(`${JSON.stringify(report)}\n`);
      } else {
        process.stdout.write(`${humanReport(report, results, args.align, isParallelSchedule(parseSchedule(args.schedule)) ? 'steps' : 'operators')}\n`);
      }
      const invalid = results.filter((r) => !r.valid);
      if (invalid.length > 0) {
        for (const r of invalid) process.stderr.write(`memplan: ${r.planner} produced an invalid plan: ${r.violations[0]?.message}\n`);
        process.exitCode = 1;
      }
    },
  );
}

/** The planners asked for; by default those of the approach, else `fallback` (the budgeted ones under a budget), else all. */
async function choosePlanners(ids: string[] | undefined, approach: Approach | undefined, fallback: readonly Planner[] | undefined): Promise<Planner[]> {
  if (ids === undefined || ids.length === 0) return approach ? plannersOf(approach) : [...(fallback ?? PLANNERS)];
  const chosen = await Promise.all(ids.flatMap((id) => id.split(',')).map((id) => plannerByName(id.trim())));
  const mismatch = approach && chosen.find((p) => p.approach !== approach);
  if (mismatch) throw new UsageError(`planner ${mismatch.id} is not of approach ${approach}.`);
  return chosen;
}

function jsonResult(r: VerifiedResult, trajectory: readonly TrajectoryPoint[] | undefined, problem: Problem): object {
  return {
    planner: r.planner,
    approach: r.approach,
    footprint: r.footprint,
    ratioToLowerBound: r.ratioToLowerBound,
    valid: r.valid,
    ...(r.valid ? {} : { violations: r.violations.map((v) => v.message) }),
    timeMs: Number(r.timeMs.toFixed(4)),
    ...(r.optimal !== undefined ? { optimal: r.optimal } : {}),
    ...(r.bound !== undefined ? { bound: r.bound } : {}),
    // Exact planners: best arena and proven bound over time (ms since the plan started).
    ...(trajectory !== undefined && r.optimal !== undefined ? { trajectory: trajectory.map((p) => ({ timeMs: Number(p.timeMs.toFixed(1)), footprint: p.footprint, bound: p.bound })) } : {}),
    offsets: r.offsets,
    // The offsets again with the records they place, so that no reader has to match orders.
    placements: r.offsets.map((offset, i) => ({ id: problem.records[i].id, offset })),
    ...(r.objects ? { objects: { ids: r.objects.ids, sizes: r.objects.sizes } } : {}),
    ...(r.loadSteps ? { loadSteps: r.loadSteps } : {}),
  };
}

function humanReport(
  report: { source: string; tensors: number; operators: number; naive: number; lowerBounds: { offsets: number; sharedObjects: number }; budget?: number; buffer?: number; minBudget?: number },
  results: readonly VerifiedResult[],
  align: number,
  /** What the records' time axis counts: operators, or the steps of a parallel schedule. */
  axis: 'operators' | 'steps',
): string {
  const head = [
    `source      ${report.source}`,
    `tensors     ${report.tensors} over ${report.operators} ${axis}${align > 1 ? `, alignment ${align} B` : ''}`,
    `naive       ${report.naive} B (${mib(report.naive)} MiB)`,
    `lower bound ${report.lowerBounds.offsets} B (${mib(report.lowerBounds.offsets)} MiB) offsets: max operator breadth`,
    `            ${report.lowerBounds.sharedObjects} B (${mib(report.lowerBounds.sharedObjects)} MiB) shared objects: sum of positional maxima`,
    ...(report.budget !== undefined ? [`budget      ${report.budget} B (${mib(report.budget)} MiB)${report.minBudget !== undefined ? ': the smallest that works (bisection)' : ''}`] : []),
    ...(report.buffer !== undefined ? [`buffer      ${report.buffer} B (${mib(report.buffer)} MiB): what the budget leaves the plan beside graph I/O and the runtime's reserve`] : []),
  ];
  const rows = results.map((r) => [
    r.planner,
    String(r.footprint),
    mib(r.footprint),
    `${r.ratioToLowerBound.toFixed(3)}x`,
    r.timeMs.toFixed(2),
    r.valid ? (r.optimal === true ? 'verified, proven optimal' : r.bound !== undefined ? `verified; optimum >= ${r.bound} B` : 'verified') : 'INVALID',
  ]);
  return `${head.join('\n')}\n\n${alignedTable(['planner', 'bytes', 'MiB', 'vs bound', 'ms', 'plan'], rows)}`;
}
