import { cpus, totalmem } from 'node:os';
import { executionOrder } from '../../graph/execution-order.ts';
import type { Backend, DeviceInfo, PreparedNetwork, PrepareRequest } from '../backend.ts';
import { BackendError } from '../backend-error.ts';
import { resolveKernelCalls } from './kernel-calls.ts';
import { kernelScratchBytes } from './kernels/index.ts';
import { bindMemory } from './memory.ts';

/**
 * The CPU backend: runs a graph op by op, single-threaded, with every intermediate tensor
 * a float32 view into the plan's memory (see memory.ts). Nothing is allocated per
 * inference: kernel calls are resolved once, in prepare, and weights that a kernel repacks
 * are repacked then, the raw copy let go (one copy of the weights is held).
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
    const memory = bindMemory(request);
    const { views } = memory;
    const view = (name: string): Float32Array => views.get(name) as Float32Array;
    const { calls, weights } = resolveKernelCalls(request, executionOrder(graph), views);
    const { inputs: inputNames, outputs: outputNames } = graph;
    const handed = new Map(outputNames.map((name) => [name, new Float32Array(view(name).length)]));
    let handedBytes = 0;
    for (const values of handed.values()) handedBytes += values.byteLength;
    return {
      memory: () => ({ intermediates: memory.intermediates, io: memory.io + handedBytes, weights, scratch: kernelScratchBytes() }),
      async infer(inputs) {
        for (const name of inputNames) {
          const given = inputs.get(name);
          const target = view(name);
          if (given === undefined || given.length !== target.length) {
            throw new BackendError(`input ${name} needs ${target.length} float32 values, got ${given?.length ?? 'none'}.`);
          }
          target.set(given);
        }
        for (const { kernel, call } of calls) kernel(call);
        for (const [name, values] of handed) values.set(view(name));
        return handed;
      },
      dispose() {},
    };
  },
};
