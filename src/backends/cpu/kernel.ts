import type { Layout, Node, OpType } from '../../graph/ir.ts';

/**
 * What a CPU kernel sees: its node, views of its inputs (activations inside the planned
 * memory, or weights) and of its output, all float32, with their shapes. A kernel writes
 * only its output view and allocates nothing per element.
 */
export interface KernelCall {
  readonly node: Node;
  readonly layout: Layout;
  /** One per node input; undefined for an absent optional input (''). */
  readonly inputs: readonly (Float32Array | undefined)[];
  readonly inputShapes: readonly (readonly number[])[];
  readonly output: Float32Array;
  readonly outputShape: readonly number[];
}

export type Kernel = (call: KernelCall) => void;
export type KernelTable = Readonly<Partial<Record<OpType, Kernel>>>;
