import { cpus, totalmem } from 'node:os';
import { executionOrder } from '../../graph/execution-order.ts';
import type { Backend, DeviceInfo, PreparedNetwork, PrepareRequest } from '../backend.ts';
import { BackendError } from '../backend-error.ts';
import type { KernelCall } from './kernel.ts';
import { KERNELS } from './kernels/index.ts';
import { bindMemory } from './memory.ts';

/**
 * The CPU backend: runs a graph op by op, single-threaded, with every intermediate tensor
 * a float32 view into the plan's memory (see memory.ts). Nothing is allocated per
 * inference: kernel calls are resolved once, in prepare.
 */
export const cpuBackend: Backend = {
  kind: 'cpu',
  title: 'CPU: TypeScript and WebAssembly SIMD kernels, one thread',

  async device(): Promise<DeviceInfo> {
    return { backend: 'cpu', cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, threads: 1, memoryBytes: totalmem(), runtime: `node ${process.version}` };
  },

  /** float32 views need 4-byte offsets. */
  async requiredAlignment(): Promise<number> {
    return 4;
  },

  async prepare(request: PrepareRequest): Promise<PreparedNetwork> {
    const { graph } = request;
    const order = executionOrder(graph);
    for (const node of order) {
      if (KERNELS[node.op] === undefined) throw new BackendError(`the CPU backend has no kernel for ${node.op} (node ${node.name}).`);
    }
    const memory = bindMemory(request);
    const view = (name: string): Float32Array => memory.views.get(name) as Float32Array;
    const shape = (name: string): readonly number[] => graph.tensors.get(name)?.shape ?? [];
    const calls: { kernel: NonNullable<(typeof KERNELS)[keyof typeof KERNELS]>; call: KernelCall }[] = order.map((node) => ({
      kernel: KERNELS[node.op]!,
      call: {
        node,
        layout: graph.layout,
        inputs: node.inputs.map((name) => (name === '' ? undefined : view(name))),
        inputShapes: node.inputs.map((name) => (name === '' ? [] : shape(name))),
        output: view(node.outputs[0]),
        outputShape: shape(node.outputs[0]),
      },
    }));
    return {
      plannedBytes: memory.plannedBytes,
      async infer(inputs) {
        for (const name of graph.inputs) {
          const given = inputs.get(name);
          const target = view(name);
          if (given === undefined || given.length !== target.length) {
            throw new BackendError(`input ${name} needs ${target.length} float32 values, got ${given?.length ?? 'none'}.`);
          }
          target.set(given);
        }
        for (const { kernel, call } of calls) kernel(call);
        return new Map(graph.outputs.map((name) => [name, view(name).slice()]));
      },
      dispose() {},
    };
  },
};
