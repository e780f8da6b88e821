import { DTYPE_BYTES } from './dtype.ts';
import { elementCount, type Graph } from './ir.ts';
import { spatialAxes } from './shape-inference.ts';

/**
 * The record options that decide which tensors are records and how large they are (see
 * RecordOptions in lifetimes.ts, which extends this). Kept apart so that the scheduler
 * (memory-aware-order.ts) sizes tensors exactly as graphToProblem does without importing it.
 */
export interface RecordSelection {
  /** Keep the graph's inputs and outputs as records (default false). */
  readonly includeGraphIO?: boolean;
  /** Bytes per element for every tensor; default: each tensor's own element type. */
  readonly elementSize?: number;
  /** Round the channel dimension of 4-D tensors up to a multiple of 4 (GPU PHWC4 layout). */
  readonly roundChannelsTo4?: boolean;
}

/**
 * The size in bytes of the record a tensor name gives, or undefined when the name is no
 * record: absent (''), unknown, constant, or a graph input or output left out.
 */
export function recordSizer(graph: Graph, options: RecordSelection): (name: string) => number | undefined {
  const excluded = new Set(options.includeGraphIO ? [] : [...graph.inputs, ...graph.outputs]);
  const channels = spatialAxes(graph.layout).channels;
  return (name) => {
    if (name === '' || excluded.has(name)) return undefined;
    const tensor = graph.tensors.get(name);
    if (tensor === undefined || tensor.constant) return undefined;
    const shape = [...tensor.shape];
    if (options.roundChannelsTo4 && shape.length === 4) shape[channels] = Math.ceil(shape[channels] / 4) * 4;
    return elementCount(shape) * (options.elementSize ?? DTYPE_BYTES[tensor.dtype]);
  };
}
