import { cpus, totalmem } from 'node:os';
import { epochMs } from '../../core/clock.ts';
import { executionOrder } from '../../graph/execution-order.ts';
import { elementCount } from '../../graph/ir.ts';
import { layerMemory } from '../../graph/layer-memory.ts';
import type { Backend, DeviceInfo, PreparedNetwork, PrepareRequest, StreamingStats } from '../backend.ts';
import { BackendError } from '../backend-error.ts';
import { GraphIo } from '../cpu/graph-io.ts';
import { kernelScratchBytes } from '../cpu/kernels/index.ts';
import { MAX_PAGES } from '../cpu/kernels/wasm/encoder.ts';
import { sharedMemory, simdEngineOn, simdKernelsTitle } from '../cpu/kernels/wasm/engine.ts';
import type { ArenaContext } from '../cpu/arena-context.ts';
import { layerKernel } from '../cpu/arena-kernels.ts';
import { loadSchedule } from './load-schedule.ts';
import { loaderThread, STAGING_BYTES } from './loader-thread.ts';
import { KERNEL_AREA_BYTES as RESERVED, PAGE_BYTES as PAGE } from './budget-share.ts';
import { warmUp } from './warm-up.ts';
import { weightsFileLayout } from './weights-file.ts';

/** The largest budget the executor runs: its one buffer and the kernels' reserve fill a wasm32 memory. */
export const MAX_BUDGET_BYTES = MAX_PAGES * PAGE - RESERVED;

export function budgetTooLarge(budget: number): string {
  return `a budget of ${budget} bytes is more than the budgeted executor can hold: its one buffer lives in a WebAssembly memory of at most 4 GiB, so the largest budget it runs is ${MAX_BUDGET_BYTES} bytes (4 GiB less the kernels' ${RESERVED} bytes).`;
}

/**
 * The streaming executor (FlexNN's online stage): the network runs inside ONE buffer,
 * allocated once (a shared WebAssembly memory: the buffer plus the SIMD kernels' 64-byte
 * temporary area, in whole 64 KiB pages; under a budget, the buffer is what the budget leaves
 * after graph I/O and the runtime's reserve, budget-share.ts), which holds every
 * activation, weight slice and scratch buffer where the verified plan puts them. Weights
 * come from the weights file (budgeted/weights-file.ts), read by a loader thread into the
 * buffer (O_DIRECT through a small staging area, or pread; loader-thread.ts) while the
 * compute thread runs the layers, both following the
 * plan's dependencies (load-schedule.ts). Kernels read everything where it lies
 * (arena-kernels.ts). It runs NHWC networks (the zoo, TFLite files) on WebAssembly SIMD.
 */
export const budgetedBackend: Backend<'budgeted'> = {
  kind: 'budgeted',
  title: 'CPU under a memory budget: one buffer, weights streamed from a file by a loader thread (FlexNN)',
  traces: true,
  streamsWeights: true,
  parallelSteps: false,
  measuresRss: true,
  runsIn: 'process',
  // Two inferences compile what the network runs for the first time (its layer kinds and
  // shapes); 4, 8 and 16 left the peak where it was: V8 goes on optimizing functions as they
  // get hot, whatever ran before (budget-share.ts's reserve covers that). Released: a second
  // buffer of the budget's size would double what the process holds; the loader thread too
  // lets go of it and collects before the baseline is read again (measure-job.ts).
  dryRun: { inferences: 2, network: 'released' },

  async device(): Promise<DeviceInfo> {
    return {
      backend: 'budgeted',
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      threads: 2,
      loader: `worker thread: O_DIRECT reads through a ${STAGING_BYTES / 2 ** 20} MiB staging area (made at start-up, in the baseline) where the file system takes them, else pread; into a shared WebAssembly memory`,
      memoryBytes: totalmem(),
      runtime: `node ${process.version}, ${simdKernelsTitle()}`,
    };
  },

  async requiredAlignment(): Promise<number> {
    return 16;
  },

  /** Starts the loader thread and warms the executor up (warm-up.ts): the runtime's start-up. */
  async open(): Promise<void> {
    loaderThread();
    await warmUp(budgetedBackend);
  },

  async prepare(request: PrepareRequest): Promise<PreparedNetwork> {
    const { graph, problem, plan, streaming } = request;
    if (streaming === undefined) throw new BackendError('the budgeted backend runs budgeted plans with a weights file: use memplan exec --budget (or --backend budgeted).');
    if (graph.layout !== 'NHWC')
      throw new BackendError(`the budgeted executor runs NHWC networks (the zoo, .tflite files, ONNX files whose every node converts to NHWC); ${graph.name} is ${graph.layout}.`);
    if (plan.objects !== undefined) throw new BackendError('the budgeted executor runs offsets plans: one buffer.');
    if (plan.footprint > streaming.bufferBytes) throw new BackendError(`the plan needs ${plan.footprint} bytes, more than the buffer of ${streaming.bufferBytes}.`);
    if (streaming.bufferBytes > MAX_BUDGET_BYTES) throw new BackendError(budgetTooLarge(streaming.bufferBytes));
    const memory = sharedMemory(Math.ceil((RESERVED + streaming.bufferBytes) / PAGE));
    const engine = memory === undefined ? undefined : simdEngineOn(memory);
    if (memory === undefined || engine === undefined) throw new BackendError('the budgeted executor computes with WebAssembly SIMD on shared memory, which this runtime lacks.');
    const heap = engine.heap();
    const index = new Map(problem.records.map((r, i) => [r.id, i]));
    const context: ArenaContext = {
      graph,
      engine,
      heap,
      at(id) {
        const i = index.get(id);
        if (i === undefined) throw new BackendError(`${id} has no record in the budgeted plan.`);
        return (RESERVED + plan.offsets[i]) / 4;
      },
    };
    const order = executionOrder(graph);
    const steps = order.map((node) => {
      // The records were sized by the same function: what a kernel uses is what was planned.
      const layer = layerMemory(graph, node);
      for (const [suffix, bytes] of [
        ['@weights', layer.weightBytes],
        ['@scratch', layer.scratchBytes],
      ] as const) {
        const i = index.get(`${node.name}${suffix}`);
        if (bytes > 0 && (i === undefined || problem.records[i].size !== bytes))
          throw new BackendError(`node ${node.name} needs ${bytes} bytes of ${suffix.slice(1)}, which the plan's records do not hold.`);
      }
      return layerKernel(node, layer, context);
    });
    const schedule = loadSchedule(problem, plan.offsets, plan.loadSteps, weightsFileLayout(problem).offsets, streaming.loading);
    const loader = loaderThread().start({
      memory: memory.buffer as SharedArrayBuffer,
      base: RESERVED,
      path: streaming.weightsFile,
      reads: streaming.reads ?? { direct: false },
      schedule,
      steps: order.length,
      trace: streaming.trace ?? false,
    });

    const view = (name: string): Float32Array => {
      const at = context.at(name);
      return heap.subarray(at, at + elementCount(graph.tensors.get(name)?.shape ?? []));
    };
    const io = new GraphIo(graph, view);
    let bytesLoaded = 0;
    for (const bytes of schedule.bytes) bytesLoaded += bytes;
    const stalls: number[] = [];
    const trace = streaming.trace ? new Int32Array(2 * steps.length) : undefined;
    /** One inference; `times`: each step's start and end (ms, the clock every thread shares). */
    const run = (given: ReadonlyMap<string, Float32Array>, times?: Float64Array): void => {
      io.load(given);
      loader.begin();
      let stalled = 0;
      for (let step = 0; step < steps.length; step++) {
        stalled += loader.waitForLoads(schedule.loadsBefore[step]);
        if (trace) trace[2 * step] = loader.sequence();
        if (times) times[2 * step] = epochMs();
        steps[step]();
        if (times) times[2 * step + 1] = epochMs();
        if (trace) trace[2 * step + 1] = loader.sequence();
        loader.computed();
      }
      // A traced inference is not one of the timed ones: its waits stay out of the stall figures.
      if (!times) stalls.push(stalled);
    };
    return {
      memory: () => ({ intermediates: memory.buffer.byteLength, io: io.handedBytes, weights: 0, scratch: kernelScratchBytes() }),
      async infer(given) {
        run(given);
        return io.handOut();
      },
      async trace(given) {
        const times = new Float64Array(2 * steps.length);
        run(given, times);
        const loadTimes = loader.loadTimes();
        return [
          ...order.map((node, step) => ({ node: node.name, op: node.op, step, thread: 'compute', start: times[2 * step], end: times[2 * step + 1] })),
          // A load belongs to the step of the layer whose weights it reads.
          ...schedule.records.map((record, k) => ({
            node: problem.records[record].id,
            op: 'load',
            step: problem.records[record].first,
            thread: 'loader',
            start: loadTimes[2 * k],
            end: loadTimes[2 * k + 1],
          })),
        ];
      },
      streamingStats(): StreamingStats {
        const loads = loader.loadSequences();
        return {
          ioStallMs: [...stalls],
          bytesLoaded,
          loads: schedule.records.length,
          reads: { direct: loader.readsDirect(), bytesPerSecond: streaming.reads?.bytesPerSecond ?? null },
          readMs: readMs(loader.loadTimes()),
          ...(trace && loads
            ? {
                trace: {
                  loads: schedule.records.map((record, k) => ({ record, start: loads[2 * k], end: loads[2 * k + 1] })),
                  computes: Array.from({ length: steps.length }, (_, step) => ({ step, start: trace[2 * step], end: trace[2 * step + 1] })),
                },
              }
            : {}),
        };
      },
      dispose() {
        loader.stop();
      },
    };
  },
};

/** The loader's time on reads in one inference: the sum of its loads' [start, end] spans. */
function readMs(times: Float64Array): number {
  let total = 0;
  for (let k = 0; k + 1 < times.length; k += 2) total += times[k + 1] - times[k];
  return Math.round(total * 1000) / 1000;
}
