import { parseSchedule, type Schedule } from '../../graph/schedule.ts';
import { findPlanner } from '../../planners/registry.ts';
import { UnknownPlannerError } from '../../planners/unknown-planner-error.ts';
import type { StudyConfig } from '../study.ts';
import { parallelGroupsSchema } from './parallel-groups-schema.ts';
import { checkThesis, type ThesisFigures } from './parallel-groups-thesis.ts';
import { checkFile, type Fail, failIn } from '../file-check.ts';
import { maxWorkers } from '../../backends/cpu-parallel/cpu-parallel-backend.ts';
import type { BackendKind } from '../../backends/registry.ts';

/**
 * The file of the parallel-groups study (experiments/parallel-groups.json): the MindSpore
 * Vulkan thesis' table (../shared/paper/README.md, section 5) on our networks and CPU, a
 * sweep of the number of groups, a look at what a WebGPU adapter makes of a step, and the
 * thesis' published figures as reference data. Its shape is checked by its schema
 * (parallel-groups-schema.ts); what one field says of another, here.
 */
export interface ParallelGroupsConfig extends StudyConfig {
  readonly networks: readonly GroupsNetwork[];
  /** The table's rows, in order; every network runs every row. */
  readonly rows: readonly GroupsRow[];
  readonly sweep: GroupsSweep;
  readonly webgpu?: GroupsWebGpu;
  /** Threads of the parallel rows; absent: the number of cores of the machine that runs them. */
  readonly workers?: number;
  readonly repetitions: number;
  readonly warmup: number;
  readonly seed: number;
  /** Offsets alignment in bytes (64: whole cache lines, so that two workers never write one line). */
  readonly alignment: number;
  /**
   * What `--quick` changes: each network's quick source, these counts, the networks of the
   * sweep and of the WebGPU look (default all of their own): the sweep on every network
   * would double a quick run, and the table's 1- and 2-group rows are sweep points anyway.
   */
  readonly quick: { readonly repetitions: number; readonly warmup: number; readonly sweepNetworks?: readonly string[]; readonly webgpuNetworks?: readonly string[] };
  readonly thesis: ThesisFigures;
}

export interface GroupsNetwork {
  readonly source: string;
  readonly label: string;
  /** The source `--quick` runs (a smaller input). */
  readonly quickSource: string;
  /** Its name in the thesis' table, where the thesis has it. */
  readonly thesis?: string;
}

export interface GroupsRow {
  readonly id: string;
  readonly label: string;
  readonly schedule: Schedule;
  readonly planner: string;
  /** One of ROW_BACKENDS (parallel-groups-schema.ts). */
  readonly backend: BackendKind;
  /** A row of ours beside the thesis' (not in its table). */
  readonly extra: boolean;
}

/** Memory and latency against the number of groups, network by network. */
export interface GroupsSweep {
  /** Networks' labels (the file's `networks`; absent there: every network). */
  readonly networks: readonly string[];
  readonly groups: readonly number[];
  readonly planner: string;
}

/** What a WebGPU adapter makes of a step's dispatches: schedules in one compute pass, shared-objects plans. */
export interface GroupsWebGpu {
  /** Networks' labels. */
  readonly networks: readonly string[];
  readonly schedules: readonly Schedule[];
  readonly planner: string;
}

export function parseParallelGroups(data: Record<string, unknown>, file: string): ParallelGroupsConfig {
  const o = checkFile(parallelGroupsSchema(), data, file);
  const fail = failIn(file);
  // What the schema cannot decide: each id must name a registered planner.
  const planner = (id: string, path: string): string => {
    try {
      findPlanner(id);
    } catch (error) {
      if (error instanceof UnknownPlannerError) fail(path, error.message);
      throw error;
    }
    return id;
  };
  // The schema has checked every schedule; this gives its type.
  const schedule = (value: string): Schedule => parseSchedule(value)!;

  const networks = o.networks.map(
    (spec): GroupsNetwork => ({ source: spec.source, label: spec.label, quickSource: spec.quickSource ?? spec.source, ...(spec.thesis === undefined ? {} : { thesis: spec.thesis }) }),
  );
  const labels = networks.map((n) => n.label);
  if (new Set(labels).size !== labels.length) fail('$.networks', 'every label must be different.');
  const thesisNames = networks.flatMap((n) => (n.thesis === undefined ? [] : [n.thesis]));
  if (new Set(thesisNames).size !== thesisNames.length) fail('$.networks', 'every "thesis" name must be different.');
  const rows = o.rows.map(
    (spec, k): GroupsRow => ({
      id: spec.id,
      label: spec.label,
      schedule: schedule(spec.schedule),
      planner: planner(spec.planner, `$.rows[${k}].planner`),
      backend: spec.backend,
      extra: spec.extra ?? false,
    }),
  );
  if (new Set(rows.map((r) => r.id)).size !== rows.length) fail('$.rows', 'every id must be different.');
  const labelList = (list: readonly string[], path: string): string[] => {
    list.forEach((name, k) => {
      if (!labels.includes(name)) fail(`${path}[${k}]`, `"${name}" is not the label of one of $.networks.`);
    });
    if (new Set(list).size !== list.length) fail(path, 'names a network twice.');
    return [...list];
  };
  const groups = o.sweep.groups;
  if (new Set(groups).size !== groups.length) fail('$.sweep.groups', 'names a number of groups twice.');
  const sweep: GroupsSweep = {
    networks: o.sweep.networks === undefined ? labels : labelList(o.sweep.networks, '$.sweep.networks'),
    groups,
    planner: planner(o.sweep.planner, '$.sweep.planner'),
  };
  const webgpu: GroupsWebGpu | undefined = o.webgpu && {
    networks: labelList(o.webgpu.networks, '$.webgpu.networks'),
    schedules: o.webgpu.schedules.map(schedule),
    planner: planner(o.webgpu.planner, '$.webgpu.planner'),
  };
  const quick = o.quick ?? {};
  const thesis = checkThesis(
    fail,
    o.thesis,
    thesisNames,
    rows.map((r) => r.id),
  );
  return {
    name: o.name,
    title: o.title ?? o.name,
    networks,
    rows,
    sweep,
    ...(webgpu ? { webgpu } : {}),
    ...(o.workers === undefined ? {} : { workers: workerCount(fail, o.workers) }),
    repetitions: o.repetitions ?? 10,
    warmup: o.warmup ?? 2,
    seed: o.seed ?? 1,
    alignment: o.alignment ?? 64,
    quick: {
      repetitions: quick.repetitions ?? 3,
      warmup: quick.warmup ?? 1,
      ...(quick.sweepNetworks === undefined ? {} : { sweepNetworks: quickSweep(fail, labelList(quick.sweepNetworks, '$.quick.sweepNetworks'), sweep) }),
      ...(quick.webgpuNetworks === undefined ? {} : { webgpuNetworks: labelList(quick.webgpuNetworks, '$.quick.webgpuNetworks') }),
    },
    thesis,
  };
}

/** `--quick` sweeps some of the sweep's networks, never one the full run leaves out. */
function quickSweep(fail: Fail, networks: string[], sweep: GroupsSweep): string[] {
  const outside = networks.find((n) => !sweep.networks.includes(n));
  if (outside !== undefined) fail('$.quick.sweepNetworks', `"${outside}" is not one of $.sweep.networks; the quick sweep is part of the full one.`);
  return networks;
}

/** The worker threads of the parallel rows: at most one per core of the machine that runs the study. */
function workerCount(fail: Fail, workers: number): number {
  if (workers > maxWorkers()) fail('$.workers', `${workers} workers are more than this machine's ${maxWorkers()} cores; the cpu-parallel backend runs at most one worker per core.`);
  return workers;
}
