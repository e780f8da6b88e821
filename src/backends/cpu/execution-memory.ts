import { elementCount, type Graph, type Node } from '../../graph/ir.ts';
import type { Problem } from '../../core/problem.ts';
import type { VerifiedResult } from '../../planners/plan-and-verify.ts';
import { BackendError } from '../backend-error.ts';
import { tensorsOutsidePlan } from '../tensors-outside-plan.ts';
import { sharedMemory, simdEngineOn, simdOnSharedMemory, type SimdEngine } from './kernels/wasm/engine.ts';
import type { WasmMemory } from './kernels/wasm/wasm-api.ts';
import { nodeWeights, type NodeWeights } from './weight-placement.ts';

/** Each thread's temporary area of the SIMD kernels (wasm/engine.ts gemm's `tmp`), at the memory's start: a cache line apiece. */
const TEMPORARY = 64;
const PAGE = 65536;
/** Every region and every weight or I/O tensor starts on a cache line. */
const LINE = 64;

/**
 * The one memory a CPU execution runs in, sized once from the verified plan before the
 * first inference and never grown:
 *
 *   [kernels' temporaries, 64 bytes a thread][weights, node by node][the plan's arena][graph I/O the plan leaves out]
 *
 * The arena holds every record of the problem at the plan's offset (a shared-objects plan:
 * its objects laid out one after the other), scratch records included; weights are in the
 * form each node's kernel reads (weight-placement.ts); graph inputs and outputs that are not
 * records get a place of their own after the arena. It is a shared WebAssembly memory: the
 * SIMD kernels compute where the tensors lie, and the cpu-parallel workers share it (where the
 * SIMD engine is off, a plain buffer of the same layout).
 */
export interface ExecutionMemory {
  /** The memory: a shared WebAssembly memory's buffer, or a buffer of its own where the SIMD engine is off or missing. */
  readonly buffer: ArrayBufferLike;
  /** The shared WebAssembly memory, where the SIMD engine runs: what worker threads bind engines of their own to. */
  readonly wasm?: WasmMemory;
  /** Byte offsets of every record, tensor and node's weights (`at` in bytes), for threads that build their own view. */
  readonly byteAt: ReadonlyMap<string, number>;
  /** Byte offset of thread `k`'s temporary area (0: the thread that made the memory; then its workers). */
  temporary(thread: number): number;
  /** The SIMD kernels bound to the memory; undefined where WebAssembly SIMD is missing or turned off (setSimdEnabled). */
  readonly engine: SimdEngine | undefined;
  readonly heap: Float32Array;
  /** Float offset of a tensor or record, or of a node's weights (`<node>@weights`). */
  at(id: string): number;
  /** The float32 view of a tensor (or record) where it lies. */
  view(name: string): Float32Array;
  /** Each node's weights: how many floats and where each constant goes. */
  readonly weights: ReadonlyMap<string, NodeWeights>;
  /** Bytes each region holds (the gaps that align them and the page rounding are the memory's own), and the memory's. */
  readonly bytes: { readonly weights: number; readonly arena: number; readonly io: number; readonly total: number };
}

export function executionMemory(graph: Graph, order: readonly Node[], problem: Problem, plan: VerifiedResult, options: { readonly workers?: number } = {}): ExecutionMemory {
  // Without the SIMD engine every kernel runs its TypeScript loops on views, over raw weights, in a buffer of its own.
  const inPlace = simdOnSharedMemory();
  const workers = options.workers ?? 0;
  const RESERVED = TEMPORARY * (workers + 1);
  const byteAt = new Map<string, number>();
  const weights = new Map<string, NodeWeights>();
  let end = RESERVED;
  // Bytes of what the regions hold; the gaps that align them are the memory's own.
  let held = 0;
  const place = (id: string, bytes: number): void => {
    end = Math.ceil(end / LINE) * LINE;
    byteAt.set(id, end);
    end += bytes;
    held += bytes;
  };
  for (const node of order) {
    const form = nodeWeights(graph, node, inPlace);
    if (form.floats === 0) continue;
    weights.set(node.name, form);
    place(`${node.name}@weights`, form.floats * 4);
  }
  const weightBytes = held;
  held = 0;
  end = Math.ceil(end / LINE) * LINE;
  const arena = end;
  problem.records.forEach((record, i) => {
    const offset = plan.offsets[i];
    if (offset % 4 !== 0) throw new BackendError(`the plan puts ${record.id} at byte ${offset}; float32 tensors need offsets that are multiples of 4 (plan with --align 4).`);
    const tensor = graph.tensors.get(record.id);
    if (tensor !== undefined && record.size !== elementCount(tensor.shape) * 4) {
      throw new BackendError(`record ${record.id} has ${record.size} bytes but the tensor needs ${elementCount(tensor.shape) * 4} as float32: plan the graph with element size 4.`);
    }
    byteAt.set(record.id, arena + offset);
  });
  end = arena + plan.footprint;
  // Graph inputs and outputs the plan leaves out (the records' default) lie after the arena; any other tensor must have its record.
  for (const { name, bytes } of tensorsOutsidePlan(graph, (id) => byteAt.has(id))) place(name, bytes);
  const ioBytes = held;
  const pages = Math.max(Math.ceil(end / PAGE), 1);
  const memory = inPlace ? sharedMemory(pages) : undefined;
  const engine = memory === undefined ? undefined : simdEngineOn(memory);
  if (inPlace && engine === undefined) throw new BackendError('the SIMD kernels compiled but could not be bound to the execution memory.');
  // Worker threads share the memory: without the engine, a SharedArrayBuffer.
  const buffer = memory?.buffer ?? (workers > 0 ? new SharedArrayBuffer(pages * PAGE) : new ArrayBuffer(pages * PAGE));
  const heap = engine?.heap() ?? new Float32Array(buffer);
  const at = (id: string): number => {
    const bytes = byteAt.get(id);
    if (bytes === undefined) throw new BackendError(`${id} has no place in the execution's memory: the plan's records do not hold it.`);
    return bytes / 4;
  };
  return {
    buffer,
    ...(memory ? { wasm: memory } : {}),
    byteAt,
    temporary: (thread) => thread * TEMPORARY,
    engine,
    heap,
    at,
    view(name) {
      const start = at(name);
      return heap.subarray(start, start + elementCount(graph.tensors.get(name)?.shape ?? []));
    },
    weights,
    bytes: { weights: weightBytes, arena: plan.footprint, io: ioBytes, total: buffer.byteLength },
  };
}
