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
  /**
   * The kernel's constant inputs in the form it computes with (repacked weights), derived
   * once when the network was prepared; the raw inputs they replace are then empty. Absent
   * when a kernel is called on its own: it derives them from the raw inputs and caches them.
   */
  readonly prepared?: PreparedWeights;
}

/**
 * A kernel's weights in its own form: the one copy the prepared network holds. Plain data
 * (objects, arrays, numbers, typed arrays; no class instances), so that a prepared form can
 * be moved into shared memory and cross to worker threads (cpu-parallel).
 */
export interface PreparedWeights {
  /** Inputs (indices) whose raw values the kernel no longer reads. */
  readonly replaces: readonly number[];
  /** Bytes of the derived form. */
  readonly bytes: number;
}

export type Kernel = (call: KernelCall) => void;
/** Derives a kernel's weights ahead of the first inference (undefined: it reads its inputs as they are). */
export type WeightPreparer = (call: KernelCall) => PreparedWeights | undefined;
export type KernelTable = Readonly<Partial<Record<OpType, Kernel>>>;
