/**
 * A worker thread of the cpu-parallel pool (worker-pool.ts starts W of them). It says
 * `ready`, then serves steps until told to quit (step-control.ts). On LOAD it takes the
 * network its setup port holds: the execution's one shared memory (cpu/execution-memory.ts),
 * to which it binds a SIMD engine of its own (its own temporary area), and builds every
 * node's kernel over it, as the CPU backend does (cpu/node-kernels.ts): the weights, the
 * arena with every worker's scratch and the graph I/O are the memory's, planned and
 * allocated once by the main thread. An operator that throws is reported on its error
 * port, and the step still ends.
 */
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { epochMs } from '../../core/clock.ts';
import { executionOrder } from '../../graph/execution-order.ts';
import type { Graph } from '../../graph/ir.ts';
import { kernelScratchBytes } from '../cpu/kernels/index.ts';
import { simdEngineOn } from '../cpu/kernels/wasm/engine.ts';
import type { WasmMemory } from '../cpu/kernels/wasm/wasm-api.ts';
import { nodeKernels } from '../cpu/node-kernels.ts';
import { awaitStep, leaveStep, LOAD, markFailed, QUIT, takeOperator, tracing, type Spans, type StepBlock } from './step-control.ts';

/** What a worker is started with (its workerData). */
export interface WorkerSetup {
  /** This worker's slot in the block's per-worker arrays. */
  readonly index: number;
  readonly workers: number;
  readonly block: StepBlock;
  /** Where the network of a LOAD waits. */
  readonly networks: MessagePort;
  /** Where the message of a failed operator goes (the main thread reads it synchronously). */
  readonly errors: MessagePort;
}

/**
 * A network for the workers: its graph, the shared memory and where everything lies in it.
 * The graph is left out when it is the one the workers hold already (a network prepared
 * again after its dry run): each worker keeps its copy, so that copying it again does not
 * land in the measured run.
 */
export interface NetworkSetup {
  readonly graph?: Graph;
  /** The shared WebAssembly memory (the SIMD engine binds to it), or the SharedArrayBuffer where there is no engine. */
  readonly memory: WasmMemory | SharedArrayBuffer;
  readonly byteAt: ReadonlyMap<string, number>;
  /** Byte offset of this worker's temporary area of the SIMD kernels. */
  readonly temporary: number;
  /** Indices of kernels (node k's part p at k * parts + p), per step. */
  readonly steps: readonly (readonly number[])[];
  /** Parts each node's kernel is split into (node-kernels.ts). */
  readonly parts: number;
  /** Bands of each node's scratch: one per thread where operators are split (a worker works in its own), else 1. */
  readonly bands: number;
  readonly spans: Spans;
  /** When each operator step ended (shared clock, ms), noted by the worker that ended it. */
  readonly stepEnds: Float64Array;
}

interface Loaded {
  readonly setup: NetworkSetup;
  readonly graph: Graph;
  readonly kernels: readonly (() => void)[];
  readonly names: readonly string[];
}

function load(setup: NetworkSetup, graph: Graph, index: number): { loaded: Loaded; derived: number } {
  const engine = setup.memory instanceof SharedArrayBuffer ? undefined : simdEngineOn(setup.memory, setup.temporary);
  const heap = engine?.heap() ?? new Float32Array(setup.memory instanceof SharedArrayBuffer ? setup.memory : (setup.memory.buffer as SharedArrayBuffer));
  const at = (id: string): number => {
    const bytes = setup.byteAt.get(id);
    if (bytes === undefined) throw new Error(`${id} has no place in the execution's memory.`);
    return bytes / 4;
  };
  const order = executionOrder(graph);
  // Parts of one node run on several workers at once only when split: each then works in the band of its index.
  const { kernels, derived } = nodeKernels({ graph, heap, at, ...(engine ? { engine } : {}) }, order, setup.parts, setup.bands > 1 ? index : 0);
  return { loaded: { setup, graph, kernels, names: order.flatMap((n) => Array.from({ length: setup.parts }, () => `${n.name} (${n.op})`)) }, derived };
}

/**
 * A LOAD: the network on the setup port, its kernels built, or undefined (the failure
 * reported). A function of its own, as runStep is: a frame's stale slots would otherwise keep
 * the network held before alive through the collection that is to free it (measured: the
 * dry run's 1.2 MiB per worker stayed until the next network was built beside it).
 */
function loadStep(setup: WorkerSetup, held: Graph | undefined): Loaded | undefined {
  const { index, block, networks, errors } = setup;
  const message = receiveMessageOnPort(networks);
  try {
    if (message === undefined) throw new Error('no network was sent with the load.');
    const network = message.message as NetworkSetup;
    const graph = network.graph ?? held;
    if (graph === undefined) throw new Error('the load sent no graph and the worker holds none.');
    const { loaded, derived } = load(network, graph, index);
    block.derivedBytes[index] = derived;
    return loaded;
  } catch (error) {
    errors.postMessage(`worker ${index} could not take the network: ${error instanceof Error ? error.message : String(error)}`);
    markFailed(block);
    return undefined;
  }
}

/** One operator step: this worker takes operators of it until none is left. */
function runStep(setup: WorkerSetup, network: Loaded, step: number): void {
  const { index, block, errors } = setup;
  const operators = network.setup.steps[step];
  const { spans } = network.setup;
  const traced = tracing(block);
  for (let k = takeOperator(block, operators.length); k >= 0; k = takeOperator(block, operators.length)) {
    const at = operators[k];
    if (traced) {
      spans.start[at] = epochMs();
      spans.worker[at] = index;
    }
    const started = performance.now();
    try {
      network.kernels[at]();
    } catch (error) {
      errors.postMessage(`node ${network.names[at]} failed on worker ${index}: ${error instanceof Error ? error.message : String(error)}`);
      markFailed(block);
    }
    block.busyMs[index] += performance.now() - started;
    if (traced) spans.end[at] = epochMs();
    block.scratchBytes[index] = kernelScratchBytes();
  }
}

function serve(setup: WorkerSetup): void {
  const { index, workers, block, networks, errors } = setup;
  let network: Loaded | undefined;
  parentPort?.postMessage('ready');
  let seen = 0;
  for (;;) {
    const { generation, step } = awaitStep(block, seen);
    seen = generation;
    if (step === QUIT) break;
    if (step === LOAD) {
      // The network held before (a dry run's) goes first, so that two are never held at once; its graph is kept for a load that sends none.
      const graph = network?.graph;
      network = undefined;
      (globalThis as { gc?: () => void }).gc?.();
      network = loadStep(setup, graph);
    } else if (network === undefined) {
      errors.postMessage(`worker ${index} was asked to run a step before it held a network.`);
      markFailed(block);
    } else {
      runStep(setup, network, step);
    }
    leaveStep(block, workers, network?.setup.stepEnds);
  }
  errors.close();
  networks.close();
}

serve(workerData as WorkerSetup);
