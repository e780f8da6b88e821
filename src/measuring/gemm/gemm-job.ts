import { readRss } from '../process-memory.ts';
import { dynamicSchedule } from '../../backends/gemm/dynamic-schedule.ts';
import { executeSchedule, type ExecutionFigures } from '../../backends/gemm/executor.ts';
import { gemmShape } from '../../backends/gemm/gemm-shape.ts';
import { plannedSchedule, planPolicy, type PlannedSchedule, type ResidencyPolicy } from '../../backends/gemm/planned-schedule.ts';
import type { GemmSchedule, SchedulerKind } from '../../backends/gemm/schedule.ts';
import type { StatedSpeeds } from '../../io/storage-device.ts';

/** One out-of-core GEMM, as it crosses into the process that runs it alone. */
export interface GemmJob {
  /** Holds A.tiles and B.tiles (written for this tile size) and C.tiles. */
  readonly dir: string;
  readonly n: number;
  readonly tile: number;
  readonly budget: number;
  readonly scheduler: SchedulerKind;
  readonly directIo: boolean;
  /** Planned scheduler: the plan the harness made (policy and offsets), replayed and verified here. */
  readonly planned?: { readonly policy: ResidencyPolicy; readonly planner: string; readonly offsets: readonly number[] };
  /** The storage speeds transfers are held to (a stated device); absent: this machine's own. */
  readonly storage?: StatedSpeeds;
}

export interface GemmJobResult {
  readonly figures: ExecutionFigures;
  readonly policy: string;
  /** Planned scheduler only: the tile plan's figures (records, arena, the breadth it cannot go below). */
  readonly plan?: { readonly records: number; readonly arena: number; readonly planner: string };
  readonly baselineRss: number;
  readonly peakRss: number;
  readonly rssMethod: string;
}

/** The schedule a job runs: the dynamic one decided here, or the harness's plan replayed (and verified). */
export function scheduleFor(job: Pick<GemmJob, 'n' | 'tile' | 'budget' | 'scheduler' | 'planned'>): GemmSchedule {
  const shape = gemmShape(job.n, job.tile);
  if (job.scheduler === 'dynamic') return dynamicSchedule(shape, job.budget);
  if (job.planned === undefined) return plannedSchedule(shape, job.budget);
  const { policy, planner, offsets } = job.planned;
  return planPolicy(shape, policy, { planner, offsets });
}

/** Runs the job in this process (the measured one): schedule, execute, read the peak. */
export async function runGemmJob(job: GemmJob, baselineRss: number): Promise<GemmJobResult> {
  const schedule = scheduleFor(job);
  const figures = await executeSchedule(schedule, gemmShape(job.n, job.tile), job.dir, { directIo: job.directIo, budget: job.budget, storage: job.storage });
  const rss = readRss();
  const plan = isPlanned(schedule) ? { records: schedule.problem.records.length, arena: schedule.arenaBytes, planner: schedule.plan.planner } : undefined;
  return { figures, policy: schedule.policy, ...(plan ? { plan } : {}), baselineRss, peakRss: rss.peakRss, rssMethod: rss.method };
}

function isPlanned(schedule: GemmSchedule): schedule is PlannedSchedule {
  return schedule.scheduler === 'planned';
}
