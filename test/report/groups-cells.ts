import { readFileSync } from 'node:fs';
import type { ExecuteReport } from '../../src/backends/execution-report.ts';
import { parallelGroupsStudy, type GroupsCell } from '../../src/experiments/studies/parallel-groups.ts';
import type { ParallelGroupsConfig } from '../../src/experiments/studies/parallel-groups-config.ts';

export const MiB = 2 ** 20;
const FILE = 'experiments/parallel-groups.json';

/** The committed study file, parsed: its rows, networks and the thesis' figures. */
export const CONFIG: ParallelGroupsConfig = parallelGroupsStudy.parse(JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, unknown>, FILE);

export interface CellSpec {
  readonly network: string;
  readonly row?: string;
  readonly schedule: string;
  readonly backend: string;
  /** Median ms, and its 95% interval (default ± 1 ms). */
  readonly ms: number;
  readonly ci?: readonly [number, number];
  readonly plannedMiB: number;
  readonly weightsMiB?: number;
  readonly scratchMiB?: number;
  readonly peakMiB?: number;
  /** Our sample standard deviation; absent, the cell is as a run recorded before the summary kept mean and sd. */
  readonly sdMs?: number;
  readonly part?: GroupsCell['part'];
}

/** A measured cell of a parallel-groups run, as the study stores it. */
export function groupsCell(spec: CellSpec): GroupsCell {
  const { ms, backend } = spec;
  const ci = spec.ci ?? [ms - 1, ms + 1];
  const planned = spec.plannedMiB * MiB;
  const report = {
    backend,
    planner: 'offsets/greedy-by-size',
    footprint: planned,
    latencyMs: { runs: 15, median: ms, min: ci[0] - 1, max: ci[1] + 1, p90: ci[1], ci95: ci, ...(spec.sdMs === undefined ? {} : { mean: ms + 0.5, sd: spec.sdMs }) },
    matchesNaive: true,
    memory: {
      planned,
      intermediates: planned,
      io: 0,
      weights: (spec.weightsMiB ?? 0) * MiB,
      scratch: (spec.scratchMiB ?? 0) * MiB,
      baselineRss: 50 * MiB,
      peakRss: 50 * MiB + (spec.peakMiB ?? 110) * MiB,
      peakRssDelta: (spec.peakMiB ?? 110) * MiB,
      rest: 0,
      method: 'test',
    },
    peakRssBytes: 160 * MiB,
    device: { backend },
    ...(backend === 'cpu-parallel' ? { parallel: { workers: 4, steps: 85, stepSizes: [], stepMs: [], stepsMs: ms, busyFraction: 0.6, poolRss: 0 } } : {}),
    ...(backend === 'webgpu' ? { deviceMs: { runs: 15, median: ms - 5, min: ms - 6, max: ms - 4, p90: ms - 4, ci95: [ms - 6, ms - 4] } } : {}),
  } as unknown as ExecuteReport;
  return {
    part: spec.part ?? 'table',
    network: spec.network,
    source: `zoo:${spec.network.toLowerCase()}`,
    ...(spec.row ? { row: spec.row } : {}),
    schedule: spec.schedule as GroupsCell['schedule'],
    planner: 'offsets/greedy-by-size',
    backend,
    steps: 85,
    largestStep: 33,
    naive: 90 * MiB,
    bound: 9 * MiB,
    report,
    compiled: true,
  };
}

const ROW_RUNS: Record<string, { schedule: string; backend: string }> = {
  base: { schedule: 'sequential', backend: 'cpu' },
  minimization: { schedule: 'sequential', backend: 'cpu' },
  'layer-wise': { schedule: 'levels', backend: 'cpu-parallel' },
  '1-group': { schedule: 'groups:1', backend: 'cpu-parallel' },
  '2-groups': { schedule: 'groups:2', backend: 'cpu-parallel' },
  '2-groups-best': { schedule: 'groups:2', backend: 'cpu-parallel' },
};

/**
 * A network's table rows as the thesis has them, times scaled by `scale` (our CPU is
 * not their GPU) with the thesis' spans as our intervals, and its MB as our planned MiB
 * (no weights): every ratio the same as the thesis'. `change` replaces rows' figures.
 */
export function thesisLikeRows(network: string, scale: number, change: Record<string, Partial<CellSpec>> = {}): GroupsCell[] {
  const name = CONFIG.networks.find((n) => n.label === network)!.thesis!;
  return Object.entries(CONFIG.thesis.values[name]).map(([row, t]) => {
    const spec: CellSpec = {
      network,
      row,
      ...ROW_RUNS[row],
      ms: t.ms! * scale,
      ci: [(t.ms! - t.twoSigmaMs!) * scale, (t.ms! + t.twoSigmaMs!) * scale],
      plannedMiB: t.mb!,
      ...change[row],
    };
    return groupsCell(spec);
  });
}

export const sweepCell = (network: string, groups: number, ms: number, ci?: readonly [number, number]): GroupsCell =>
  groupsCell({ network, schedule: `groups:${groups}`, backend: 'cpu-parallel', ms, ...(ci ? { ci } : {}), plannedMiB: 10, part: 'sweep' });
