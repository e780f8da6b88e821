import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { APPROACHES, type Approach } from '../core/plans.ts';
import { servedKinds, unservedBackend, type BackendKind } from '../backends/registry.ts';
import { OPERATOR_ORDERS, type OperatorOrder, type RecordOptions } from '../graph/lifetimes.ts';
import { parseSchedule, SCHEDULE_FORMS } from '../graph/schedule.ts';
import { JsonSyntaxError, scanJson } from '../io/json-positions.ts';
import { findPlanner, UnknownPlannerError } from '../planners/registry.ts';

/**
 * An experiment file (`experiments/*.json`): which networks, planners and backends, how
 * graphs become records, how often to time, and how to report. Every field is checked
 * here, with errors that name the file and the JSON path of the field.
 */
export interface ModelEntry {
  /** `zoo:...`, `synthetic:...`, or a path (relative to the experiment file). */
  readonly source: string;
  /** Column heading in tables. */
  readonly label: string;
  /** A file that may be absent (e.g. ../shared traces): its cells are skipped with a note. */
  readonly optional: boolean;
}

/** A planner reference that names a module (a path ending in .ts, .mts, .js or .mjs), not a registry id. */
export function isPlannerModule(ref: string): boolean {
  return /\.(m?[jt]s)$/.test(ref);
}

export interface PlannerEntry {
  /** A registry id, or the path of a module exporting a planner (relative to the experiment file). */
  readonly ref: string;
  readonly module: boolean;
}

/** `plan-only` plans and verifies; an executing backend also runs each network inside each plan. */
export interface ExecutionSettings {
  readonly repetitions: number;
  readonly warmup: number;
  /** Also time onnxruntime-node on the same network (once per network; local backends). */
  readonly peer: boolean;
  /** Run inside the naive plan too and require bit-identical outputs. */
  readonly verifyByExecution: boolean;
  /** cpu: pin each measured process to one core (Linux, taskset); its device info says where, or why not. */
  readonly pinCore?: boolean;
}

export type BackendSpec =
  | { readonly kind: 'plan-only' }
  /**
   * cpu-parallel runs a schedule's steps on as many worker threads as the machine has cores;
   * browser runs WebGPU in a headless browser ($MEMPLAN_BROWSER, else the first on PATH).
   */
  | ({ readonly kind: BackendKind } & ExecutionSettings)
  /** A `memplan agent` on another machine runs the cells with its own backend. */
  | ({
      readonly kind: 'remote';
      readonly url: string;
      /** The agent's token, or `env:NAME` to read it from the environment when the run starts. */
      readonly token: string;
      readonly backend: string;
      /** Names the device in results (the cell's backend); default `remote:<backend>@<host:port>`. */
      readonly label: string;
      /** Seconds to wait for each cell's answer; default the agent's own limit + 60. */
      readonly timeoutSeconds?: number;
      /** A browser that joined the agent as a device (`memplan list devices`): the cells run there. */
      readonly device?: string;
    } & ExecutionSettings);
/** What `kind` may name: no execution, a backend a cell can run here (registry.ts servedKinds), or an agent. */
export function backendKinds(): string[] {
  return ['plan-only', ...servedKinds(), 'remote'];
}

export type Unit = 'MiB' | 'MB' | 'KiB' | 'bytes';
export const UNITS: readonly Unit[] = ['MiB', 'MB', 'KiB', 'bytes'];
export const UNIT_BYTES: Record<Unit, number> = { MiB: 2 ** 20, MB: 1e6, KiB: 1024, bytes: 1 };

export interface ReportOptions {
  readonly unit: Unit;
  /** Planner ids in the order table rows list them; default: the planners' order. */
  readonly rows?: readonly string[];
  /** Published values (in `unit`) printed beside ours: planner id -> model source -> value. */
  readonly reference?: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /**
   * Charts `memplan report` draws: footprint over the bound per network, time against
   * size, latency against memory, and/or footprint over the best proven bound against time.
   */
  readonly charts: readonly ChartKind[];
}

export type ChartKind = 'footprint' | 'scaling' | 'latency' | 'quality' | 'memory';
export const CHART_KINDS: readonly ChartKind[] = ['footprint', 'scaling', 'latency', 'quality', 'memory'];

export interface Experiment {
  readonly name: string;
  readonly title: string;
  readonly approach: Approach;
  readonly models: readonly ModelEntry[];
  readonly records: RecordOptions;
  readonly planners: readonly PlannerEntry[];
  readonly backends: readonly BackendSpec[];
  readonly repetitions: number;
  readonly seed: number;
  readonly alignment: number;
  /** Seconds each search planner (offsets/exact, offsets/search, ...) may run per cell; default 10. */
  readonly timeLimitSeconds: number;
  readonly report: ReportOptions;
  /** The experiment file; relative paths in it are relative to its folder. */
  readonly file: string;
}

export class ExperimentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExperimentError';
  }
}

export async function loadExperiment(file: string): Promise<Experiment> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ExperimentError(`${file}: ${code === 'ENOENT' ? 'no such experiment file' : `cannot be read (${code})`}.`);
  }
  return parseExperiment(text, file);
}

// `scratch` is not an experiment's to set: the executing backend plans its scratch (execute.ts).
const RECORD_KEYS: Record<Exclude<keyof RecordOptions, 'scratch'>, 'boolean' | 'size' | 'order' | 'schedule'> = {
  includeGraphIO: 'boolean',
  elementSize: 'size',
  roundChannelsTo4: 'boolean',
  fuseActivations: 'boolean',
  dropIdentityOps: 'boolean',
  order: 'order',
  schedule: 'schedule',
};
const TOP_KEYS = ['$comment', 'name', 'title', 'approach', 'models', 'records', 'planners', 'backends', 'repetitions', 'seed', 'alignment', 'timeLimitSeconds', 'report'];

export function parseExperiment(text: string, file: string): Experiment {
  try {
    scanJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new ExperimentError(`${file}:${error.line}:${error.column}: invalid JSON: ${error.problem}.`);
    throw error;
  }
  const data: unknown = JSON.parse(text);
  const fail = (path: string, problem: string): never => {
    throw new ExperimentError(`${file}: ${path}: ${problem}`);
  };
  const object = (value: unknown, path: string): Record<string, unknown> => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(path, 'must be an object.');
    return value as Record<string, unknown>;
  };
  const string = (value: unknown, path: string): string => {
    if (typeof value !== 'string' || value.trim() === '') fail(path, 'must be a non-empty string.');
    return value as string;
  };
  const whole = (value: unknown, path: string, min: number): number => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) fail(path, `must be a whole number >= ${min}.`);
    return value as number;
  };
  const positive = (value: unknown, path: string): number => {
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) fail(path, 'must be a number > 0.');
    return value as number;
  };
  const list = (value: unknown, path: string): unknown[] => {
    if (!Array.isArray(value) || value.length === 0) fail(path, 'must be a non-empty array.');
    return value as unknown[];
  };
  const noStrangers = (value: Record<string, unknown>, allowed: readonly string[], path: string): void => {
    for (const key of Object.keys(value)) if (!allowed.includes(key)) fail(`${path}.${key}`, `unknown field; expected one of ${allowed.join(', ')}.`);
  };

  const root = object(data, '$');
  noStrangers(root, TOP_KEYS, '$');
  const name = string(root.name, '$.name');
  if (!/^[a-z0-9][a-z0-9._-]*$/i.test(name)) fail('$.name', 'must be letters, digits, dots, dashes or underscores (it names a results folder).');
  const approach = root.approach;
  if (!APPROACHES.includes(approach as Approach)) fail('$.approach', `must be one of ${APPROACHES.join(', ')}.`);
  const baseDir = dirname(file);
  const relative = (path: string): string => (isAbsolute(path) ? path : resolve(baseDir, path));

  const models = list(root.models, '$.models').map((entry, k): ModelEntry => {
    const path = `$.models[${k}]`;
    const spec = typeof entry === 'string' ? { source: entry } : object(entry, path);
    noStrangers(spec, ['source', 'label', 'optional'], path);
    const source = string(spec.source, `${path}.source`);
    const isPath = !/^(zoo|synthetic):/.test(source);
    if (spec.optional !== undefined && typeof spec.optional !== 'boolean') fail(`${path}.optional`, 'must be true or false.');
    return {
      source: isPath ? relative(source) : source,
      label: spec.label === undefined ? defaultLabel(source) : string(spec.label, `${path}.label`),
      optional: spec.optional === true,
    };
  });

  const records: Record<string, unknown> = {};
  if (root.records !== undefined) {
    const given = object(root.records, '$.records');
    noStrangers(given, Object.keys(RECORD_KEYS), '$.records');
    for (const [key, value] of Object.entries(given)) {
      const kind = RECORD_KEYS[key as keyof typeof RECORD_KEYS];
      if (kind === 'boolean' && typeof value !== 'boolean') fail(`$.records.${key}`, 'must be true or false.');
      if (kind === 'size') whole(value, `$.records.${key}`, 1);
      if (kind === 'order' && !OPERATOR_ORDERS.includes(value as OperatorOrder)) fail(`$.records.${key}`, `must be one of ${OPERATOR_ORDERS.join(', ')}.`);
      if (kind === 'schedule' && parseSchedule(value) === undefined) fail(`$.records.${key}`, `must be ${SCHEDULE_FORMS}; got ${JSON.stringify(value)}.`);
      records[key] = value;
    }
  }

  const planners = list(root.planners, '$.planners').map((entry, k): PlannerEntry => {
    const ref = string(entry, `$.planners[${k}]`);
    if (isPlannerModule(ref)) return { ref: relative(ref), module: true };
    try {
      findPlanner(ref);
    } catch (error) {
      if (error instanceof UnknownPlannerError) fail(`$.planners[${k}]`, error.message);
      throw error;
    }
    return { ref, module: false };
  });

  const backends = (root.backends === undefined ? [{ kind: 'plan-only' }] : list(root.backends, '$.backends')).map((entry, k): BackendSpec => {
    const path = `$.backends[${k}]`;
    const spec = typeof entry === 'string' ? { kind: entry } : object(entry, path);
    const kinds = backendKinds();
    if (!kinds.includes(spec.kind as string)) {
      fail(`${path}.kind`, `"${String(spec.kind)}" is not available in this version; use one of ${kinds.join(', ')}.`);
    }
    const kind = spec.kind as BackendKind;
    if (spec.kind === 'plan-only') {
      noStrangers(spec, ['kind'], path);
      return { kind: 'plan-only' };
    }
    const remote = spec.kind === 'remote';
    noStrangers(
      spec,
      ['kind', 'repetitions', 'warmup', 'peer', 'verifyByExecution', ...(spec.kind === 'cpu' ? ['pinCore'] : []), ...(remote ? ['url', 'token', 'backend', 'label', 'timeoutSeconds', 'device'] : [])],
      path,
    );
    for (const flag of ['peer', 'verifyByExecution', 'pinCore']) {
      if (spec[flag] !== undefined && typeof spec[flag] !== 'boolean') fail(`${path}.${flag}`, 'must be true or false.');
    }
    const settings: ExecutionSettings = {
      repetitions: spec.repetitions === undefined ? 20 : whole(spec.repetitions, `${path}.repetitions`, 1),
      warmup: spec.warmup === undefined ? 3 : whole(spec.warmup, `${path}.warmup`, 0),
      peer: spec.peer === true,
      verifyByExecution: spec.verifyByExecution !== false,
      ...(spec.pinCore === true ? { pinCore: true } : {}),
    };
    if (spec.kind === 'browser' && settings.peer) fail(`${path}.peer`, 'times onnxruntime-node on this machine; the browser backend times the page alone.');
    if (!remote) return { kind, ...settings };
    const url = string(spec.url, `${path}.url`);
    if (!/^https?:\/\/[^/\s]+/.test(url)) fail(`${path}.url`, 'must be http://host:port of a memplan agent.');
    if (settings.peer) fail(`${path}.peer`, 'times onnxruntime-node on this machine; a remote backend cannot.');
    const token = string(spec.token, `${path}.token`);
    if (!token.startsWith('env:') && token.length < 16) fail(`${path}.token`, "must be the agent's token (16 characters or more), or env:NAME to read it from the environment.");
    const device = spec.device === undefined ? undefined : string(spec.device, `${path}.device`);
    if (device !== undefined && spec.backend !== undefined && spec.backend !== 'browser') fail(`${path}.backend`, 'a device is a browser: it runs the browser backend.');
    const backend = device !== undefined ? 'browser' : spec.backend === undefined ? 'cpu' : string(spec.backend, `${path}.backend`);
    const unserved = unservedBackend(backend);
    if (unserved !== undefined) fail(`${path}.backend`, unserved);
    return {
      kind: 'remote',
      url,
      token,
      backend,
      label: spec.label === undefined ? `remote:${backend}${device === undefined ? '' : `:${device}`}@${new URL(url).host}` : string(spec.label, `${path}.label`),
      ...(spec.timeoutSeconds === undefined ? {} : { timeoutSeconds: whole(spec.timeoutSeconds, `${path}.timeoutSeconds`, 1) }),
      ...(device === undefined ? {} : { device }),
      ...settings,
    };
  });

  const report = root.report === undefined ? {} : object(root.report, '$.report');
  noStrangers(report, ['unit', 'rows', 'reference', 'charts'], '$.report');
  const charts = (report.charts === undefined ? ['footprint'] : list(report.charts, '$.report.charts')).map((chart, k) => {
    if (!CHART_KINDS.includes(chart as ChartKind)) fail(`$.report.charts[${k}]`, `must be one of ${CHART_KINDS.join(', ')}.`);
    return chart as ChartKind;
  });
  const unit = report.unit ?? 'MiB';
  if (!UNITS.includes(unit as Unit)) fail('$.report.unit', `must be one of ${UNITS.join(', ')}.`);
  const plannerRefs = planners.map((p) => p.ref);
  const rows =
    report.rows === undefined
      ? undefined
      : list(report.rows, '$.report.rows').map((row, k) => {
          const id = string(row, `$.report.rows[${k}]`);
          if (!plannerRefs.includes(id)) fail(`$.report.rows[${k}]`, `"${id}" is not one of the experiment's planners.`);
          return id;
        });
  const reference: Record<string, Record<string, number>> = {};
  if (report.reference !== undefined) {
    for (const [planner, values] of Object.entries(object(report.reference, '$.report.reference'))) {
      reference[planner] = {};
      for (const [model, value] of Object.entries(object(values, `$.report.reference.${planner}`))) {
        if (typeof value !== 'number' || !(value >= 0)) fail(`$.report.reference.${planner}.${model}`, 'must be a number >= 0.');
        reference[planner][model] = value as number;
      }
    }
  }

  return {
    name,
    title: root.title === undefined ? name : string(root.title, '$.title'),
    approach: approach as Approach,
    models,
    records: records as RecordOptions,
    planners,
    backends,
    repetitions: root.repetitions === undefined ? 5 : whole(root.repetitions, '$.repetitions', 1),
    seed: root.seed === undefined ? 1 : whole(root.seed, '$.seed', 0),
    alignment: root.alignment === undefined ? 1 : whole(root.alignment, '$.alignment', 1),
    timeLimitSeconds: root.timeLimitSeconds === undefined ? 10 : positive(root.timeLimitSeconds, '$.timeLimitSeconds'),
    report: { unit: unit as Unit, rows, reference: report.reference === undefined ? undefined : reference, charts },
    file,
  };
}

function defaultLabel(source: string): string {
  return source
    .replace(/^(zoo|synthetic):/, '')
    .replace(/^.*[\\/]/, '')
    .replace(/\.[^.]+$/, '');
}
