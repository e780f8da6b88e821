import { cpus, totalmem } from 'node:os';
import { epochMs } from '../../core/clock.ts';
import { executionOrder } from '../../graph/execution-order.ts';
import { plannedProblem } from '../../graph/lifetimes.ts';
import { withSeededWeights } from '../../graph/seeded-weights.ts';
import { planAndVerify } from '../../planners/plan-and-verify.ts';
import { greedyBySize } from '../../planners/offsets/greedy-by-size.ts';
import type { Backend, DeviceInfo, PreparedNetwork, PrepareRequest } from '../backend.ts';
import { seededInputs } from '../run-data.ts';
import { warmUpGraph } from '../warm-up-graph.ts';
import { executionMemory } from './execution-memory.ts';
import { GraphIo } from './graph-io.ts';
import { kernelScratchBytes } from './kernels/index.ts';
import { simdKernelsTitle } from './kernels/wasm/engine.ts';
import { checkScratch, nodeKernels } from './node-kernels.ts';
import { writeWeights } from './write-weights.ts';

/**
 * The CPU backend: runs a graph op by op, single-threaded, inside ONE memory sized from the
 * verified plan before the first inference (execution-memory.ts): weights in the form each
 * kernel reads, the plan's arena (scratch records included), graph I/O. Convolutions and
 * FullyConnected layers of NHWC networks run the SIMD kernels where their operands lie
 * (arena-kernels.ts), with their scratch planned; every other op runs its kernel on views
 * of the same memory. Nothing is allocated, copied or grown per inference. Given `threads`
 * (PrepareRequest), each operator's parts run one after the other: the split cpu-parallel
 * runs at once, on one thread, with the same sums.
 */
export const cpuBackend: Backend<'cpu'> = {
  kind: 'cpu',
  title: 'CPU: TypeScript and WebAssembly SIMD kernels, one thread, one planned memory',
  traces: true,
  streamsWeights: false,
  parallelSteps: false,
  measuresRss: true,
  runsIn: 'process',
  plansScratch: true,
  fusesActivations: true,
  runsNhwc: true,
  writesWeights: true,
  dryRun: { inferences: 1, network: 'kept' },

  async device(): Promise<DeviceInfo> {
    return { backend: 'cpu', cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, threads: 1, memoryBytes: totalmem(), runtime: `node ${process.version}, ${simdKernelsTitle()}` };
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
    // The strategy itself, not the registry: a measured process loads no planner it does not run (56 modules, about 80 ms of its start).
    const plan = planAndVerify(greedyBySize, problem, { alignment: 64 });
    const prepared = await cpuBackend.prepare({ graph, problem, plan });
    const inputs = seededInputs(graph, 1);
    await prepared.infer(inputs);
    await prepared.infer(inputs);
    prepared.dispose();
  },

  async prepare(request: PrepareRequest): Promise<PreparedNetwork> {
    const { graph, problem, plan } = request;
    const order = executionOrder(graph);
    // A plan without the scratch the kernels need is refused before the memory is allocated and the weights written (as cpu-parallel does).
    const parts = request.threads ?? 1;
    checkScratch(graph, order, problem, parts);
    // Kernel scratch is process-wide and only grows: what was there before (the warm-up's) is the runtime's.
    const scratchBefore = kernelScratchBytes();
    const memory = executionMemory(graph, order, problem, plan);
    writeWeights(request, memory);
    const { kernels: steps, derived } = nodeKernels({ graph, heap: memory.heap, at: memory.at, engine: memory.engine }, order, parts, 0);
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
        // One span per node: its parts run one after the other here.
        return order.map((node, index) => {
          const start = epochMs();
          for (let part = 0; part < parts; part++) steps[index * parts + part]();
          return { node: node.name, op: node.op, step: index, thread: 'compute', start, end: epochMs() };
        });
      },
      dispose() {},
    };
  },
};
