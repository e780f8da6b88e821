import { elementCount, type Graph } from '../../graph/ir.ts';
import type { PrepareRequest } from '../backend.ts';
import { BackendError } from '../backend-error.ts';
import { tensorsOutsidePlan } from '../tensors-outside-plan.ts';
import type { GpuContext } from './gpu-context.ts';

/** Where a tensor lives on the device: a range of one buffer (a storage binding's offset and size). */
export interface GpuTensor {
  readonly buffer: GPUBuffer;
  readonly offset: number;
  readonly size: number;
}

/**
 * Device memory bound to a verified plan (the CPU executor lays the same plans out in one memory, cpu/execution-memory.ts):
 *
 * - offsets plan: ONE storage buffer (the arena) of the plan's footprint; every planned
 *   tensor is the binding [offset, offset + size) at its planned offset;
 * - shared-objects plan: one buffer per object, each tensor bound at the start of its
 *   object (naive is the plan whose objects are the tensors).
 *
 * Tensors the plan does not cover get buffers of their own: graph inputs and outputs
 * (unless planned) and constants, which are uploaded on first use (kernels that repack a
 * constant upload their own copy instead). Every buffer's bytes are counted when it is
 * created, by what it holds (`bytes`).
 */
export class GpuMemory {
  /** Bytes of the device buffers created, by what they hold. */
  readonly bytes = { intermediates: 0, io: 0, weights: 0, other: 0 };
  private readonly tensors = new Map<string, GpuTensor>();
  private readonly owned: GPUBuffer[] = [];
  private readonly graph: Graph;
  private readonly context: GpuContext;

  constructor(context: GpuContext, request: PrepareRequest) {
    const { graph, problem, plan } = request;
    this.graph = graph;
    this.context = context;
    const { limits } = context;
    const bytesOf = (name: string): number => {
      const tensor = graph.tensors.get(name);
      if (tensor === undefined) throw new BackendError(`the plan has a record for ${name}, which the graph does not have.`);
      return elementCount(tensor.shape) * 4;
    };
    problem.records.forEach((record) => {
      const bytes = bytesOf(record.id);
      if (record.size !== bytes) throw new BackendError(`record ${record.id} has ${record.size} bytes but the tensor needs ${bytes} as float32: plan the graph with element size 4.`);
      this.checkBinding(record.id, bytes);
    });

    if (plan.objects !== undefined) {
      const objects = plan.objects;
      const buffers = objects.sizes.map((size, k) => this.createBuffer(`object ${k}`, size, 'intermediates'));
      problem.records.forEach((record, i) => this.tensors.set(record.id, { buffer: buffers[objects.ids[i]], offset: 0, size: bytesOf(record.id) }));
    } else {
      const arena = problem.records.length > 0 ? this.createBuffer('arena', plan.footprint, 'intermediates') : undefined;
      problem.records.forEach((record, i) => {
        const offset = plan.offsets[i];
        if (offset % limits.storageOffsetAlignment !== 0) {
          throw new BackendError(
            `the plan puts ${record.id} at byte ${offset}; this WebGPU device binds storage buffers at multiples of ${limits.storageOffsetAlignment} bytes (plan with --align ${limits.storageOffsetAlignment}).`,
          );
        }
        const size = bytesOf(record.id);
        if (offset + size > plan.footprint) throw new BackendError(`the plan puts ${record.id} at bytes [${offset}, ${offset + size}), past the end of its ${plan.footprint}-byte arena.`);
        this.tensors.set(record.id, { buffer: arena!, offset, size });
      });
    }

    for (const { name, bytes } of tensorsOutsidePlan(graph, (id) => this.tensors.has(id))) {
      this.checkBinding(name, bytes);
      this.tensors.set(name, { buffer: this.createBuffer(name, bytes, 'io'), offset: 0, size: bytes });
    }
  }

  /** The device range of a tensor; a constant is uploaded as float32 the first time it is asked for. */
  tensor(name: string): GpuTensor {
    const found = this.tensors.get(name);
    if (found !== undefined) return found;
    const tensor = this.graph.tensors.get(name);
    if (tensor === undefined) throw new BackendError(`the graph has no tensor ${name}.`);
    if (!tensor.constant) throw new BackendError(`tensor ${name} has no device memory.`);
    const data = constantValues(this.graph, name);
    const gpu = this.upload(name, data);
    this.tensors.set(name, gpu);
    return gpu;
  }

  /** A read-only buffer of its own holding these values: weights (repacked ones, index tables) or a dispatch's parameters. */
  upload(label: string, data: Float32Array | Uint32Array, holds: 'weights' | 'other' = 'weights'): GpuTensor {
    const size = Math.max(4, data.byteLength);
    this.checkBinding(label, size);
    const buffer = this.createBuffer(label, size, holds);
    this.context.device.queue.writeBuffer(buffer, 0, data.buffer, data.byteOffset, data.byteLength);
    return { buffer, offset: 0, size };
  }

  destroy(): void {
    for (const buffer of this.owned) buffer.destroy();
    this.owned.length = 0;
  }

  /** A buffer made outside this class (readback, timestamps), counted as `other`. */
  account(bytes: number): void {
    this.bytes.other += bytes;
  }

  private createBuffer(label: string, bytes: number, holds: keyof GpuMemory['bytes']): GPUBuffer {
    const { flags, limits, device } = this.context;
    const size = Math.max(4, Math.ceil(bytes / 4) * 4);
    if (size > limits.maxBufferSize) throw new BackendError(`${label} needs a ${size}-byte buffer; this WebGPU device allows at most ${limits.maxBufferSize} bytes per buffer.`);
    const buffer = device.createBuffer({ label, size, usage: flags.STORAGE | flags.COPY_SRC | flags.COPY_DST });
    this.owned.push(buffer);
    this.bytes[holds] += size;
    return buffer;
  }

  private checkBinding(name: string, bytes: number): void {
    const max = this.context.limits.maxStorageBufferBindingSize;
    if (bytes > max) throw new BackendError(`tensor ${name} takes ${bytes} bytes, more than this WebGPU device binds at once (maxStorageBufferBindingSize ${max}).`);
    if (bytes === 0) throw new BackendError(`tensor ${name} has no elements; the WebGPU backend cannot bind an empty tensor.`);
  }
}

/** A constant's values as float32 (the executor's element type). */
export function constantValues(graph: Graph, name: string): Float32Array {
  const tensor = graph.tensors.get(name);
  const data = tensor?.data;
  if (tensor === undefined || !tensor.constant) throw new BackendError(`${name} is not a constant of the graph.`);
  if (data === undefined) throw new BackendError(`constant ${name} has no values; give the graph weights (withSeededWeights).`);
  let values: Float32Array;
  if (data instanceof Float32Array) values = data;
  else if (data instanceof Float64Array || data instanceof Int32Array || data instanceof Int8Array || data instanceof Uint8Array || data instanceof Int16Array)
    values = Float32Array.from(data as ArrayLike<number>);
  else throw new BackendError(`constant ${name} holds ${data.constructor.name} values, which the WebGPU backend cannot use as float32.`);
  if (values.length !== elementCount(tensor.shape)) throw new BackendError(`constant ${name} has ${values.length} values for shape [${tensor.shape.join(', ')}].`);
  return values;
}
