import type { Graph } from '../../graph/ir.ts';
import type { SimdEngine } from './kernels/wasm/engine.ts';

/**
 * What a layer's kernel sees of the one buffer: the SIMD engine bound to it, the buffer as
 * floats, and where each of the layer's records lies (float offsets into `heap`).
 */
export interface ArenaContext {
  readonly graph: Graph;
  readonly engine: SimdEngine;
  readonly heap: Float32Array;
  /** Float offset of a record (a tensor name, or `<node>@weights` / `<node>@scratch`). */
  at(id: string): number;
}
