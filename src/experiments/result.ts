import type { LowerBounds } from '../core/bounds.ts';
import type { Approach } from '../core/plans.ts';
import type { MemoryReport } from '../backends/execution-report.ts';
import type { LatencySummary } from '../backends/latency.ts';
import type { OperatorOrder } from '../graph/lifetimes.ts';

/**
 * The lower bounds of a network under the operator order the experiment did not use: the
 * bound depends on the order, which the paper fixes (issue 7 reports both).
 */
export interface OtherOrderBounds {
  readonly order: OperatorOrder;
  readonly lowerBounds: LowerBounds;
}

/** Planning time over the repetitions of one cell (milliseconds). */
export interface TimingSummary {
  readonly runs: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** Median absolute deviation: the spread that outliers do not move. */
  readonly mad: number;
}

/**
 * One finished (model, planner, backend) cell of an experiment: one line of
 * `results.jsonl`. Every number comes from a plan the verifier accepted.
 */
export interface CellResult {
  readonly experiment: string;
  /** The source as the experiment names it (`zoo:mobilenet-v2`, a path). */
  readonly model: string;
  /** What tables print for it (`MobileNet v2`). */
  readonly modelLabel: string;
  readonly planner: string;
  readonly plannerTitle: string;
  /** The planner's own approach; a shared-objects planner may sit in an offsets table. */
  readonly plannerApproach: Approach;
  readonly backend: string;
  readonly records: number;
  readonly operators: number;
  /** Bytes: the sum of objects for shared objects (also when laid out in an offsets table), else the arena. */
  readonly footprint: number;
  readonly naive: number;
  readonly lowerBounds: LowerBounds;
  /** Over the lower bound of the experiment's approach. */
  readonly ratioToLowerBound: number;
  readonly ratioToNaive: number;
  readonly valid: boolean;
  readonly timeMs: TimingSummary;
  /** Networks only: the lower bounds under the other operator order. */
  readonly otherOrder?: OtherOrderBounds;
  /** Exact planners only: proven optimal, and the lower bound their search proved (bytes). */
  readonly optimal?: boolean;
  readonly bound?: number;
  /** Executing backends only: inference latency inside this plan. */
  readonly latencyMs?: LatencySummary;
  /** Executing backends with a device clock (WebGPU timestamp queries): the device's own time per inference. */
  readonly deviceMs?: LatencySummary;
  /** A backend with rounds > 1: the turns the cell took, each measured afresh; latencyMs is over all of them, memory and device are the first turn's. */
  readonly rounds?: number;
  /** Executing backends only: memory planned, allocated and measured in the isolated process that ran the plan. */
  readonly memory?: MemoryReport;
  /** Executing backends only: outputs bit-identical to the naive plan's (null: not checked). */
  readonly matchesNaive?: boolean | null;
  /** Executing backends only: the peer runtime's latency on the same network, and ours over it. */
  readonly peer?: { readonly runtime: string; readonly latencyMs: LatencySummary; readonly ratio: number; readonly relativeError: number };
  readonly device?: Readonly<Record<string, unknown>>;
}
