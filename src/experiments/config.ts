import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, posix, resolve } from 'node:path';
import type { Approach } from '../core/plans.ts';
import { servedKinds, unservedBackend, type BackendKind } from '../backends/registry.ts';
import type { RecordOptions } from '../graph/lifetimes.ts';
import { JsonSyntaxError, scanJson } from '../io/json-positions.ts';
import { CHART_KINDS, experimentSchema, UNITS } from './experiment-schema.ts';
import { checkFile, failIn } from './file-check.ts';
import { findPlanner } from '../planners/registry.ts';
import { UnknownPlannerError } from '../planners/unknown-planner-error.ts';
import { ExperimentError } from './experiment-error.ts';
import { isPlannerModule, type PlannerEntry } from './planner-entry.ts';

/**
 * An experiment file (`experiments/*.json`): which networks, planners and backends, how
 * graphs become records, how often to time, and how to report. The file's shape is checked
 * by its schema (experiment-schema.ts), what needs more than the file here; every error names
 * the file and the JSON path of the field.
 */
export interface ModelEntry {
  /** `zoo:...`, `synthetic:...`, or a path (relative to the experiment file). */
  readonly source: string;
  /**
   * The source as the experiment file names it (a relative path not resolved, only
   * normalized), the same on every machine: shards of a sweep key their cells by it, so
   * that checkouts at different paths agree (shards.ts).
   */
  readonly named: string;
  /** Column heading in tables. */
  readonly label: string;
  /** A file that may be absent (e.g. ../shared traces): its cells are skipped with a note. */
  readonly optional: boolean;
}

/** `plan-only` plans and verifies; an executing backend also runs each network inside each plan. */
export interface ExecutionSettings {
  readonly repetitions: number;
  readonly warmup: number;
  /**
   * Turns the cells of one network take (runner.ts): each turn measures every cell's plan
   * afresh (a process, page or agent job of its own) for `repetitions` inferences, in the
   * order of the file and then reversed, so that a machine drifting over the minutes the
   * cells take weighs on every plan alike; a cell's latency is over all its turns' samples.
   * 1: each cell once, one after the other.
   */
  readonly rounds: number;
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

export type Unit = (typeof UNITS)[number];
export { CHART_KINDS, UNITS };
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

export type ChartKind = (typeof CHART_KINDS)[number];

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

export function parseExperiment(text: string, file: string): Experiment {
  try {
    scanJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new ExperimentError(`${file}:${error.line}:${error.column}: invalid JSON: ${error.problem}.`);
    throw error;
  }
  const fail = failIn(file);
  const root = checkFile(experimentSchema(), JSON.parse(text), file);
  const baseDir = dirname(file);
  const relative = (path: string): string => (isAbsolute(path) ? path : resolve(baseDir, path));

  const models = root.models.map((entry): ModelEntry => {
    const spec = typeof entry === 'string' ? { source: entry } : entry;
    const isPath = !/^(zoo|synthetic):/.test(spec.source);
    return {
      source: isPath ? relative(spec.source) : spec.source,
      named: isPath ? posix.normalize(spec.source) : spec.source,
      label: spec.label ?? defaultLabel(spec.source),
      optional: spec.optional === true,
    };
  });

  // What the schema cannot decide: each id must name a registered planner.
  const planners = root.planners.map((ref, k): PlannerEntry => {
    if (isPlannerModule(ref)) return { ref: relative(ref), module: true, named: posix.normalize(ref) };
    try {
      findPlanner(ref);
    } catch (error) {
      if (error instanceof UnknownPlannerError) fail(`$.planners[${k}]`, error.message);
      throw error;
    }
    return { ref, module: false };
  });

  const backends = (root.backends ?? ['plan-only']).map((entry, k): BackendSpec => {
    const path = `$.backends[${k}]`;
    if (typeof entry === 'string') {
      const kinds = backendKinds();
      if (!kinds.includes(entry)) fail(`${path}.kind`, `"${entry}" is not available in this version; use one of ${kinds.join(', ')}.`);
      if (entry === 'remote') fail(`${path}.url`, 'must be a non-empty string.');
    }
    const spec = typeof entry === 'string' ? ({ kind: entry } as Exclude<typeof entry, string>) : entry;
    if (spec.kind === 'plan-only') return { kind: 'plan-only' };
    const settings: ExecutionSettings = {
      repetitions: spec.repetitions ?? 20,
      warmup: spec.warmup ?? 3,
      rounds: spec.rounds ?? 1,
      peer: spec.peer === true,
      verifyByExecution: spec.verifyByExecution !== false,
      ...('pinCore' in spec && spec.pinCore === true ? { pinCore: true } : {}),
    };
    if (spec.kind === 'browser' && settings.peer) fail(`${path}.peer`, 'times onnxruntime-node on this machine; the browser backend times the page alone.');
    if (spec.kind !== 'remote') return { kind: spec.kind as BackendKind, ...settings };
    const { url, token, device } = spec;
    if (!/^https?:\/\/[^/\s]+/.test(url)) fail(`${path}.url`, 'must be http://host:port of a memplan agent.');
    if (settings.peer) fail(`${path}.peer`, 'times onnxruntime-node on this machine; a remote backend cannot.');
    if (!token.startsWith('env:') && token.length < 16) fail(`${path}.token`, "must be the agent's token (16 characters or more), or env:NAME to read it from the environment.");
    if (device !== undefined && spec.backend !== undefined && spec.backend !== 'browser') fail(`${path}.backend`, 'a device is a browser: it runs the browser backend.');
    const backend = device !== undefined ? 'browser' : (spec.backend ?? 'cpu');
    const unserved = unservedBackend(backend);
    if (unserved !== undefined) fail(`${path}.backend`, unserved);
    return {
      kind: 'remote',
      url,
      token,
      backend,
      label: spec.label ?? `remote:${backend}${device === undefined ? '' : `:${device}`}@${new URL(url).host}`,
      ...(spec.timeoutSeconds === undefined ? {} : { timeoutSeconds: spec.timeoutSeconds }),
      ...(device === undefined ? {} : { device }),
      ...settings,
    };
  });

  const report = root.report ?? {};
  const plannerRefs = planners.map((p) => p.ref);
  report.rows?.forEach((id, k) => {
    if (!plannerRefs.includes(id)) fail(`$.report.rows[${k}]`, `"${id}" is not one of the experiment's planners.`);
  });

  return {
    name: root.name,
    title: root.title ?? root.name,
    approach: root.approach,
    models,
    records: (root.records ?? {}) as RecordOptions,
    planners,
    backends,
    repetitions: root.repetitions ?? 5,
    seed: root.seed ?? 1,
    alignment: root.alignment ?? 1,
    timeLimitSeconds: root.timeLimitSeconds ?? 10,
    report: { unit: report.unit ?? 'MiB', rows: report.rows, reference: report.reference, charts: report.charts ?? ['footprint'] },
    file,
  };
}

function defaultLabel(source: string): string {
  return source
    .replace(/^(zoo|synthetic):/, '')
    .replace(/^.*[\\/]/, '')
    .replace(/\.[^.]+$/, '');
}
