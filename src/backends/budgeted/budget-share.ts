import { budgetedNetwork, type BudgetedNetwork } from '../../graph/budget-records.ts';
import { elementCount, type Graph } from '../../graph/ir.ts';
import type { RecordOptions } from '../../graph/lifetimes.ts';
import { naiveFootprint } from '../../core/problem.ts';
import { fitsBudget, smallestBudget } from '../../planners/budgeted/smallest-budget.ts';
import type { Planner } from '../../planners/planner.ts';

/** A WebAssembly memory grows in pages of 64 KiB: the buffer is whole pages. */
export const PAGE_BYTES = 65536;

/** Bytes before the plan's byte 0 in the buffer's memory: the SIMD kernels' temporary area (wasm/engine.ts). */
export const KERNEL_AREA_BYTES = 64;

/**
 * What the measured process of a budgeted run takes beyond its buffer and graph I/O, above
 * its baseline (measure-job.ts takes the baseline again after the job's dry run), as
 * measured: mostly V8 optimizing the kernels' JavaScript as functions get hot during the
 * run (a compilation's working memory, 1-2 MiB, taken from a background thread's allocator
 * arena and given back after), the run's own closures and schedule, and a page or two of
 * the JavaScript heap. Over 28 runs at the study's tightest budgets (SqueezeNet 1.1 at 10
 * MiB, MobileNet v2 at 12, ResNet-152 at 35, VGG-19 at 60) and SqueezeNet 1.1 at 96x96 it
 * took 0.2 to 3.1 MiB at the peak (the most on ResNet-152 and VGG-19); the reserve is
 * that with a margin of about 1 MiB.
 */
export const PROCESS_RESERVE_BYTES = 4 * 2 ** 20;

/** How a budget for the whole run is spent: what lies outside the one buffer, and the buffer. */
export interface BudgetShare {
  /** The budget of the run (bytes): the measured process's peak over its baseline is to stay at or under it. */
  readonly budget: number;
  /** Graph I/O outside the buffer: the inputs the process is given and the arrays the outputs are handed back in (fp32). */
  readonly io: number;
  /** PROCESS_RESERVE_BYTES: the runtime's own share, measured. */
  readonly reserve: number;
  /** The WebAssembly memory that holds the buffer: what the budget leaves, in whole pages; 0 when it leaves none. */
  readonly memory: number;
  /** The plan's buffer: that memory less the kernels' 64 bytes. The records are planned in it and weights sliced to a fifth of it. */
  readonly buffer: number;
}

/** Bytes of a graph's inputs and outputs held outside the buffer, at 4 bytes per element. */
export function graphIoBytes(graph: Pick<Graph, 'inputs' | 'outputs' | 'tensors'>): number {
  let bytes = 0;
  for (const name of [...graph.inputs, ...graph.outputs]) bytes += 4 * elementCount(graph.tensors.get(name)?.shape ?? []);
  return bytes;
}

/**
 * The share of `budget` that each part of a budgeted run takes: the graph's I/O and the
 * reserve first, the rest, rounded down to whole pages, for the buffer.
 */
export function budgetShare(graph: Pick<Graph, 'inputs' | 'outputs' | 'tensors'>, budget: number): BudgetShare {
  const io = graphIoBytes(graph);
  const reserve = PROCESS_RESERVE_BYTES;
  const memory = Math.max(0, Math.floor((budget - io - reserve) / PAGE_BYTES) * PAGE_BYTES);
  return { budget, io, reserve, memory, buffer: Math.max(0, memory - KERNEL_AREA_BYTES) };
}

/**
 * A network's budgeted records for a budget of the whole run: planned in the buffer the
 * budget leaves (budgetShare), weights sliced for that buffer. The problem's budget is the buffer.
 */
export function budgetedRun(graph: Graph, budget: number, records: RecordOptions = {}): { readonly network: BudgetedNetwork; readonly share: BudgetShare } {
  const share = budgetShare(graph, budget);
  return { network: budgetedNetwork(graph, { ...records, budget: share.buffer }), share };
}

/**
 * The smallest budget of a whole run at which `planner` gives a verified plan of the
 * network (`memplan plan --find-min-budget`, and what an infeasible budget names): the
 * fewest pages of buffer that plan (bisection; the records change with the buffer, which
 * decides the weight slicing), and graph I/O and the reserve beside them, in whole steps of
 * the alignment. One alignment step below it leaves a page less.
 */
export function smallestRunBudget(planner: Planner, graph: Graph, records: RecordOptions, alignment: number): number | undefined {
  const fits = (memory: number): boolean => fitsBudget(planner, budgetedNetwork(graph, { ...records, budget: Math.max(0, memory - KERNEL_AREA_BYTES) }).problem, alignment);
  // Searched in pages, the buffer's own steps: a budget between two of them leaves the smaller.
  const memory = smallestBudget(fits, { step: PAGE_BYTES, start: naiveFootprint(budgetedNetwork(graph, records).problem) + KERNEL_AREA_BYTES });
  if (memory === undefined) return undefined;
  const step = Math.max(1, alignment);
  return Math.ceil((memory + graphIoBytes(graph) + PROCESS_RESERVE_BYTES) / step) * step;
}
