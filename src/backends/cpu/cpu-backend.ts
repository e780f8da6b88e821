import { cpus, totalmem } from 'node:os';
import { executionOrder } from '../../graph/execution-order.ts';
import type { Backend, DeviceInfo, PreparedNetwork, PrepareRequest } from '../backend.ts';
import { BackendError } from '../backend-error.ts';
import type { KernelCall } from './kernel.ts';
import { KERNELS, kernelScratchBytes, WEIGHT_PREPARERS } from './kernels/index.ts';
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
    const order = executionOrder(graph);
    for (const node of order) {
      if (KERNELS[node.op] === undefined) throw new BackendError(`the CPU backend has no kernel for ${node.op} (node ${node.name}).`);
    }
    const memory = bindMemory(request);
    const { views } = memory;
    const view = (name: string): Float32Array => views.get(name) as Float32Array;
    const shape = (name: string): readonly number[] => graph.tensors.get(name)?.shape ?? [];
    const isConstant = (name: string): boolean => graph.tensors.get(name)?.constant === true;
    // Reads of each constant's raw values still to come; at 0 its view is dropped and the
    // graph's owner told (request.release): only the kernels' own form stays.
    const rawReads = new Map<string, number>();
    for (const node of order) for (const name of node.inputs) if (isConstant(name)) rawReads.set(name, (rawReads.get(name) ?? 0) + 1);
    let derivedBytes = 0;
    const calls = order.map((node) => {
      let call: KernelCall = {
        node,
        layout: graph.layout,
        inputs: node.inputs.map((name) => (name === '' ? undefined : view(name))),
        inputShapes: node.inputs.map((name) => (name === '' ? [] : shape(name))),
        output: view(node.outputs[0]),
        outputShape: shape(node.outputs[0]),
      };
      const prepared = WEIGHT_PREPARERS[node.op]?.(call);
      if (prepared !== undefined && prepared.replaces.every((k) => isConstant(node.inputs[k]))) {
        derivedBytes += prepared.bytes;
        call = { ...call, prepared, inputs: call.inputs.map((data, k) => (prepared.replaces.includes(k) ? EMPTY : data)) };
        for (const k of prepared.replaces) {
          const name = node.inputs[k];
          const left = rawReads.get(name)! - 1;
          rawReads.set(name, left);
          if (left === 0) {
            views.delete(name);
            request.release?.(name);
          }
        }
      }
      return { kernel: KERNELS[node.op]!, call };
    });
    let rawBytes = 0;
    for (const [name, reads] of rawReads) if (reads > 0) rawBytes += view(name).byteLength;
    const { inputs: inputNames, outputs: outputNames } = graph;
    const handed = new Map(outputNames.map((name) => [name, new Float32Array(view(name).length)]));
    let handedBytes = 0;
    for (const values of handed.values()) handedBytes += values.byteLength;
    return {
      memory: () => ({ intermediates: memory.intermediates, io: memory.io + handedBytes, weights: derivedBytes + rawBytes, scratch: kernelScratchBytes() }),
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

/** What a replaced raw input reads as: nothing (the kernel computes from its prepared form). */
const EMPTY = new Float32Array(0);
