import { cpus, totalmem } from 'node:os';
import { epochMs } from '../../core/clock.ts';
import { executionOrder } from '../../graph/execution-order.ts';
import type { Backend, DeviceInfo, PreparedNetwork, PrepareRequest } from '../backend.ts';
import { GraphIo } from './graph-io.ts';
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
    const io = new GraphIo(graph, view);
    return {
      memory: () => ({ intermediates: memory.intermediates, io: memory.io + io.handedBytes, weights, scratch: kernelScratchBytes() }),
      async infer(inputs) {
        io.load(inputs);
        for (const { kernel, call } of calls) kernel(call);
        return io.handOut();
      },
      async trace(inputs) {
        io.load(inputs);
        return calls.map(({ kernel, call }, step) => {
          const start = epochMs();
          kernel(call);
          return { node: call.node.name, op: call.node.op, step, thread: 'compute', start, end: epochMs() };
        });
      },
      dispose() {},
    };
  },
};
