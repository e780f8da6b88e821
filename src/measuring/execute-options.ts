import type { RecordOptions } from '../graph/lifetimes.ts';
import type { ReceivedPlan } from '../planners/plan-handover.ts';
import type { Planner } from '../planners/planner.ts';
import type { Backend } from '../backends/backend.ts';

/** How often a network runs and on what: what every executor's options share (the budgeted one's too). */
export interface RunSettings {
  readonly repetitions: number;
  readonly warmup: number;
  /** Seed of the weights (when seeded) and of the input. */
  readonly seed: number;
  /** 'seeded' (default): seeded random weights; 'file': the source's own float weights. */
  readonly weights?: 'seeded' | 'file';
  /** How the graph becomes records; the element size is always 4 (fp32 execution). */
  readonly records?: RecordOptions;
}

/** A job: which network runs on which backend, inside which plan, how often, checked how. Where it runs is its Placement (placement.ts). */
export interface ExecuteOptions extends RunSettings {
  readonly backend: Backend;
  /** The planner to plan with here, or a plan made elsewhere (an agent's job), which is verified here and not made again. */
  readonly planner: Planner | ReceivedPlan;
  /** Bytes; raised to what the backend requires (4 for the CPU's float32 views, 256 on most WebGPU devices). */
  readonly alignment?: number;
  /** Also run inside the naive plan and compare outputs bit for bit. */
  readonly verifyByExecution?: boolean;
  /** Also time onnxruntime-node (single thread) on the same network and inputs. */
  readonly peer?: boolean;
  /** Also time onnxruntime-web's WebAssembly build (single thread, after tier-up) on the same network and inputs. */
  readonly webPeer?: boolean;
  /** Threads of a backend that runs steps on a pool (cpu-parallel); default the number of cores. */
  readonly workers?: number;
  /**
   * The outputs of naiveReference for this network and seed, to compare with instead of
   * running the reference again (a study that runs many plans of one network runs it once).
   */
  readonly reference?: ReadonlyMap<string, Float32Array>;
  /** Also time every operator of one more inference (the report's `timeline`: memplan exec --trace). */
  readonly timeline?: boolean;
  /** Pin the measured process to one core (single-thread backends); its device info says where, or why not. */
  readonly pinCore?: boolean;
}
