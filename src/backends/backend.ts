import type { Problem } from '../core/problem.ts';
import type { Graph } from '../graph/ir.ts';
import type { Steps } from '../graph/schedule.ts';
import type { VerifiedResult } from '../planners/plan-and-verify.ts';

/** What a backend says about where it ran: recorded with every measurement. */
export interface DeviceInfo {
  readonly backend: string;
  readonly [detail: string]: unknown;
}

/**
 * What a prepared network holds, in bytes, counted where the backend allocates it (not
 * inferred from the plan): the figures `memplan exec` reports beside the measured peak.
 */
export interface BackendMemory {
  /** The planned intermediate tensors: the arena, or the object buffers. */
  readonly intermediates: number;
  /**
   * Graph inputs and outputs: buffers of their own where the plan does not cover them, and
   * the arrays the outputs are handed back in.
   */
  readonly io: number;
  /** Weights and other constants, one copy each: the form the kernels compute with. */
  readonly weights: number;
  /** Kernel scratch the plan does not hold (im2col tiles, staged operands, the SIMD engine's memory): its high-water so far. */
  readonly scratch: number;
  /**
   * The executor's own start-up beside the network's, where the backend measures it itself;
   * absent: what opening the backend added before the baseline (measure-job.ts).
   */
  readonly runtime?: number;
  /**
   * What receiving and checking the job and a dry run of it (its kernels compiled for these
   * shapes, its memory let go) left in the process, measured between the two baselines of a
   * backend that takes the second (measure-job.ts); absent otherwise.
   */
  readonly job?: number;
  /** Device backends: bytes of every device buffer created, by what it holds. */
  readonly device?: { readonly intermediates: number; readonly io: number; readonly weights: number; readonly other: number };
}

/**
 * A network ready to run inside one verified plan: intermediate tensors live exactly where
 * the plan puts them (one arena for offsets, one buffer per object for shared objects).
 */
export interface PreparedNetwork {
  /** What it holds now (scratch: the high-water of the inferences so far). */
  memory(): BackendMemory;
  /**
   * Runs the network once on these graph inputs; returns copies of the graph outputs, in
   * arrays the network owns and reuses: they hold this inference's values until the next
   * one (copy them to keep them longer). Nothing is allocated per inference.
   */
  infer(inputs: ReadonlyMap<string, Float32Array>): Promise<Map<string, Float32Array>>;
  /**
   * Milliseconds the device itself spent on the last inference, by its own clock (WebGPU
   * timestamp queries), without the host's uploads and readbacks; absent where the backend
   * has no such clock.
   */
  readonly lastDeviceMs?: number | undefined;
  /** Backends that run a step's operators at once (cpu-parallel): the pool and its step timings. */
  readonly parallel?: ParallelRun;
  /**
   * Runs one inference, timing every operator (its outputs are not returned): for a trace
   * of the run (`memplan exec --trace`). Absent where the backend cannot time its operators.
   */
  trace?(inputs: ReadonlyMap<string, Float32Array>): Promise<OperatorSpan[]>;
  /** Streaming backends (budgeted): what loading weights cost so far. */
  streamingStats?(): StreamingStats;
  dispose(): void;
}

/**
 * Budgeted execution (backends/budgeted/): the plan's one buffer holds activations,
 * weights and scratch; weights are read from a file into it as the plan says.
 */
export interface StreamingRequest {
  /** The weights file, in the layout of budgeted/weights-file.ts. */
  readonly weightsFile: string;
  /**
   * 'overlapped' (FlexNN): a loader thread reads weights ahead as far as the plan allows;
   * 'on-demand': each layer's weights when its turn comes, nothing overlapped.
   */
  readonly loading: 'overlapped' | 'on-demand';
  /** Bytes of the one buffer: the budget, or the plan's footprint where there is none. */
  readonly bufferBytes: number;
  /** Record the order of loads and computes (see StreamingStats.trace). */
  readonly trace?: boolean;
  /** How the weights file is read; absent: through the page cache, at the device's own speed. */
  readonly reads?: WeightReads;
}

/** How a streaming backend reads its weights file. */
export interface WeightReads {
  /** Bypass the page cache (O_DIRECT) where the file system takes it: the storage is read, not memory. */
  readonly direct: boolean;
  /** A stated storage speed the reads are held to (io/storage-bandwidth.ts); absent: the device's own. */
  readonly bytesPerSecond?: number;
}

export interface StreamingStats {
  /** Per inference so far (warm-ups included): milliseconds the compute thread waited for loads. */
  readonly ioStallMs: readonly number[];
  /** Bytes read from the weights file per inference. */
  readonly bytesLoaded: number;
  /** Reads per inference. */
  readonly loads: number;
  /** How the reads went: past the page cache or through it (a file system without O_DIRECT), and the speed they were held to (null: the device's own). */
  readonly reads: { readonly direct: boolean; readonly bytesPerSecond: number | null };
  /** Milliseconds the loader spent on its reads in the latest inference, one after another (held ones included): bytesLoaded over it is the speed the storage gave. */
  readonly readMs: number;
  /**
   * With `trace`, the latest inference's events in one order both threads share (sequence
   * numbers): each load's weight record, each compute step, when it started and ended.
   */
  readonly trace?: {
    readonly loads: readonly { readonly record: number; readonly start: number; readonly end: number }[];
    readonly computes: readonly { readonly step: number; readonly start: number; readonly end: number }[];
  };
}

/** One operator of a traced inference: where it ran and when (ms since the Unix epoch, the clock every thread shares). */
export interface OperatorSpan {
  /** The node; for a load, the weight record it reads. */
  readonly node: string;
  /** The node's op; 'load' for a loader thread's read of weights (the budgeted executor). */
  readonly op: string;
  /** Its step in the plan's problem (a load: the step of the layer it reads for). */
  readonly step: number;
  /** The thread that ran it: 'compute', 'loader', 'worker 1', ... */
  readonly thread: string;
  readonly start: number;
  readonly end: number;
}

/** A prepared network that runs the operators of a step at once on a pool of threads. */
export interface ParallelRun {
  readonly workers: number;
  /** Operators per step, in step order. */
  readonly stepSizes: readonly number[];
  /** Resident bytes the process grew by when the threads started (their isolates and modules), before any tensor. */
  readonly poolRss: number;
  /** The last inference: wall milliseconds of each step, and milliseconds each worker spent inside kernels. */
  lastRun(): { readonly stepMs: readonly number[]; readonly busyMs: readonly number[] } | undefined;
}

/**
 * How a backend's dry run goes: `inferences` of the job's network, then the network either
 * `kept` to the end of the measured process (V8 returns a freed WebAssembly memory in its own
 * time, which would land inside the measured run and hide part of it) or `released` before
 * the baseline is taken again (a second memory of the network's size would double what a
 * budgeted process holds; the backend gives it back before it resolves dispose's work). A
 * released dry run makes its own inputs, and the measured run's are made inside the measured
 * window: graph I/O is part of a budget.
 */
export interface DryRun {
  readonly inferences: number;
  readonly network: 'kept' | 'released';
}

export interface PrepareRequest {
  /** The graph, with every constant's values (see withSeededWeights). */
  readonly graph: Graph;
  /** The records the plan was made for (ids are tensor names). */
  readonly problem: Problem;
  /** A plan that passed the verifier. */
  readonly plan: VerifiedResult;
  /**
   * Called with a constant's name once the backend holds its values in a form of its own
   * (repacked, or on the device) and no longer reads the graph's copy: the owner of the
   * graph may then drop it, so that only one copy of the weights stays.
   */
  readonly release?: (constant: string) => void;
  /**
   * The steps of the plan's schedule (plannedProblem's), nodes of `graph`: backends that run
   * a step's operators at once need them; the others run `graph` in its order, which lays
   * the steps end to end. Absent: one operator per step.
   */
  readonly steps?: Steps;
  /** Threads of a backend that runs steps on a pool (cpu-parallel); default the number of cores. */
  readonly workers?: number;
  /**
   * Parts each operator's kernel is split into (the records' `threads`: the problem's
   * scratch holds a band per part); default 1. The CPU backends take it: cpu-parallel runs
   * an operator's parts at once on its workers, cpu one after the other.
   */
  readonly threads?: number;
  /** Streaming backends only (and required by them): where the weights come from and how they are loaded. */
  readonly streaming?: StreamingRequest;
  /**
   * Backends that write weights themselves (`writesWeights`): the values of the constants the
   * graph holds none of, handed over a run at a time, so that no whole copy of them exists
   * beside the backend's own.
   */
  readonly weights?: WeightStream;
}

/** Hands every constant's values to `sink` in runs: elements `at` onwards (seeded-weights.ts streamSeededWeights). */
export type WeightStream = (sink: (name: string, values: Float32Array, at: number) => void) => void;

/** One interface for every backend: CPU here; WebGPU and remote devices plug in beside it. */
export interface Backend<Kind extends string = string> {
  /** Its name in the one list of backends (registry.ts), from which every list of kinds derives. */
  readonly kind: Kind;
  /** One line for `memplan list backends`. */
  readonly title: string;
  /**
   * The backend whose naive plan, run one operator at a time, checks this one's outputs bit
   * for bit (a parallel executor is checked against the sequential one); default itself.
   */
  readonly reference?: string;
  /**
   * It times every operator of an inference (PreparedNetwork.trace): `memplan exec --trace`
   * runs on it.
   */
  readonly traces: boolean;
  /**
   * Its weights stream from a file into a budgeted plan's one buffer (PrepareRequest.streaming):
   * it runs only where that file is, so neither an agent's job nor an experiment cell carries it.
   */
  readonly streamsWeights: boolean;
  /** It runs a step's operators at once on a pool of threads (PrepareRequest.steps, workers). */
  readonly parallelSteps: boolean;
  /**
   * The resident memory of the process that runs it can be read (not a browser page's): its
   * report's peak and baseline are measured, not unavailable.
   */
  readonly measuresRss: boolean;
  /**
   * Where this machine runs its jobs (placement.ts localPlacement): `process`, an isolated
   * process that prepares the network through `prepare`; `page`, a browser page that runs a
   * job whole, plan and naive reference alike, so that `prepare` here only refuses.
   */
  readonly runsIn: 'process' | 'page';
  device(): Promise<DeviceInfo>;
  /** Offsets must be multiples of this (e.g. WebGPU's minStorageBufferOffsetAlignment); plans are made with it. */
  requiredAlignment(): Promise<number>;
  /**
   * Its kernels' scratch is planned: the problems it runs are made with the record option
   * `scratch` (a record per node that needs one, graph/layer-memory.ts), and it refuses a plan
   * without them.
   */
  readonly plansScratch?: boolean;
  /**
   * It runs a standalone activation fused into the op that produces it, as TFLite and GPU
   * delegates do: the problems it runs are made with the record option `fuseActivations`
   * (graph/transforms.ts), so that the producer's output, which it would never write, is
   * not planned either (a plan's bytes are the bytes the execution touches).
   */
  readonly fusesActivations?: boolean;
  /**
   * Its kernels run NHWC networks in place and NCHW ones on slower general paths: the
   * problems it runs are made with the record option `nhwc` (graph/to-nhwc.ts), so that an
   * ONNX file's network runs, and is planned, laid out NHWC.
   */
  readonly runsNhwc?: boolean;
  /** It takes weights from PrepareRequest.weights, writing them where it keeps them as they come. */
  readonly writesWeights?: boolean;
  /**
   * It compiles code for the shapes it runs: the measuring path runs each job dry first and
   * takes the baseline again after it (measure-job.ts), as DryRun says.
   */
  readonly dryRun?: DryRun;
  /**
   * Start-up a measured process does before its baseline, beside opening the device: the
   * runtime's own threads (the budgeted backend's loader), whose memory is not the network's.
   */
  open?(): Promise<void>;
  prepare(request: PrepareRequest): Promise<PreparedNetwork>;
}
