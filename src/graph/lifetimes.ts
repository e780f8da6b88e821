import { makeProblem, type Problem } from '../core/problem.ts';
import type { TensorUsageRecord } from '../core/records.ts';
import { GraphError, type Graph } from './ir.ts';
import { inPlaceLayer, scratchId } from './layer-memory.ts';
import { memoryAwareOrder } from './memory-aware-order.ts';
import { recordSizer, type RecordSelection } from './record-tensors.ts';
import { isParallelSchedule, scheduleSteps, type Schedule, type Steps } from './schedule.ts';
import { nhwcWherePossible } from './to-nhwc.ts';
import { dropIdentityOps, fuseActivations } from './transforms.ts';

/** The operator orders a graph can be planned and run in (see memory-aware-order.ts). */
export const OPERATOR_ORDERS = ['given', 'memory-aware'] as const;
export type OperatorOrder = (typeof OPERATOR_ORDERS)[number];

/**
 * How a graph becomes usage records. The paper's reproduction uses the defaults with
 * `elementSize: 4` (fp32, whatever the file's element type): graph inputs and outputs left
 * out (that gives the blog's 65 buffers for MobileNet v2 and the paper's 10.5x for
 * DeepLab v3), no channel rounding, no transforms (the reference files already have their
 * activations fused and no identity ops), the file's own operator order.
 */
export interface RecordOptions extends RecordSelection {
  /**
   * Lay an NCHW graph (an ONNX file) out as NHWC first, where every node converts (see
   * to-nhwc.ts; otherwise it stays NCHW): the layout the CPU executors run in place.
   */
  readonly nhwc?: boolean;
  /** Fuse standalone activations into their producers first (see transforms.ts). */
  readonly fuseActivations?: boolean;
  /** Drop ops that move no data first (see transforms.ts). */
  readonly dropIdentityOps?: boolean;
  /**
   * The operator order: 'given' (default) keeps the graph's stored order; 'memory-aware'
   * reorders the operators to lower the peak of live bytes (memory-aware-order.ts).
   */
  readonly order?: OperatorOrder;
  /**
   * The steps operators run in (schedule.ts): 'sequential' (default) one operator per step;
   * 'levels' and 'groups:K' several at once. Records then live over steps, so tensors used
   * by one step never share memory.
   */
  readonly schedule?: Schedule;
  /**
   * Also plan the CPU executor's scratch: one record of kind `scratch` per node it runs in
   * place that needs one (layer-memory.ts `inPlaceLayer`: im2col bands, the zero-framed edges of depthwise
   * bands), live at that node's step. Executed plans have them; the paper's tables do not.
   */
  readonly scratch?: boolean;
  /**
   * Threads each operator's kernel is split over (exec --threads; default 1): with `scratch`,
   * a node's scratch record holds one band per thread, each thread's part of the node
   * working in a band of its own.
   */
  readonly threads?: number;
}

/** The record options of the paper's reproduction (see RecordOptions). */
export const PAPER_RECORD_OPTIONS: RecordOptions = { elementSize: 4 };

/**
 * The graph that is planned and run: the record options' transforms applied (an NCHW graph
 * laid out NHWC, activations fused, identity ops dropped, then the operators reordered,
 * then laid out step by step under a parallel schedule), its `nodes` in the order the
 * operators run. A backend must run this graph, not the source graph, for a plan of
 * `graphToProblem(source, options)` to hold: the records' lifetimes are this order's.
 * Never apply it twice: a memory-aware order of a memory-aware order may differ again.
 */
export function plannedGraph(input: Graph, options: RecordOptions = {}): Graph {
  return planned(input, options).graph;
}

/** The planned graph and its steps under the options' schedule. */
function planned(input: Graph, options: RecordOptions): { readonly graph: Graph; readonly steps: Steps } {
  let graph = input;
  if (options.nhwc) graph = nhwcWherePossible(graph);
  if (options.fuseActivations) graph = fuseActivations(graph);
  if (options.dropIdentityOps) graph = dropIdentityOps(graph);
  // The scheduler sizes records as recordsOfSteps does; a topological `nodes` array is
  // what executionOrder keeps, so every later reader of the graph runs this order.
  if (options.order === 'memory-aware') graph = { ...graph, nodes: memoryAwareOrder(graph, options) };
  const steps = scheduleSteps(graph, options.schedule);
  // Steps of several operators run step after step: the nodes laid out in step order, so
  // that a backend that runs one operator at a time runs an order the step plan holds for
  // (tensors that conflict in that order conflict over steps too).
  if (isParallelSchedule(options.schedule)) graph = { ...graph, nodes: steps.flat() };
  return { graph, steps };
}

/**
 * The planned graph (see plannedGraph), the records of its steps, and the steps (each
 * step's nodes, of the planned graph): what a backend is handed together.
 */
export function plannedProblem(input: Graph, options: RecordOptions = {}): { readonly graph: Graph; readonly problem: Problem; readonly steps: Steps } {
  const { graph, steps } = planned(input, options);
  return { graph, problem: recordsOfSteps(graph, steps, options), steps };
}

/**
 * The record options for a graph that plannedGraph already gave: sizes and graph I/O as
 * before, no transform and no reordering again (a planned graph sent to a remote agent).
 * The schedule stays: its records are over steps, and a planned graph's steps under the
 * same schedule are the steps it was laid out from (see scheduleSteps).
 */
export function plannedGraphOptions(options: RecordOptions): RecordOptions {
  const { nhwc: _laidOut, fuseActivations: _fused, dropIdentityOps: _dropped, order: _ordered, ...selection } = options;
  return selection;
}

/**
 * Graph + execution order -> Problem: every non-constant tensor that an operator reads or
 * writes is a record, live from the first to the last operator that touches it. Records
 * come in order of first use (ties: the order the operator lists them). The graph is
 * the planned graph of the options (see plannedGraph).
 */
export function graphToProblem(input: Graph, options: RecordOptions = {}): Problem {
  return plannedProblem(input, options).problem;
}

/**
 * The records of a graph already transformed and ordered, over its steps: a tensor lives
 * from the first to the last step that touches it (for sequential steps, operators in the
 * graph's own execution order). Records come in order of first use (ties: step order, then
 * the order the operator lists them).
 */
function recordsOfSteps(graph: Graph, steps: Steps, options: RecordOptions): Problem {
  const sizeOf = recordSizer(graph, options);
  const first = new Map<string, number>();
  const last = new Map<string, number>();
  const size = new Map<string, number>();
  steps.forEach((step, index) => {
    for (const name of step.flatMap((node) => [...node.inputs, ...node.outputs])) {
      if (!size.has(name)) {
        const bytes = sizeOf(name);
        if (bytes === undefined) continue;
        size.set(name, bytes);
      }
      if (!first.has(name)) first.set(name, index);
      last.set(name, index);
    }
  });
  if (options.includeGraphIO) {
    // Inputs are there before the first operator; outputs must survive to the last one.
    for (const name of graph.inputs) if (first.has(name)) first.set(name, 0);
    for (const name of graph.outputs) if (last.has(name)) last.set(name, steps.length - 1);
  }
  const records: TensorUsageRecord[] = [...first.keys()].map((name) => ({ id: name, size: size.get(name)!, first: first.get(name)!, last: last.get(name)! }));
  return makeProblem(graph.name, options.scratch ? withScratch(graph, steps, records, options.threads ?? 1) : records, Math.max(steps.length, 1));
}

/**
 * The tensor records and a scratch record per node that needs one (a band for each of
 * `threads` threads), stably by first use: a node's scratch after the tensors its step
 * starts (TFLite's record order is by first use). Scratch is fp32, as the executor that uses it.
 */
function withScratch(graph: Graph, steps: Steps, tensors: readonly TensorUsageRecord[], threads: number): TensorUsageRecord[] {
  if (!Number.isSafeInteger(threads) || threads < 1) throw new GraphError(`threads must be a whole number of at least 1, got ${threads}.`);
  const scratch: TensorUsageRecord[] = [];
  steps.forEach((step, index) => {
    for (const node of step) {
      const bytes = inPlaceLayer(graph, node)?.scratchBytes ?? 0;
      if (bytes === 0) continue;
      const id = scratchId(node);
      if (graph.tensors.has(id)) throw new GraphError(`the scratch record of node ${node.name} needs the id ${id}, which a tensor of the graph already has.`);
      scratch.push({ id, size: bytes * threads, first: index, last: index, kind: 'scratch' });
    }
  });
  return [...tensors, ...scratch].sort((a, b) => a.first - b.first);
}
