import type { Node } from '../../graph/ir.ts';
import type { PrepareRequest } from '../backend.ts';
import { BackendError } from '../backend-error.ts';
import type { Kernel, KernelCall } from './kernel.ts';
import { KERNELS, WEIGHT_PREPARERS } from './kernels/index.ts';

/** A node's kernel and the call it is run with, resolved once at prepare. */
export interface ResolvedCall {
  readonly kernel: Kernel;
  readonly call: KernelCall;
}

/**
 * The kernel calls of `order`'s nodes over the tensor views (every tensor's float32 view;
 * see memory.ts). Weights that a kernel repacks (WEIGHT_PREPARERS) are repacked now, into
 * `KernelCall.prepared`; once no call reads a constant's raw values any more, its view is
 * dropped from `views` and the graph's owner told (request.release), so that only the
 * kernels' own form stays. `weights`: bytes of the repacked forms and of the raw constants
 * still read. `place`, where given, moves each call's weights where the backend keeps them
 * (shared memory), call by call, so that two copies of all weights never exist at once.
 */
export function resolveKernelCalls(
  request: PrepareRequest,
  order: readonly Node[],
  views: Map<string, Float32Array>,
  place: (call: KernelCall) => KernelCall = (call) => call,
): { calls: ResolvedCall[]; weights: number } {
  const { graph } = request;
  for (const node of order) {
    if (KERNELS[node.op] === undefined) throw new BackendError(`the CPU backend has no kernel for ${node.op} (node ${node.name}).`);
  }
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
    return { kernel: KERNELS[node.op]!, call: place(call) };
  });
  let rawBytes = 0;
  for (const [name, reads] of rawReads) if (reads > 0) rawBytes += view(name).byteLength;
  return { calls, weights: derivedBytes + rawBytes };
}

/** What a replaced raw input reads as: nothing (the kernel computes from its prepared form). */
export const EMPTY = new Float32Array(0);
