import { mulberry32 } from '../core/synthetic.ts';
import { elementCount, type Graph } from '../graph/ir.ts';
import { plannedProblem, type RecordOptions } from '../graph/lifetimes.ts';
import { withSeededWeights } from '../graph/seeded-weights.ts';
import type { Backend, DeviceInfo } from './backend.ts';
import { BackendError } from './backend-error.ts';
import { relativeError, runOnnxRuntime } from './onnxruntime/onnxruntime-peer.ts';
import { planAndVerify } from '../planners/plan-and-verify.ts';
import type { Planner } from '../planners/planner.ts';
import { findPlanner } from '../planners/registry.ts';
import { summarizeLatency, type LatencySummary } from './latency.ts';

export interface ExecuteOptions {
  readonly backend: Backend;
  readonly planner: Planner;
  readonly repetitions: number;
  readonly warmup: number;
  /** Seed of the weights (when seeded) and of the input. */
  readonly seed: number;
  /** 'seeded' (default): seeded random weights; 'file': the source's own float weights. */
  readonly weights?: 'seeded' | 'file';
  /** How the graph becomes records; the element size is always 4 (fp32 execution). */
  readonly records?: RecordOptions;
  /** Bytes; raised to what the backend requires (4 for the CPU's float32 views, 256 on most WebGPU devices). */
  readonly alignment?: number;
  /** Also run inside the naive plan and compare outputs bit for bit. */
  readonly verifyByExecution?: boolean;
  /** Also time onnxruntime-node (single thread) on the same network and inputs. */
  readonly peer?: boolean;
}

/** onnxruntime-node beside our executor: its latency, ours over its, and how far outputs differ. */
export interface PeerReport {
  readonly runtime: string;
  readonly latencyMs: LatencySummary;
  /** Our median over the peer's. */
  readonly ratio: number;
  /** Largest difference over the largest magnitude of the peer's outputs. */
  readonly relativeError: number;
}

/** The JSON of `memplan exec`. */
export interface ExecuteReport {
  readonly backend: string;
  readonly planner: string;
  readonly footprint: number;
  readonly latencyMs: LatencySummary;
  /**
   * The device's own time per inference (GPU timestamp queries: the dispatches alone, no
   * upload or readback), when the backend measures it for every repetition; `device.timing`
   * says how it was measured.
   */
  readonly deviceMs?: LatencySummary;
  /** Outputs bit-identical to the naive plan's; null when not checked. */
  readonly matchesNaive: boolean | null;
  readonly peakRssBytes: number;
  readonly device: DeviceInfo;
  readonly peer?: PeerReport;
}

/** The graph with the weights it runs with: seeded (zoo, default) or the file's own. */
export function weightedGraph(graph: Graph, weights: 'seeded' | 'file', seed: number): Graph {
  if (weights === 'seeded') {
    const bare = new Map([...graph.tensors].map(([name, t]) => [name, t.constant ? { ...t, data: undefined, dtype: 'float32' as const } : t]));
    return withSeededWeights({ ...graph, tensors: bare }, seed);
  }
  for (const tensor of graph.tensors.values()) {
    if (tensor.constant && !(tensor.data instanceof Float32Array)) {
      throw new BackendError(`${graph.name}: constant ${tensor.name} has no float32 values (${tensor.data ? tensor.dtype : 'none'}); run with seeded weights.`);
    }
  }
  return graph;
}

/** Seeded inputs in [0, 1) for every graph input. */
export function seededInputs(graph: Graph, seed: number): Map<string, Float32Array> {
  const random = mulberry32(seed ^ 0x5eed);
  return new Map(
    graph.inputs.map((name) => {
      const values = new Float32Array(elementCount(graph.tensors.get(name)?.shape ?? []));
      for (let k = 0; k < values.length; k++) values[k] = random();
      return [name, values];
    }),
  );
}

/** Are two output sets bit-identical (NaN patterns included)? */
export function bitIdentical(a: ReadonlyMap<string, Float32Array>, b: ReadonlyMap<string, Float32Array>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, x] of a) {
    const y = b.get(name);
    if (y === undefined || x.length !== y.length) return false;
    const xi = new Uint32Array(x.buffer, x.byteOffset, x.length);
    const yi = new Uint32Array(y.buffer, y.byteOffset, y.length);
    for (let k = 0; k < xi.length; k++) if (xi[k] !== yi[k]) return false;
  }
  return true;
}

/**
 * Runs the graph inside one verified plan: latency, and optionally proof by execution
 * against naive. What runs is the planned graph (record options' transforms and operator
 * order applied), the graph the plan's records come from: a plan holds only for the order
 * it was made for.
 */
export async function executeGraph(source: Graph, options: ExecuteOptions): Promise<ExecuteReport> {
  const weighted = weightedGraph(source, options.weights ?? 'seeded', options.seed);
  const { graph, problem } = plannedProblem(weighted, { ...options.records, elementSize: 4 });
  const alignment = Math.max(await options.backend.requiredAlignment(), options.alignment ?? 1);
  const plan = planAndVerify(options.planner, problem, { alignment });
  if (!plan.valid) throw new Error(`${options.planner.id} produced an invalid plan: ${plan.violations[0]?.message}`);
  const prepared = await options.backend.prepare({ graph, problem, plan });
  const inputs = seededInputs(graph, options.seed);
  let outputs = new Map<string, Float32Array>();
  for (let k = 0; k < options.warmup; k++) outputs = await prepared.infer(inputs);
  const samples: number[] = [];
  const deviceSamples: number[] = [];
  for (let k = 0; k < options.repetitions; k++) {
    const started = performance.now();
    outputs = await prepared.infer(inputs);
    samples.push(performance.now() - started);
    if (prepared.lastDeviceMs !== undefined) deviceSamples.push(prepared.lastDeviceMs);
  }
  prepared.dispose();
  let matchesNaive: boolean | null = null;
  if (options.verifyByExecution ?? true) {
    const naive = planAndVerify(findPlanner('shared-objects/naive'), problem, { alignment });
    const reference = await options.backend.prepare({ graph, problem, plan: naive });
    matchesNaive = bitIdentical(outputs, await reference.infer(inputs));
    reference.dispose();
  }
  const latencyMs = summarizeLatency(samples, options.seed);
  let peer: PeerReport | undefined;
  if (options.peer) {
    const run = await runOnnxRuntime(graph, inputs, { warmup: options.warmup, repetitions: options.repetitions });
    const peerLatency = summarizeLatency(run.samples, options.seed);
    peer = { runtime: run.runtime, latencyMs: peerLatency, ratio: latencyMs.median / peerLatency.median, relativeError: relativeError(outputs, run.outputs) };
  }
  return {
    backend: options.backend.kind,
    planner: options.planner.id,
    footprint: plan.footprint,
    latencyMs,
    ...(deviceSamples.length === samples.length && samples.length > 0 ? { deviceMs: summarizeLatency(deviceSamples, options.seed) } : {}),
    matchesNaive,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    device: await options.backend.device(),
    ...(peer ? { peer } : {}),
  };
}
