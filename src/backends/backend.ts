import type { Problem } from '../core/problem.ts';
import type { Graph } from '../graph/ir.ts';
import type { VerifiedResult } from '../planners/plan-and-verify.ts';

/** What a backend says about where it ran: recorded with every measurement. */
export interface DeviceInfo {
  readonly backend: string;
  readonly [detail: string]: unknown;
}

/**
 * What a prepared network holds, in bytes, counted where the backend allocates it (not
 * inferred from the plan): the figures `memplan exec` reports beside the measured peak.
 */
export interface BackendMemory {
  /** The planned intermediate tensors: the arena, or the object buffers. */
  readonly intermediates: number;
  /**
   * Graph inputs and outputs: buffers of their own where the plan does not cover them, and
   * the arrays the outputs are handed back in.
   */
  readonly io: number;
  /** Weights and other constants, one copy each: the form the kernels compute with. */
  readonly weights: number;
  /** Kernel scratch (im2col tiles, staged operands, the SIMD engine's memory): its high-water so far. */
  readonly scratch: number;
  /** Device backends: bytes of every device buffer created, by what it holds. */
  readonly device?: { readonly intermediates: number; readonly io: number; readonly weights: number; readonly other: number };
}

/**
 * A network ready to run inside one verified plan: intermediate tensors live exactly where
 * the plan puts them (one arena for offsets, one buffer per object for shared objects).
 */
export interface PreparedNetwork {
  /** What it holds now (scratch: the high-water of the inferences so far). */
  memory(): BackendMemory;
  /**
   * Runs the network once on these graph inputs; returns copies of the graph outputs, in
   * arrays the network owns and reuses: they hold this inference's values until the next
   * one (copy them to keep them longer). Nothing is allocated per inference.
   */
  infer(inputs: ReadonlyMap<string, Float32Array>): Promise<Map<string, Float32Array>>;
  /**
   * Milliseconds the device itself spent on the last inference, by its own clock (WebGPU
   * timestamp queries), without the host's uploads and readbacks; absent where the backend
   * has no such clock.
   */
  readonly lastDeviceMs?: number | undefined;
  dispose(): void;
}

export interface PrepareRequest {
  /** The graph, with every constant's values (see withSeededWeights). */
  readonly graph: Graph;
  /** The records the plan was made for (ids are tensor names). */
  readonly problem: Problem;
  /** A plan that passed the verifier. */
  readonly plan: VerifiedResult;
  /**
   * Called with a constant's name once the backend holds its values in a form of its own
   * (repacked, or on the device) and no longer reads the graph's copy: the owner of the
   * graph may then drop it, so that only one copy of the weights stays.
   */
  readonly release?: (constant: string) => void;
}

/** One interface for every backend: CPU here; WebGPU and remote devices plug in beside it. */
export interface Backend {
  readonly kind: string;
  /** One line for `memplan list backends`. */
  readonly title: string;
  device(): Promise<DeviceInfo>;
  /** Offsets must be multiples of this (e.g. WebGPU's minStorageBufferOffsetAlignment); plans are made with it. */
  requiredAlignment(): Promise<number>;
  prepare(request: PrepareRequest): Promise<PreparedNetwork>;
}
