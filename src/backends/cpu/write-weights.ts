import type { PrepareRequest } from '../backend.ts';
import { BackendError } from '../backend-error.ts';
import type { ExecutionMemory } from './execution-memory.ts';

/**
 * Every node's weights into the memory, in its kernel's form, as the values come: constants
 * the graph holds values of (a file's, or shapes) first, each let go (request.release) once
 * written; then the request's stream, seeded in this process a run at a time, for those it
 * holds none of. A constant left without values is an error, not zeros.
 */
export function writeWeights(request: PrepareRequest, memory: ExecutionMemory): void {
  const targets = new Map<string, { write: (values: Float32Array, at: number, target: Float32Array) => void; target: Float32Array }[]>();
  for (const [node, form] of memory.weights) {
    const start = memory.at(`${node}@weights`);
    const target = memory.heap.subarray(start, start + form.floats);
    for (const placement of form.placements) {
      const list = targets.get(placement.constant) ?? [];
      list.push({ write: placement.write, target });
      targets.set(placement.constant, list);
    }
  }
  const written = new Set<string>();
  const sink = (name: string, values: Float32Array, at: number): void => {
    written.add(name);
    for (const { write, target } of targets.get(name) ?? []) write(values, at, target);
  };
  for (const name of targets.keys()) {
    const data = request.graph.tensors.get(name)?.data;
    if (data === undefined) continue;
    sink(name, toFloat32(data, name), 0);
    request.release?.(name);
  }
  request.weights?.(sink);
  for (const name of targets.keys()) {
    if (!written.has(name)) throw new BackendError(`constant ${name} has no values; give the graph weights (withSeededWeights) or a weight stream.`);
  }
}

function toFloat32(data: ArrayBufferView, name: string): Float32Array {
  if (data instanceof Float32Array) return data;
  if (data instanceof Float64Array || data instanceof Int32Array || data instanceof Int8Array || data instanceof Uint8Array || data instanceof Int16Array) {
    return Float32Array.from(data as ArrayLike<number>);
  }
  throw new BackendError(`constant ${name} holds ${data.constructor.name} values, which the CPU backend cannot use as float32.`);
}
