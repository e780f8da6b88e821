import { median } from 'simple-statistics';

/** The step timings of a parallel backend (see ParallelRun), one entry per timed inference. */
export interface MeasuredParallel {
  readonly workers: number;
  readonly stepSizes: readonly number[];
  readonly poolRss: number;
  /** Wall milliseconds of each step, per timed inference. */
  readonly stepMs: readonly (readonly number[])[];
  /** Milliseconds each worker spent inside kernels, per timed inference. */
  readonly busyMs: readonly (readonly number[])[];
}

/**
 * What a parallel execution reports (ExecuteReport.parallel): how many workers, how the
 * graph was cut into steps, how long each step took (median over the timed inferences) and
 * how busy the workers were while the steps ran.
 */
export interface ParallelReport {
  readonly workers: number;
  readonly steps: number;
  /** Operators per step. */
  readonly stepSizes: readonly number[];
  /** Each step's wall time (ms), median over the timed inferences. */
  readonly stepMs: readonly number[];
  /** Wall time of all steps (ms), median over the timed inferences. */
  readonly stepsMs: number;
  /**
   * The workers' time inside kernels over the time they were there to work: sum of their
   * busy times / (workers x wall time of the steps), median over the timed inferences. 1/W
   * for a pool whose workers take turns; near 1 when they all compute at once.
   */
  readonly busyFraction: number;
  /** Resident bytes the process grew by when the worker threads started (their isolates and modules). */
  readonly poolRss: number;
}

export function parallelReport(measured: MeasuredParallel): ParallelReport {
  const runs = measured.stepMs.length;
  const round = (v: number): number => Math.round(v * 1000) / 1000;
  const stepMs = measured.stepSizes.map((_, s) => (runs === 0 ? 0 : round(median(measured.stepMs.map((run) => run[s])))));
  const totals = measured.stepMs.map((run) => run.reduce((sum, ms) => sum + ms, 0));
  const fractions = measured.busyMs.map((busy, k) => (totals[k] > 0 ? busy.reduce((sum, ms) => sum + ms, 0) / (measured.workers * totals[k]) : 0));
  return {
    workers: measured.workers,
    steps: measured.stepSizes.length,
    stepSizes: measured.stepSizes,
    stepMs,
    stepsMs: runs === 0 ? 0 : round(median(totals)),
    busyFraction: runs === 0 ? 0 : Math.round(median(fractions) * 1000) / 1000,
    poolRss: measured.poolRss,
  };
}
