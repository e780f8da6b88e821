import { epochMs } from '../../../core/clock.ts';

/**
 * The anytime record of an exact search: after how long it held which best arena and
 * which proven bound. A point is kept only when one of the two changes; the last point is
 * the answer. Times are milliseconds since the plan started.
 */
export interface TrajectoryPoint {
  readonly timeMs: number;
  /** Best arena found so far (bytes). */
  readonly footprint: number;
  /** Best lower bound proven so far (bytes). */
  readonly bound: number;
}

export class TrajectoryRecorder {
  readonly points: TrajectoryPoint[] = [];

  /** `startEpochMs`: when the plan started (epochMs()). */
  constructor(private readonly startEpochMs: number) {}

  note(footprint: number, bound: number): void {
    const last = this.points[this.points.length - 1];
    if (last !== undefined && last.footprint === footprint && last.bound === bound) return;
    this.points.push({ timeMs: Math.max(0, epochMs() - this.startEpochMs), footprint, bound });
  }
}

/**
 * Two searches' trajectories as one: at every time either changed, the better arena and
 * the higher bound of the two so far (both bounds are proofs, both arenas are packings).
 */
export function mergeTrajectories(a: readonly TrajectoryPoint[], b: readonly TrajectoryPoint[]): TrajectoryPoint[] {
  const events = [...a.map((p) => ({ p, side: 0 })), ...b.map((p) => ({ p, side: 1 }))].sort((x, y) => x.p.timeMs - y.p.timeMs || x.side - y.side);
  const best = [Infinity, Infinity];
  const bound = [0, 0];
  const merged: TrajectoryPoint[] = [];
  for (const { p, side } of events) {
    best[side] = p.footprint;
    bound[side] = p.bound;
    const point = { timeMs: p.timeMs, footprint: Math.min(best[0], best[1]), bound: Math.max(bound[0], bound[1]) };
    const last = merged[merged.length - 1];
    if (last !== undefined && last.footprint === point.footprint && last.bound === point.bound) continue;
    if (last !== undefined && last.timeMs === point.timeMs) merged[merged.length - 1] = point;
    else merged.push(point);
  }
  return merged;
}

/** The best arena a trajectory held at `timeMs` (Infinity before its first point). */
export function footprintAt(trajectory: readonly TrajectoryPoint[], timeMs: number): number {
  let footprint = Infinity;
  for (const p of trajectory) {
    if (p.timeMs > timeMs) break;
    footprint = p.footprint;
  }
  return footprint;
}

/**
 * The trajectory of the run that made a plan (offsets/exact, offsets/search). It is kept
 * beside the plan, not in it: times differ from run to run, and a plan is a value that
 * repeats for a seed (the planners' determinism tests compare plans whole).
 */
const trajectories = new WeakMap<object, readonly TrajectoryPoint[]>();

export function withTrajectory<T extends object>(plan: T, trajectory: readonly TrajectoryPoint[]): T {
  trajectories.set(plan, trajectory);
  return plan;
}

export function trajectoryOf(plan: object): readonly TrajectoryPoint[] | undefined {
  return trajectories.get(plan);
}

/**
 * `planner` unchanged but for a record of the trajectories of its plans, kept in `sink`
 * by planner id: plan-and-verify reports what the verifier checks, and the command line
 * and the benchmark want the trajectory too.
 */
export function keepingTrajectory<P extends { readonly id: string; plan(...args: never[]): object }>(planner: P, sink: Map<string, readonly TrajectoryPoint[]>): P {
  return {
    ...planner,
    plan: (...args: Parameters<P['plan']>) => {
      const plan = (planner.plan as (...a: Parameters<P['plan']>) => object)(...args);
      const trajectory = trajectoryOf(plan);
      if (trajectory !== undefined) sink.set(planner.id, trajectory);
      return plan;
    },
  };
}
