import { cpus, totalmem } from 'node:os';
import { epochMs } from '../../core/clock.ts';
import { executionOrder } from '../../graph/execution-order.ts';
import { inPlaceLayer, scratchId } from '../../graph/layer-memory.ts';
import { plannedProblem } from '../../graph/lifetimes.ts';
import { withSeededWeights } from '../../graph/seeded-weights.ts';
import { planAndVerify } from '../../planners/plan-and-verify.ts';
import { findPlanner } from '../../planners/registry.ts';
import type { Backend, DeviceInfo, PreparedNetwork, PrepareRequest } from '../backend.ts';
import { BackendError } from '../backend-error.ts';
import { seededInputs } from '../run-data.ts';
import { warmUpGraph } from '../warm-up-graph.ts';
import { layerKernel, viewKernel, type ArenaContext } from './arena-kernels.ts';
import { executionMemory, type ExecutionMemory } from './execution-memory.ts';
import { GraphIo } from './graph-io.ts';
import { kernelScratchBytes } from './kernels/index.ts';

/**
 * The CPU backend: runs a graph op by op, single-threaded, inside ONE memory sized from the
 * verified plan before the first inference (execution-memory.ts): weights in the form each
 * kernel reads, the plan's arena (scratch records included), graph I/O. Convolutions and
 * FullyConnected layers of NHWC networks run the SIMD kernels where their operands lie
 * (arena-kernels.ts), with their scratch planned; every other op runs its kernel on views
 * of the same memory. Nothing is allocated, copied or grown per inference.
 */
export const cpuBackend: Backend = {
  kind: 'cpu',
  title: 'CPU: TypeScript and WebAssembly SIMD kernels, one thread, one planned memory',
  plansScratch: true,
  writesWeights: true,

  async device(): Promise<DeviceInfo> {
    return { backend: 'cpu', cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, threads: 1, memoryBytes: totalmem(), runtime: `node ${process.version}` };
  },

  /** float32 views need 4-byte offsets. */
  async requiredAlignment(): Promise<number> {
    return 4;
  },

  /**
   * Runs a small network with a layer of every kind twice, before the measured process's
   * baseline: the executor's code compiled and its heap settled are the runtime's (reported
   * as `memory.runtime`; a native runtime's code is in its binary), and what follows the
   * baseline is the network's.
   */
  async open(): Promise<void> {
    const { graph, problem } = plannedProblem(withSeededWeights(warmUpGraph(), 1), { elementSize: 4, scratch: true });
    const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem, { alignment: 64 });
    const prepared = await cpuBackend.prepare({ graph, problem, plan });
    const inputs = seededInputs(graph, 1);
    await prepared.infer(inputs);
    await prepared.infer(inputs);
    prepared.dispose();
  },

  async prepare(request: PrepareRequest): Promise<PreparedNetwork> {
    const { graph, problem, plan } = request;
    const order = executionOrder(graph);
    // Kernel scratch is process-wide and only grows: what was there before (the warm-up's) is the runtime's.
    const scratchBefore = kernelScratchBytes();
    const memory = executionMemory(graph, order, problem, plan);
    writeWeights(request, memory);
    const views = { graph, heap: memory.heap, at: memory.at };
    // Without the SIMD engine every node runs its kernel's TypeScript loops on views.
    const context: ArenaContext | undefined = memory.engine === undefined ? undefined : { ...views, engine: memory.engine };
    let derived = 0;
    const steps = order.map((node) => {
      const layer = context === undefined ? undefined : inPlaceLayer(graph, node);
      if (layer === undefined || context === undefined) {
        const kernel = viewKernel(node, views);
        derived += kernel.derived;
        return kernel.run;
      }
      // The records were sized by the same function: what a kernel uses is what was planned.
      const record = problem.records.find((r) => r.id === scratchId(node));
      if (layer.scratchBytes > 0 && record?.size !== layer.scratchBytes) {
        throw new BackendError(`node ${node.name} needs ${layer.scratchBytes} bytes of scratch, which the plan's records do not hold (plan it with the record option scratch).`);
      }
      return layerKernel(node, layer, context);
    });
    const io = new GraphIo(graph, memory.view);
    const { bytes } = memory;
    return {
      memory: () => ({
        intermediates: bytes.arena,
        io: bytes.io + io.handedBytes,
        weights: bytes.weights + derived,
        // Kernels of ops the executor does not run in place may keep scratch of their own: not planned, named here.
        scratch: kernelScratchBytes() - scratchBefore,
      }),
      async infer(inputs) {
        io.load(inputs);
        for (const step of steps) step();
        return io.handOut();
      },
      async trace(inputs) {
        io.load(inputs);
        return steps.map((step, index) => {
          const start = epochMs();
          step();
          const node = order[index];
          return { node: node.name, op: node.op, step: index, thread: 'compute', start, end: epochMs() };
        });
      },
      dispose() {},
    };
  },
};

/**
 * Every node's weights into the memory, in its kernel's form, as the values come: constants
 * the graph holds values of (a file's, or shapes) first, each let go (request.release) once
 * written; then the request's stream, seeded in this process a run at a time, for those it
 * holds none of. A constant left without values is an error, not zeros.
 */
function writeWeights(request: PrepareRequest, memory: ExecutionMemory): void {
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
