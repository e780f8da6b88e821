import type { Problem } from '../core/problem.ts';
import type { Graph } from '../graph/ir.ts';
import type { VerifiedResult } from '../planners/plan-and-verify.ts';

/** What a backend says about where it ran: recorded with every measurement. */
export interface DeviceInfo {
  readonly backend: string;
  readonly [detail: string]: unknown;
}

/**
 * A network ready to run inside one verified plan: intermediate tensors live exactly where
 * the plan puts them (one arena for offsets, one buffer per object for shared objects).
 */
export interface PreparedNetwork {
  /** Bytes allocated for the planned intermediate tensors. */
  readonly plannedBytes: number;
  /** Runs the network once on these graph inputs; returns copies of the graph outputs. */
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
