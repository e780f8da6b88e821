import type { Problem } from '../core/problem.ts';
import type { BackendMemory, DeviceInfo, OperatorSpan, StreamingStats } from './backend.ts';
import type { LatencySummary } from './latency.ts';
import type { MeasuredParallel, ParallelReport } from './parallel-report.ts';

/** What the measured process reports. */
export interface MeasureResult {
  /** Wall time of each timed inference (ms). */
  readonly samples: readonly number[];
  /** The device's own time of each, where the backend has a clock (ms). */
  readonly deviceSamples: readonly number[];
  /** The graph outputs of the last inference. */
  readonly outputs: Map<string, Float32Array>;
  readonly memory: BackendMemory;
  /** Resident bytes after start-up and imports, before the job arrived. */
  readonly baselineRss: number;
  /** Peak resident bytes from then through preparation and every inference. */
  readonly peakRss: number;
  readonly rssMethod: string;
  readonly device: DeviceInfo;
  /** A backend that runs a step's operators at once: its pool and every timed inference's step timings. */
  readonly parallel?: MeasuredParallel;
  /** A backend that streams its weights (the budgeted variant): what loading them cost. */
  readonly streaming?: StreamingStats;
  /** With `timeline`: every operator of one more inference, when and on which thread it ran. */
  readonly spans?: readonly OperatorSpan[];
  /** A budgeted job asked to adapt: each later budget's phase, measured on its own. */
  readonly adaptations?: readonly AdaptedPhaseResult[];
}

/** One phase of a run whose budget changed (measuring/budgeted/adapt-budget.ts). */
export interface AdaptedPhaseResult {
  readonly budget: number;
  readonly adaptMs: number;
  readonly planMs: number;
  readonly footprint: number;
  readonly samples: readonly number[];
  readonly outputs: Map<string, Float32Array>;
  /** Peak resident bytes from the budget's change through the phase's last inference. */
  readonly peakRss: number;
  readonly streaming?: StreamingStats;
}

/** One traced inference: its operators (and loads) and the problem whose records they ran in. */
export interface Timeline {
  readonly spans: readonly OperatorSpan[];
  readonly problem: Problem;
}

/** A peer runtime beside our executor (onnxruntime-node, onnxruntime-web): its latency, ours over its, and how far outputs differ. */
export interface PeerReport {
  readonly runtime: string;
  readonly latencyMs: LatencySummary;
  /** Our median over the peer's. */
  readonly ratio: number;
  /** Largest difference over the largest magnitude of the peer's outputs. */
  readonly relativeError: number;
}

/**
 * Memory of one execution (bytes): what the plan asks for, what the backend allocated
 * (counted where it allocates), and what the process that ran the plan alone measured.
 */
export interface MemoryReport extends BackendMemory {
  /** The plan's footprint: the arena, or the sum of the objects. */
  readonly planned: number;
  /** Resident memory of the measured process after start-up and imports, before the network. */
  readonly baselineRss: number;
  /** Its peak resident memory through preparation and every inference. */
  readonly peakRss: number;
  /** peakRss - baselineRss: the figure charts use. */
  readonly peakRssDelta: number;
  /** peakRssDelta less intermediates, io, weights, and scratch: what the figures above do not account for. */
  readonly rest: number;
  /** How the peak was read, and that it was read in an isolated process. */
  readonly method: string;
  /**
   * Figures the backend cannot measure where it runs (a browser page cannot read its
   * process's memory): NaN here, null in JSON, never estimated.
   */
  readonly unavailable?: readonly ('baselineRss' | 'peakRss' | 'peakRssDelta' | 'rest')[];
}

/** The JSON of `memplan exec`. */
export interface ExecuteReport {
  readonly backend: string;
  readonly planner: string;
  readonly footprint: number;
  readonly latencyMs: LatencySummary;
  /** Every timed inference's latency (ms), in the order they ran: what latencyMs summarizes (an experiment's rounds pool them). */
  readonly samplesMs?: readonly number[];
  /** The device's own time of each of them, where deviceMs is given. */
  readonly deviceSamplesMs?: readonly number[];
  /**
   * The device's own time per inference (GPU timestamp queries: the dispatches alone, no
   * upload or readback), when the backend measures it for every repetition; `device.timing`
   * says how it was measured.
   */
  readonly deviceMs?: LatencySummary;
  /** Outputs bit-identical to the naive plan's (run in a process of its own); null when not checked. */
  readonly matchesNaive: boolean | null;
  readonly memory: MemoryReport;
  /** Deprecated alias of memory.peakRss. */
  readonly peakRssBytes: number;
  readonly device: DeviceInfo;
  /** onnxruntime-node, native (with the `peer` option). */
  readonly peer?: PeerReport;
  /** Every peer timed, native first, then onnxruntime-web's WebAssembly build (with `webPeer`). */
  readonly peers?: readonly PeerReport[];
  /** A backend that runs a step's operators at once (cpu-parallel): its steps, their timings, and how busy its workers were. */
  readonly parallel?: ParallelReport;
  /** With the `timeline` option: every operator of one inference, where the backend can time them (not part of exec's JSON). */
  readonly timeline?: Timeline;
}

/** The memory report of a measured process's result. */
export function memoryReport(planned: number, result: MeasureResult): MemoryReport {
  const { intermediates, io, weights, scratch, device, job } = result.memory;
  const runtime = result.memory.runtime ?? 0;
  const peakRssDelta = result.peakRss - result.baselineRss;
  return {
    planned,
    intermediates,
    io,
    weights,
    scratch,
    runtime,
    ...(job !== undefined ? { job } : {}),
    baselineRss: result.baselineRss,
    peakRss: result.peakRss,
    peakRssDelta,
    rest: peakRssDelta - intermediates - io - weights - scratch,
    method: `${result.rssMethod}; measured in an isolated process that ran this plan alone`,
    ...(device ? { device } : {}),
  };
}
