import { executionOrder } from '../../graph/execution-order.ts';
import { epochMs } from '../../core/clock.ts';
import { elementCount, type Node } from '../../graph/ir.ts';
import type { OperatorSpan, PreparedNetwork, PrepareRequest } from '../backend.ts';
import { BackendError } from '../backend-error.ts';
import type { GpuContext, TimingMethod } from './gpu-context.ts';
import { KernelError, type DispatchSpec, type KernelContext } from './kernel.ts';
import { WEBGPU_KERNELS } from './kernels/index.ts';
import { constantValues, GpuMemory } from './memory.ts';
import { compileDispatches, type CompiledDispatch } from './pipelines.ts';
import { DispatchTimer } from './timing.ts';

/** A network prepared on a WebGPU device: also says how its inferences are timed. */
export interface WebGpuPreparedNetwork extends PreparedNetwork {
  /** 'timestamp-query': GPU time of the dispatches; 'wall-clock': submit until the queue is done. */
  readonly timing: TimingMethod;
  /** Milliseconds the device spent on the last inference's dispatches, by `timing`; undefined before the first. */
  readonly lastDeviceMs: number | undefined;
  /** Compute dispatches per inference (a node may take several, e.g. Concat one per input). */
  readonly dispatches: number;
}

/**
 * A network inside a verified plan on an open device, whoever opened it (Dawn for Node:
 * webgpu-backend.ts; a browser page: browser/page/). Intermediate tensors live exactly where
 * the plan puts them (memory.ts: one storage buffer arena for an offsets plan, one buffer
 * per object for shared objects); every node is one or more WGSL compute dispatches
 * (kernels/), compiled and bound once here. An inference writes the inputs, encodes every
 * dispatch into one compute pass of one command buffer, submits it and reads the outputs back.
 */
export async function prepareOnDevice(context: GpuContext, request: PrepareRequest): Promise<WebGpuPreparedNetwork> {
  const { graph } = request;
  const order = executionOrder(graph);
  const perNode = order.map((node) => dispatchesOf(request, node));
  const memory = new GpuMemory(context, request);
  try {
    const dispatches = await compileDispatches(context, memory, perNode.flat());
    // Every constant is on the device now (as it is, or repacked by its kernel): the host copy may go.
    for (const [name, tensor] of graph.tensors) if (tensor.constant) request.release?.(name);
    // Each node's dispatches, in order (a traced inference runs them node by node).
    let next = 0;
    const nodes = order.map((node, k) => ({ node, dispatches: dispatches.slice(next, (next += perNode[k].length)) }));
    return preparedNetwork(context, request, memory, dispatches, nodes);
  } catch (error) {
    memory.destroy();
    throw error;
  }
}

function dispatchesOf(request: PrepareRequest, node: PrepareRequest['graph']['nodes'][number]): DispatchSpec[] {
  const { graph } = request;
  const kernel = WEBGPU_KERNELS[node.op];
  if (kernel === undefined) throw new BackendError(`the WebGPU backend has no kernel for ${node.op} (node ${node.name}).`);
  const shapeOf = (name: string): readonly number[] => (name === '' ? [] : (graph.tensors.get(name)?.shape ?? []));
  const context: KernelContext = {
    node,
    layout: graph.layout,
    inputShapes: node.inputs.map(shapeOf),
    outputShape: shapeOf(node.outputs[0]),
    constantInput(index) {
      const name = node.inputs[index];
      if (name === undefined || name === '' || !graph.tensors.get(name)?.constant) return undefined;
      return constantValues(graph, name);
    },
  };
  try {
    return kernel(context);
  } catch (error) {
    if (error instanceof KernelError) throw new BackendError(`the WebGPU backend cannot run ${error.message}`);
    throw error;
  }
}

/** A node of the network and the dispatches that compute it. */
interface NodeDispatches {
  readonly node: Node;
  readonly dispatches: readonly CompiledDispatch[];
}

function preparedNetwork(context: GpuContext, request: PrepareRequest, memory: GpuMemory, dispatches: readonly CompiledDispatch[], nodes: readonly NodeDispatches[]): WebGpuPreparedNetwork {
  const { graph } = request;
  const { device, flags } = context;
  const outputs = graph.outputs.map((name) => ({ name, range: memory.tensor(name), at: 0 }));
  let stagingBytes = 0;
  for (const output of outputs) {
    output.at = stagingBytes;
    stagingBytes += output.range.size;
  }
  const staging = device.createBuffer({ label: 'outputs readback', size: Math.max(4, stagingBytes), usage: flags.MAP_READ | flags.COPY_DST });
  memory.account(staging.size);
  const timer = new DispatchTimer(context);
  memory.account(timer.bufferBytes);
  // The outputs are handed back in host arrays made once (see PreparedNetwork.infer).
  const handed = new Map(outputs.map((o) => [o.name, new Float32Array(o.range.size / 4)]));
  const handedBytes = outputs.reduce((sum, o) => sum + o.range.size, 0);
  let lastDeviceMs: number | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  function writeInputs(inputs: ReadonlyMap<string, Float32Array>): void {
    for (const name of graph.inputs) {
      const given = inputs.get(name);
      const expected = elementCount(graph.tensors.get(name)?.shape ?? []);
      if (given === undefined || given.length !== expected) throw new BackendError(`input ${name} needs ${expected} float32 values, got ${given?.length ?? 'none'}.`);
      const target = memory.tensor(name);
      device.queue.writeBuffer(target.buffer, target.offset, given.buffer, given.byteOffset, given.byteLength);
    }
  }

  function encode(pass: GPUComputePassEncoder, list: readonly CompiledDispatch[]): void {
    for (const dispatch of list) {
      pass.setPipeline(dispatch.pipeline);
      pass.setBindGroup(0, dispatch.bindGroup);
      pass.dispatchWorkgroups(dispatch.workgroups[0], dispatch.workgroups[1]);
    }
  }

  /** One command buffer, encoded by `build` and submitted inside a validation error scope; resolves once the device has checked it. */
  async function submitChecked(label: string, what: string, build: (encoder: GPUCommandEncoder) => void): Promise<void> {
    device.pushErrorScope('validation');
    let rejected: Promise<GPUError | null>;
    try {
      const encoder = device.createCommandEncoder({ label });
      build(encoder);
      device.queue.submit([encoder.finish()]);
    } finally {
      rejected = device.popErrorScope();
    }
    const error = await context.settle(rejected);
    if (error) throw new BackendError(`the WebGPU device rejected ${what}: ${error.message}`);
  }

  async function runOnce(inputs: ReadonlyMap<string, Float32Array>): Promise<Map<string, Float32Array>> {
    writeInputs(inputs);
    const checked = submitChecked(graph.name, `the inference of ${graph.name}`, (encoder) => {
      const pass = encoder.beginComputePass(timer.passDescriptor());
      encode(pass, dispatches);
      pass.end();
      timer.encodeResolve(encoder);
      for (const output of outputs) encoder.copyBufferToBuffer(output.range.buffer, output.range.offset, staging, output.at, output.range.size);
    });
    timer.submitted();
    await checked;
    const [elapsed] = await Promise.all([timer.elapsedMs(), context.settle(staging.mapAsync(flags.MAP_MODE_READ))]);
    lastDeviceMs = elapsed;
    try {
      const mapped = staging.getMappedRange();
      for (const o of outputs) handed.get(o.name)!.set(new Float32Array(mapped, o.at, o.range.size / 4));
      return handed;
    } finally {
      staging.unmap();
    }
  }

  /**
   * One inference node by node: each node's dispatches in a command buffer of their own,
   * submitted alone and waited for, its span the host's clock from the submit until the
   * queue is done. So a span holds the node's GPU work and one submit's round trip (small
   * against a software rasterizer's kernels, not against a discrete GPU's short ones); the
   * inference's own timing (one submit for all) is what `infer` measures.
   */
  async function traceOnce(inputs: ReadonlyMap<string, Float32Array>): Promise<OperatorSpan[]> {
    writeInputs(inputs);
    await context.settle(device.queue.onSubmittedWorkDone());
    const spans: OperatorSpan[] = [];
    for (const [step, { node, dispatches: list }] of nodes.entries()) {
      const start = epochMs();
      await submitChecked(node.name, `node ${node.name} of ${graph.name}`, (encoder) => {
        const pass = encoder.beginComputePass({ label: node.name });
        encode(pass, list);
        pass.end();
      });
      await context.settle(device.queue.onSubmittedWorkDone());
      spans.push({ node: node.name, op: node.op, step, thread: 'device', start, end: epochMs() });
    }
    return spans;
  }

  /** One inference or trace at a time: they share the buffers. */
  function inTurn<T>(work: () => Promise<T>): Promise<T> {
    const result = queue.then(work);
    queue = result.catch(() => undefined);
    return result;
  }

  return {
    memory: () => ({ intermediates: memory.bytes.intermediates, io: memory.bytes.io + handedBytes, weights: memory.bytes.weights, scratch: 0, device: { ...memory.bytes } }),
    timing: timer.method,
    dispatches: dispatches.length,
    get lastDeviceMs() {
      return lastDeviceMs;
    },
    infer(inputs) {
      return inTurn(() => runOnce(inputs));
    },
    trace(inputs) {
      return inTurn(() => traceOnce(inputs));
    },
    dispose() {
      memory.destroy();
      staging.destroy();
      timer.destroy();
    },
  };
}
