import { makeProblem, type Problem } from '../core/problem.ts';
import type { TensorUsageRecord } from '../core/records.ts';
import { DTYPE_BYTES } from './dtype.ts';
import { executionOrder } from './execution-order.ts';
import { elementCount, type Graph } from './ir.ts';
import { spatialAxes } from './shape-inference.ts';
import { dropIdentityOps, fuseActivations } from './transforms.ts';

/**
 * How a graph becomes usage records. The paper's reproduction uses the defaults with
 * `elementSize: 4` (fp32, whatever the file's element type): graph inputs and outputs left
 * out (that gives the blog's 65 buffers for MobileNet v2 and the paper's 10.5x for
 * DeepLab v3), no channel rounding, no transforms (the reference files already have their
 * activations fused and no identity ops).
 */
export interface RecordOptions {
  /** Keep the graph's inputs and outputs as records (default false). */
  readonly includeGraphIO?: boolean;
  /** Bytes per element for every tensor; default: each tensor's own element type. */
  readonly elementSize?: number;
  /** Round the channel dimension of 4-D tensors up to a multiple of 4 (GPU PHWC4 layout). */
  readonly roundChannelsTo4?: boolean;
  /** Fuse standalone activations into their producers first (see transforms.ts). */
  readonly fuseActivations?: boolean;
  /** Drop ops that move no data first (see transforms.ts). */
  readonly dropIdentityOps?: boolean;
}

/** The record options of the paper's reproduction (see RecordOptions). */
export const PAPER_RECORD_OPTIONS: RecordOptions = { elementSize: 4 };

/**
 * Graph + execution order -> Problem: every non-constant tensor that an operator reads or
 * writes is a record, live from the first to the last operator that touches it. Records
 * come in order of first use (ties: the order the operator lists them).
 */
export function graphToProblem(input: Graph, options: RecordOptions = {}): Problem {
  let graph = input;
  if (options.fuseActivations) graph = fuseActivations(graph);
  if (options.dropIdentityOps) graph = dropIdentityOps(graph);
  const order = executionOrder(graph);
  const excluded = new Set(options.includeGraphIO ? [] : [...graph.inputs, ...graph.outputs]);
  const first = new Map<string, number>();
  const last = new Map<string, number>();
  order.forEach((node, index) => {
    for (const name of [...node.inputs, ...node.outputs]) {
      if (name === '' || excluded.has(name)) continue;
      const tensor = graph.tensors.get(name);
      if (tensor === undefined || tensor.constant) continue;
      if (!first.has(name)) first.set(name, index);
      last.set(name, index);
    }
  });
  if (options.includeGraphIO) {
    // Inputs are there before the first operator; outputs must survive to the last one.
    for (const name of graph.inputs) if (first.has(name)) first.set(name, 0);
    for (const name of graph.outputs) if (last.has(name)) last.set(name, order.length - 1);
  }
  const channels = spatialAxes(graph.layout).channels;
  const records: TensorUsageRecord[] = [...first.keys()].map((name) => {
    const tensor = graph.tensors.get(name)!;
    const shape = [...tensor.shape];
    if (options.roundChannelsTo4 && shape.length === 4) shape[channels] = Math.ceil(shape[channels] / 4) * 4;
    const size = elementCount(shape) * (options.elementSize ?? DTYPE_BYTES[tensor.dtype]);
    return { id: name, size, first: first.get(name)!, last: last.get(name)! };
  });
  return makeProblem(graph.name, records, Math.max(order.length, 1));
}
