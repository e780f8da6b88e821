import { parseSchedule, SCHEDULE_FORMS, type Schedule } from '../../graph/schedule.ts';
import { findPlanner, UnknownPlannerError } from '../../planners/registry.ts';
import { JsonFields } from '../json-fields.ts';
import type { StudyConfig } from '../study.ts';
import { parseThesis, type ThesisFigures } from './parallel-groups-thesis.ts';
import { maxWorkers } from '../../backends/cpu-parallel/cpu-parallel-backend.ts';
import { kindsWhere, type BackendKind } from '../../backends/registry.ts';

/** What a row runs on: the sequential CPU, or a backend that runs a step's operators at once. */
const ROW_BACKENDS: readonly BackendKind[] = ['cpu', ...kindsWhere('parallelSteps')];

/**
 * The file of the parallel-groups study (experiments/parallel-groups.json): the MindSpore
 * Vulkan thesis' table (../shared/paper/README.md, section 5) on our networks and CPU, a
 * sweep of the number of groups, a look at what a WebGPU adapter makes of a step, and the
 * thesis' published figures as reference data.
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
  /** One of ROW_BACKENDS. */
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

const TOP = ['$comment', 'study', 'name', 'title', 'networks', 'rows', 'sweep', 'webgpu', 'workers', 'repetitions', 'warmup', 'seed', 'alignment', 'quick', 'thesis'];

export function parseParallelGroups(data: Record<string, unknown>, file: string): ParallelGroupsConfig {
  const j = new JsonFields(file);
  const planner = (value: unknown, path: string): string => {
    const id = j.string(value, path);
    try {
      findPlanner(id);
    } catch (error) {
      if (error instanceof UnknownPlannerError) j.fail(path, error.message);
      throw error;
    }
    return id;
  };
  const schedule = (value: unknown, path: string): Schedule => parseSchedule(value) ?? j.fail(path, `must be ${SCHEDULE_FORMS}; got ${JSON.stringify(value)}.`);

  j.only(data, TOP, '$');
  const networks = j.array(data.networks, '$.networks').map((entry, k): GroupsNetwork => {
    const path = `$.networks[${k}]`;
    const spec = j.object(entry, path);
    j.only(spec, ['source', 'label', 'quickSource', 'thesis'], path);
    const source = j.string(spec.source, `${path}.source`);
    return {
      source,
      label: j.string(spec.label, `${path}.label`),
      quickSource: spec.quickSource === undefined ? source : j.string(spec.quickSource, `${path}.quickSource`),
      ...(spec.thesis === undefined ? {} : { thesis: j.string(spec.thesis, `${path}.thesis`) }),
    };
  });
  const labels = networks.map((n) => n.label);
  if (new Set(labels).size !== labels.length) j.fail('$.networks', 'every label must be different.');
  const thesisNames = networks.flatMap((n) => (n.thesis === undefined ? [] : [n.thesis]));
  if (new Set(thesisNames).size !== thesisNames.length) j.fail('$.networks', 'every "thesis" name must be different.');
  const label = (value: unknown, path: string): string => {
    const text = j.string(value, path);
    if (!labels.includes(text)) j.fail(path, `"${text}" is not the label of one of $.networks.`);
    return text;
  };
  const rows = j.array(data.rows, '$.rows').map((entry, k): GroupsRow => {
    const path = `$.rows[${k}]`;
    const spec = j.object(entry, path);
    j.only(spec, ['id', 'label', 'schedule', 'planner', 'backend', 'extra'], path);
    return {
      id: j.string(spec.id, `${path}.id`),
      label: j.string(spec.label, `${path}.label`),
      schedule: schedule(spec.schedule, `${path}.schedule`),
      planner: planner(spec.planner, `${path}.planner`),
      backend: j.choice(spec.backend, `${path}.backend`, ROW_BACKENDS),
      extra: spec.extra === undefined ? false : j.boolean(spec.extra, `${path}.extra`),
    };
  });
  if (new Set(rows.map((r) => r.id)).size !== rows.length) j.fail('$.rows', 'every id must be different.');
  const labelList = (value: unknown, path: string): string[] => {
    const list = j.array(value, path).map((n, k) => label(n, `${path}[${k}]`));
    if (new Set(list).size !== list.length) j.fail(path, 'names a network twice.');
    return list;
  };
  const sweepSpec = j.object(data.sweep, '$.sweep');
  j.only(sweepSpec, ['networks', 'groups', 'planner'], '$.sweep');
  const groups = j.array(sweepSpec.groups, '$.sweep.groups').map((g, k) => j.integer(g, `$.sweep.groups[${k}]`, 1));
  if (new Set(groups).size !== groups.length) j.fail('$.sweep.groups', 'names a number of groups twice.');
  const sweep: GroupsSweep = {
    networks: sweepSpec.networks === undefined ? labels : labelList(sweepSpec.networks, '$.sweep.networks'),
    groups,
    planner: planner(sweepSpec.planner, '$.sweep.planner'),
  };
  let webgpu: GroupsWebGpu | undefined;
  if (data.webgpu !== undefined) {
    const spec = j.object(data.webgpu, '$.webgpu');
    j.only(spec, ['networks', 'schedules', 'planner'], '$.webgpu');
    webgpu = {
      networks: labelList(spec.networks, '$.webgpu.networks'),
      schedules: j.array(spec.schedules, '$.webgpu.schedules').map((s, k) => schedule(s, `$.webgpu.schedules[${k}]`)),
      planner: planner(spec.planner, '$.webgpu.planner'),
    };
  }
  const quick = j.object(data.quick ?? {}, '$.quick');
  j.only(quick, ['repetitions', 'warmup', 'sweepNetworks', 'webgpuNetworks'], '$.quick');
  const thesis = parseThesis(
    j,
    data.thesis,
    thesisNames,
    rows.map((r) => r.id),
  );
  return {
    name: j.name(data.name, '$.name'),
    title: data.title === undefined ? j.name(data.name, '$.name') : j.string(data.title, '$.title'),
    networks,
    rows,
    sweep,
    ...(webgpu ? { webgpu } : {}),
    ...(data.workers === undefined ? {} : { workers: workerCount(j, data.workers) }),
    repetitions: j.integer(data.repetitions ?? 10, '$.repetitions', 1),
    warmup: j.integer(data.warmup ?? 2, '$.warmup', 0),
    seed: j.integer(data.seed ?? 1, '$.seed', 0),
    alignment: j.integer(data.alignment ?? 64, '$.alignment', 4),
    quick: {
      repetitions: j.integer(quick.repetitions ?? 3, '$.quick.repetitions', 1),
      warmup: j.integer(quick.warmup ?? 1, '$.quick.warmup', 0),
      ...(quick.sweepNetworks === undefined ? {} : { sweepNetworks: quickSweep(j, labelList(quick.sweepNetworks, '$.quick.sweepNetworks'), sweep) }),
      ...(quick.webgpuNetworks === undefined ? {} : { webgpuNetworks: labelList(quick.webgpuNetworks, '$.quick.webgpuNetworks') }),
    },
    thesis,
  };
}

/** `--quick` sweeps some of the sweep's networks, never one the full run leaves out. */
function quickSweep(j: JsonFields, networks: string[], sweep: GroupsSweep): string[] {
  const outside = networks.find((n) => !sweep.networks.includes(n));
  if (outside !== undefined) j.fail('$.quick.sweepNetworks', `"${outside}" is not one of $.sweep.networks; the quick sweep is part of the full one.`);
  return networks;
}

/** The worker threads of the parallel rows: at most one per core of the machine that runs the study. */
function workerCount(j: JsonFields, value: unknown): number {
  const workers = j.integer(value, '$.workers', 1);
  if (workers > maxWorkers()) j.fail('$.workers', `${workers} workers are more than this machine's ${maxWorkers()} cores; the cpu-parallel backend runs at most one worker per core.`);
  return workers;
}
