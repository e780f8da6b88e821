import { makeProblem, type Problem } from '../core/problem.ts';
import type { TensorUsageRecord } from '../core/records.ts';
import { executionOrder } from './execution-order.ts';
import type { Graph } from './ir.ts';
import { memoryAwareOrder } from './memory-aware-order.ts';
import { recordSizer, type RecordSelection } from './record-tensors.ts';
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
  /** Fuse standalone activations into their producers first (see transforms.ts). */
  readonly fuseActivations?: boolean;
  /** Drop ops that move no data first (see transforms.ts). */
  readonly dropIdentityOps?: boolean;
  /**
   * The operator order: 'given' (default) keeps the graph's stored order; 'memory-aware'
   * reorders the operators to lower the peak of live bytes (memory-aware-order.ts).
   */
  readonly order?: OperatorOrder;
}

/** The record options of the paper's reproduction (see RecordOptions). */
export const PAPER_RECORD_OPTIONS: RecordOptions = { elementSize: 4 };

/**
 * The graph that is planned and run: the record options' transforms applied (activations
 * fused, identity ops dropped, then the operators reordered), its `nodes` in the order the
 * operators run. A backend must run this graph, not the source graph, for a plan of
 * `graphToProblem(source, options)` to hold: the records' lifetimes are this order's.
 * Never apply it twice: a memory-aware order of a memory-aware order may differ again.
 */
export function plannedGraph(input: Graph, options: RecordOptions = {}): Graph {
  let graph = input;
  if (options.fuseActivations) graph = fuseActivations(graph);
  if (options.dropIdentityOps) graph = dropIdentityOps(graph);
  // The scheduler sizes records as recordsInOrder does; a topological `nodes` array is
  // what executionOrder keeps, so every later reader of the graph runs this order.
  if (options.order === 'memory-aware') graph = { ...graph, nodes: memoryAwareOrder(graph, options) };
  return graph;
}

/** The planned graph (see plannedGraph) and the records of its order: what a backend is handed together. */
export function plannedProblem(input: Graph, options: RecordOptions = {}): { readonly graph: Graph; readonly problem: Problem } {
  const graph = plannedGraph(input, options);
  return { graph, problem: recordsInOrder(graph, options) };
}

/**
 * The record options for a graph that plannedGraph already gave: sizes and graph I/O as
 * before, no transform and no reordering again (a planned graph sent to a remote agent).
 */
export function plannedGraphOptions(options: RecordOptions): RecordOptions {
  const { fuseActivations: _fused, dropIdentityOps: _dropped, order: _ordered, ...selection } = options;
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

/** The records of a graph already transformed and ordered: its own execution order, no transforms. */
function recordsInOrder(graph: Graph, options: RecordSelection): Problem {
  const order = executionOrder(graph);
  const sizeOf = recordSizer(graph, options);
  const first = new Map<string, number>();
  const last = new Map<string, number>();
  const size = new Map<string, number>();
  order.forEach((node, index) => {
    for (const name of [...node.inputs, ...node.outputs]) {
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
    for (const name of graph.outputs) if (last.has(name)) last.set(name, order.length - 1);
  }
  const records: TensorUsageRecord[] = [...first.keys()].map((name) => ({ id: name, size: size.get(name)!, first: first.get(name)!, last: last.get(name)! }));
  return makeProblem(graph.name, records, Math.max(order.length, 1));
}
