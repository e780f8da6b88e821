import type { Problem } from '../../core/problem.ts';
import type { Graph, Node } from '../../graph/ir.ts';
import { inPlaceLayer, scratchId } from '../../graph/layer-memory.ts';
import { BackendError } from '../backend-error.ts';
import { layerKernel, viewKernel } from './arena-kernels.ts';
import { arenaOpKernel } from './arena-op-kernels.ts';
import { IDLE } from './parts.ts';
import type { SimdEngine } from './kernels/wasm/engine.ts';

/** What a thread sees of the execution memory: the floats, where each record lies, and its own SIMD engine (if any). */
export interface MemoryView {
  readonly graph: Graph;
  readonly heap: Float32Array;
  at(id: string): number;
  /** Undefined where WebAssembly SIMD is missing or turned off: every node then runs its TypeScript loops on views. */
  readonly engine?: SimdEngine;
}

/**
 * Each node's kernel as a closure over the memory, in `order`: where there is an engine, in
 * place (arena-kernels.ts `layerKernel`) where the executor runs the node so (inPlaceLayer),
 * or the engine's op kernel where it has one (arena-op-kernels.ts); else its kernel on views.
 * Activations the graph has fused into their producers run there (the CPU backends' records
 * fuse standalone ones before planning: execution-records.ts). Split (parts.ts): `parts`
 * closures per node, node k's part p at k * parts + p (a kernel on views runs whole in part
 * 0), working in band `slot` of each node's scratch (the band of the thread that runs them).
 * `derived`: bytes of weights a view kernel derived in a form of its own (outside the
 * memory). The main thread and every worker thread build their own.
 */
export function nodeKernels(view: MemoryView, order: readonly Node[], parts = 1, slot = 0): { kernels: (() => void)[]; derived: number } {
  let derived = 0;
  const { engine } = view;
  const viewed = (node: Node): (() => void) => {
    const kernel = viewKernel(node, view);
    derived += kernel.derived;
    return kernel.run;
  };
  const partsOf = (node: Node): (() => void)[] => {
    const layer = engine === undefined ? undefined : inPlaceLayer(view.graph, node);
    return Array.from({ length: parts }, (_, part) => {
      if (engine === undefined) return part === 0 ? viewed(node) : IDLE;
      const share = { part, parts, slot };
      if (layer !== undefined) return layerKernel(node, layer, { ...view, engine }, share);
      return arenaOpKernel(node, { ...view, engine }, share) ?? (part === 0 ? viewed(node) : IDLE);
    });
  };
  const kernels = order.flatMap(partsOf);
  return { kernels, derived };
}

/**
 * Refuses a plan whose records lack the scratch a node run in place needs (a band for each
 * of `parts` threads), or hold it at another size: the records were sized by the same
 * function, so what a kernel uses is what was planned.
 */
export function checkScratch(graph: Graph, order: readonly Node[], problem: Problem, parts = 1): void {
  const sizes = new Map(problem.records.map((r) => [r.id, r.size]));
  for (const node of order) {
    const bytes = (inPlaceLayer(graph, node)?.scratchBytes ?? 0) * parts;
    if (bytes > 0 && sizes.get(scratchId(node)) !== bytes) {
      const threads = parts === 1 ? '' : ` (a band for each of ${parts} threads)`;
      throw new BackendError(
        `node ${node.name} needs ${bytes} bytes of scratch${threads}, which the plan's records do not hold (plan it with the record option scratch${parts === 1 ? '' : ` and threads ${parts}`}).`,
      );
    }
  }
}
