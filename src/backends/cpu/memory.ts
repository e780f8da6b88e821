import { elementCount, type Graph } from '../../graph/ir.ts';
import type { PrepareRequest } from '../backend.ts';

/**
 * Float32 views of every tensor the executor touches. Planned tensors (the problem's
 * records) are views into the plan's memory: ONE ArrayBuffer arena at the planned offsets
 * for an offsets plan, one ArrayBuffer per object for a shared-objects plan (naive is the
 * plan whose objects are the tensors). Tensors the plan does not cover (graph inputs and
 * outputs, unless planned; constants) get buffers of their own.
 */
export interface TensorMemory {
  /** Views of every tensor; the backend drops those of constants it no longer reads. */
  readonly views: Map<string, Float32Array>;
  /** Bytes of the arena or of the object buffers, as allocated. */
  readonly intermediates: number;
  /** Bytes of the buffers of graph inputs and outputs the plan does not cover. */
  readonly io: number;
}

/**
 * `allocate` makes every buffer of the arena, the objects and the graph's inputs and
 * outputs: plain ArrayBuffers, or SharedArrayBuffers that worker threads read and write
 * (cpu-parallel).
 */
export function bindMemory(request: PrepareRequest, allocate: (bytes: number) => ArrayBufferLike = (bytes) => new ArrayBuffer(bytes)): TensorMemory {
  const { graph, problem, plan } = request;
  const views = new Map<string, Float32Array>();
  const elements = (name: string): number => elementCount(tensorOf(graph, name).shape);
  let intermediates = 0;
  let io = 0;

  if (plan.objects !== undefined) {
    const buffers = plan.objects.sizes.map((size) => allocate(size));
    for (const buffer of buffers) intermediates += buffer.byteLength;
    problem.records.forEach((record, i) => {
      views.set(record.id, new Float32Array(buffers[plan.objects!.ids[i]], 0, elements(record.id)));
    });
  } else {
    const arena = allocate(plan.footprint);
    intermediates = arena.byteLength;
    problem.records.forEach((record, i) => {
      const offset = plan.offsets[i];
      if (offset % 4 !== 0) throw new Error(`the plan puts ${record.id} at byte ${offset}; float32 tensors need offsets that are multiples of 4 (plan with --align 4).`);
      views.set(record.id, new Float32Array(arena, offset, elements(record.id)));
    });
  }
  problem.records.forEach((record) => {
    if (record.size !== elements(record.id) * 4) {
      throw new Error(`record ${record.id} has ${record.size} bytes but the tensor needs ${elements(record.id) * 4} as float32: plan the graph with element size 4.`);
    }
  });

  for (const [name, tensor] of graph.tensors) {
    if (views.has(name)) continue;
    if (tensor.constant) {
      if (tensor.data === undefined) throw new Error(`constant ${name} has no values; give the graph weights (withSeededWeights).`);
      views.set(name, toFloat32(tensor.data, name));
    } else {
      const buffer = new Float32Array(allocate(elementCount(tensor.shape) * 4));
      io += buffer.byteLength;
      views.set(name, buffer);
    }
  }
  return { views, intermediates, io };
}

function tensorOf(graph: Graph, name: string) {
  const tensor = graph.tensors.get(name);
  if (tensor === undefined) throw new Error(`the plan has a record for ${name}, which the graph does not have.`);
  return tensor;
}

function toFloat32(data: ArrayBufferView, name: string): Float32Array {
  if (data instanceof Float32Array) return data;
  if (data instanceof Float64Array || data instanceof Int32Array || data instanceof Int8Array || data instanceof Uint8Array || data instanceof Int16Array) {
    return Float32Array.from(data as ArrayLike<number>);
  }
  throw new Error(`constant ${name} holds ${data.constructor.name} values, which the CPU backend cannot use as float32.`);
}
