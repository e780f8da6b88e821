import type { Problem } from '../core/problem.ts';
import { budgetedRun, smallestRunBudget } from '../backends/budgeted/budget-share.ts';
import { budgetedNetwork } from '../graph/budget-records.ts';
import type { RecordOptions } from '../graph/lifetimes.ts';
import { parseByteSize } from '../io/byte-size.ts';
import { parseStorageBandwidth, type StorageBandwidth } from '../io/storage-bandwidth.ts';
import type { Source } from '../io/source.ts';
import { smallestBudgetFor } from '../planners/budgeted/smallest-budget.ts';
import type { Planner } from '../planners/planner.ts';
import { UsageError } from './errors.ts';
import type { SourceArgs } from './source-options.ts';

/** `--budget 35MiB` (or 4MB, 1048576) in bytes; undefined when not given. */
export function parseBudget(value: string | undefined, flag = '--budget'): number | undefined {
  if (value === undefined) return undefined;
  let bytes: number;
  try {
    bytes = parseByteSize(String(value));
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(`${flag}: ${error.message}`);
    throw error;
  }
  if (bytes <= 0) throw new UsageError(`${flag} must be more than 0 bytes, got "${value}".`);
  return bytes;
}

/** `--adapt 300MiB,200MiB` as budgets in bytes (each a budget as --budget reads it); undefined when not given. */
export function parseAdaptBudgets(value: string | undefined, first: number | undefined): number[] | undefined {
  if (value === undefined) return undefined;
  if (first === undefined) throw new UsageError('--adapt changes the budget of a budgeted run; give the first with --budget.');
  const budgets = String(value)
    .split(',')
    .map((part) => part.trim());
  if (budgets.some((part) => part === '')) throw new UsageError(`--adapt takes budgets separated by commas (300MiB,200MiB), got "${value}".`);
  return budgets.map((part) => parseBudget(part, '--adapt') as number);
}

/** `--storage-bandwidth 150MB` (per second) as a speed; undefined when not given. */
export function parseStorageBandwidthOption(value: string | undefined, flag = '--storage-bandwidth'): StorageBandwidth | undefined {
  if (value === undefined) return undefined;
  try {
    return parseStorageBandwidth(value);
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(`${flag}: ${error.message}`);
    throw error;
  }
}

/**
 * A budgeted run holds every tensor in one fp32 buffer, graph inputs and outputs included
 * (graph/budget-records.ts): the record options that say otherwise do not apply.
 */
export function checkBudgetedRecordArgs(args: SourceArgs): void {
  if (args.elementSize !== undefined && args.elementSize !== 4) throw new UsageError(`a budget plans fp32 execution (4 bytes per element); --element-size ${args.elementSize} does not apply.`);
  if (args.roundChannels) throw new UsageError('a budget plans the CPU layout; --round-channels does not apply.');
  if (args.schedule !== undefined && args.schedule !== 'sequential') throw new UsageError(`a budget runs one operator at a time; --schedule ${args.schedule} does not apply.`);
}

/**
 * The records a budget makes of a source: a graph's budgeted records, planned in the buffer
 * that budget leaves its run (budget-share.ts: graph I/O and the runtime's reserve lie
 * outside it; weights sliced for the buffer), the buffer attached as the problem's budget;
 * a record file's own records with the budget attached.
 */
export function budgetedProblemOf(source: Source, records: RecordOptions): (budget: number | undefined) => Problem {
  if (source.kind === 'records') return (budget) => (budget === undefined ? source.problem : { ...source.problem, budget });
  return (budget) => (budget === undefined ? budgetedNetwork(source.graph, records).problem : budgetedRun(source.graph, budget, records).network.problem);
}

/**
 * The smallest budget at which `planner` plans the source (`--find-min-budget`, and what an
 * infeasible budget names): a network's whole run (budget-share.ts, the same search as
 * `memplan exec --budget` names), a record file's records.
 */
export function smallestBudgetOf(source: Source, records: RecordOptions, planner: Planner, alignment: number): number | undefined {
  if (source.kind === 'graph') return smallestRunBudget(planner, source.graph, records, alignment);
  return smallestBudgetFor(planner, budgetedProblemOf(source, records) as (budget: number) => Problem, alignment);
}
