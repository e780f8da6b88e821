import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { lowerBounds } from '../core/bounds.ts';
import { naiveFootprint, type Problem } from '../core/problem.ts';
import type { Graph } from '../graph/ir.ts';
import { graphToProblem } from '../graph/lifetimes.ts';
import { loadSource } from '../io/source.ts';
import { execute } from '../measuring/execute.ts';
import type { ExecuteReport, PeerReport } from '../backends/execution-report.ts';
import { summarizeLatency } from '../backends/latency.ts';
import { planAndVerify } from '../planners/plan-and-verify.ts';
import { InvalidPlanError } from '../planners/invalid-plan-error.ts';
import { beyondLimit, type Planner } from '../planners/planner.ts';
import { backendLabel, cellPlacement, probedHere, recordedSpec } from './cell-placement.ts';
import { type Experiment, type ModelEntry } from './config.ts';
import { ExperimentError } from './experiment-error.ts';
import { loadPlanner } from './load-planner.ts';
import { Progress } from './progress.ts';
import type { CellResult, OtherOrderBounds } from './result.ts';
import type { ShardInfo, SkippedCell } from './merge.ts';
import { cellKey, ResultStore } from './result-store.ts';
import { lockRun } from './run-lock.ts';
import { assignShards, checkShardCount, configHash, expectedCost, FILE_SOURCE_RECORDS, type ShardSpec, type ShareableCell } from './shards.ts';
import { collectRunInfo } from './run-info.ts';
import { watchLoad, type LoadRecord } from './machine-load.ts';
import { summarizeTimings } from './statistics.ts';

export interface RunOptions {
  /** Root of results (default `results`): a run goes to `<root>/<experiment>/<run-id>/`. */
  readonly root?: string;
  /** Continue the latest run of this experiment, skipping its finished cells. */
  readonly resume?: boolean;
  /** No progress output (tests, `reproduce`'s own progress). */
  readonly quiet?: boolean;
  /** Run only this shard's cells (shards.ts), in a run folder of its own that `memplan merge` joins. */
  readonly shard?: ShardSpec;
}

export interface RunOutcome {
  readonly dir: string;
  readonly results: readonly CellResult[];
  /** Cells not run, with why (an optional source that is absent, a planner's size limit). */
  readonly skipped: readonly string[];
}

/**
 * Runs every (model, planner, backend) cell of an experiment: plans through the verifier,
 * times the planner over the experiment's repetitions, and appends each finished cell to
 * `results.jsonl` at once.
 */
export async function runExperiment(experiment: Experiment, options: RunOptions = {}): Promise<RunOutcome> {
  const root = options.root ?? 'results';
  const { shard } = options;
  // Before any folder is made: a shard count above the cells is a mistake, not a run.
  if (shard) checkShardCount(shard, experiment.models.length * experiment.planners.length * experiment.backends.length, experiment.file);
  const suffix = shard ? `-shard-${shard.index}-of-${shard.count}` : '';
  const latest = options.resume ? await ResultStore.latest(root, experiment.name, suffix) : undefined;
  const store = latest ?? (await ResultStore.create(root, experiment.name, `${runId()}${suffix}`));
  // One writer per folder (run-lock.ts): a --resume started while this run still goes is refused.
  const lock = await lockRun(store.dir);
  try {
    if (latest !== undefined) await checkResumable(store, experiment);
    return await runInto(store, experiment, options);
  } finally {
    await lock.release();
  }
}

async function runInto(store: ResultStore, experiment: Experiment, options: RunOptions): Promise<RunOutcome> {
  const { shard } = options;
  await store.repairTail();
  const previous = await store.read();
  const done = new Set(previous.map((r) => cellKey(r.model, r.planner, r.backend)));
  const backends = experiment.backends.map(recordedSpec);
  // Device info of every local executing backend, beside the machine's (each cell carries its own too).
  const devices = [];
  for (const spec of experiment.backends) {
    const backend = probedHere(spec);
    if (backend !== undefined) devices.push(await backend.device());
  }
  const planners: Planner[] = [];
  for (const entry of experiment.planners) {
    const planner = await loadPlanner(entry);
    if (experiment.approach === 'shared-objects' && planner.approach === 'offsets') {
      throw new ExperimentError(`${experiment.file}: ${planner.id} computes offsets, which a shared-objects experiment cannot report.`);
    }
    planners.push(planner);
  }
  // Looked at once, so that the split, the cells and run.json all see the same machine.
  const absent = new Set(experiment.models.filter(isAbsent).map((m) => m.source));
  const share = shard ? await shareOf(experiment, planners, shard, absent) : undefined;
  // A run that times executions records how busy the machine was while it did (one entry per session of a resumed run).
  const earlierLoad = executes(experiment) ? await recordedLoad(store) : [];
  const info = { experiment: experiment.name, title: experiment.title, config: { ...experiment, backends }, devices, ...collectRunInfo(), ...(earlierLoad.length > 0 ? { load: earlierLoad } : {}) };
  await store.writeRunInfo({ ...info, ...(share ? { shard: share } : {}) });
  const watch = executes(experiment) ? watchLoad() : undefined;
  // Only once the cells ran is it known which of a shard's cells no machine like this one can run.
  let ended: ShardInfo | undefined;
  try {
    const { outcome, skippedCells } = await runCells(store, experiment, planners, previous, done, share, absent, options);
    if (share) ended = { ...share, skipped: skippedCells };
    return outcome;
  } finally {
    if (ended || watch) await store.writeRunInfo({ ...info, ...(share ? { shard: ended ?? share } : {}), ...(watch ? { load: [...earlierLoad, watch.stop()] } : {}) });
  }
}

/** Whether any backend of the experiment runs networks (and so times them). */
function executes(experiment: Experiment): boolean {
  return experiment.backends.some((b) => b.kind !== 'plan-only');
}

/** The load records of the sessions before this one (a resumed run's run.json). */
async function recordedLoad(store: ResultStore): Promise<LoadRecord[]> {
  if (!existsSync(join(store.dir, 'run.json'))) return [];
  const { load } = await store.readRunInfo<{ load?: unknown }>();
  return Array.isArray(load) ? (load as LoadRecord[]) : [];
}

async function runCells(
  store: ResultStore,
  experiment: Experiment,
  planners: readonly Planner[],
  previous: readonly CellResult[],
  done: ReadonlySet<string>,
  share: ShardInfo | undefined,
  absent: ReadonlySet<string>,
  options: RunOptions,
): Promise<{ outcome: RunOutcome; skippedCells: SkippedCell[] }> {
  const mine = share ? new Set(share.assigned) : undefined;
  const total = mine ? mine.size : experiment.models.length * planners.length * experiment.backends.length;
  const progress = new Progress(total, experiment.name, process.stderr, options.quiet);
  progress.start(store.dir);
  const results: CellResult[] = [...previous];
  const skipped: string[] = [];
  // A shard's cells with no result and why, for merge (the unsharded run.json stays as it was).
  const skippedCells: SkippedCell[] = [];

  // A finished cell: written at once (a killed run keeps it), and counted.
  const finish = async (result: CellResult, what: string): Promise<void> => {
    await store.append(result);
    results.push(result);
    progress.step(what);
  };

  for (const model of experiment.models) {
    if (absent.has(model.source)) {
      skipped.push(`${model.label}: ${model.source} is absent`);
      progress.note(`skipping ${model.label}: ${model.source} is absent.`);
      for (const planner of planners) {
        for (const backend of experiment.backends) {
          const shardKey = cellKey(model.named, planner.id, backendLabel(backend));
          if (mine && !mine.has(shardKey)) continue;
          progress.pass(`${model.label} (absent)`);
          if (!done.has(cellKey(model.source, planner.id, backendLabel(backend)))) skippedCells.push({ cell: shardKey, because: 'source-absent', source: model.named });
        }
      }
      continue;
    }
    let loaded: LoadedModel | undefined;
    let peer: PeerReport | undefined;
    // Cells of a backend with rounds > 1: measured once in the loop below, their further turns after it.
    const taking: TurnTaker[] = [];
    for (const planner of planners) {
      for (const backend of experiment.backends) {
        const label = backendLabel(backend);
        const key = cellKey(model.source, planner.id, label);
        // A shard's cells are keyed as the file names the source (the same on every machine).
        const shardKey = cellKey(model.named, planner.id, label);
        // Which backend, where an experiment runs networks (the same cell on two backends reads as one twice otherwise).
        const on = backend.kind === 'plan-only' ? '' : ` on ${label}`;
        if (mine && !mine.has(shardKey)) continue;
        if (done.has(key)) {
          progress.carry();
          continue;
        }
        loaded ??= await loadModel(model.source, experiment);
        const limit = beyondLimit(planner, loaded.problem.records.length);
        if (limit !== undefined || (backend.kind !== 'plan-only' && loaded.graph === undefined)) {
          const why = limit ?? `${label} runs networks; ${model.source} holds records only`;
          skipped.push(`${model.label}: ${why}`);
          skippedCells.push({ cell: shardKey, because: 'not-applicable', note: why });
          progress.pass(`${model.label} ${planner.id}${on} (skipped)`);
          continue;
        }
        let result = runCell(experiment, model.source, model.label, planner, label, loaded.problem);
        if (loaded.otherOrder) result = { ...result, otherOrder: loaded.otherOrder };
        if (backend.kind !== 'plan-only' && loaded.graph !== undefined) {
          const graph = loaded.graph;
          const common = {
            planner,
            repetitions: backend.repetitions,
            warmup: backend.warmup,
            seed: experiment.seed,
            records: experiment.records,
            alignment: experiment.alignment,
            ...(backend.pinCore ? { pinCore: true } : {}),
          };
          const where = cellPlacement(backend, experiment.file);
          const report = await execute(graph, { ...common, verifyByExecution: backend.verifyByExecution, backend: where.backend, peer: backend.peer && peer === undefined }, where.placement);
          if (report.matchesNaive === false) {
            throw new InvalidPlanError(`${planner.id} on ${model.label}: outputs computed inside the plan differ from the naive plan's.`);
          }
          peer ??= report.peer;
          if (backend.rounds > 1) {
            // A further turn times the plan again; the first checked its outputs and timed the peer.
            const turn = (): Promise<ExecuteReport> => execute(graph, { ...common, verifyByExecution: false, backend: where.backend, peer: false }, where.placement);
            taking.push({ result, reports: [report], rounds: backend.rounds, turn, what: `${model.label} ${planner.id}${on}` });
            continue;
          }
          result = measuredResult(result, [report], peer, experiment.seed);
        }
        await finish(result, `${model.label} ${planner.id}${on}`);
      }
    }
    // The further turns, every other one in reverse, so that drift weighs on each cell alike; then the cells, in the file's order.
    const rounds = Math.max(1, ...taking.map((cell) => cell.rounds));
    for (let round = 2; round <= rounds; round++) {
      progress.note(`${model.label}: turn ${round} of ${rounds}, every cell's plan timed again${round % 2 === 0 ? ', in reverse order' : ''}`);
      for (const cell of round % 2 === 0 ? [...taking].reverse() : taking) {
        if (round <= cell.rounds) cell.reports.push(await cell.turn());
      }
    }
    for (const cell of taking) await finish(measuredResult(cell.result, cell.reports, peer, experiment.seed), cell.what);
  }
  return { outcome: { dir: store.dir, results, skipped }, skippedCells };
}

/** A cell whose backend takes turns (rounds > 1): its reports so far, and how to time it again. */
interface TurnTaker {
  readonly result: CellResult;
  readonly reports: ExecuteReport[];
  readonly rounds: number;
  readonly turn: () => Promise<ExecuteReport>;
  readonly what: string;
}

/**
 * A cell's result from the reports of its turns: the latency over every turn's samples (one
 * turn: its own summary), the memory, device and outputs' check of the first turn, the peer
 * timed beside the network's first cell.
 */
export function measuredResult(result: CellResult, reports: readonly ExecuteReport[], peer: PeerReport | undefined, seed: number): CellResult {
  const [first] = reports;
  const pooled = (samples: (report: ExecuteReport) => readonly number[] | undefined): number[] | undefined => {
    const all = reports.map(samples);
    return all.every((s) => s !== undefined && s.length > 0) ? all.flatMap((s) => [...(s ?? [])]) : undefined;
  };
  let latencyMs = first.latencyMs;
  let deviceMs = first.deviceMs;
  if (reports.length > 1) {
    const samples = pooled((r) => r.samplesMs);
    if (samples === undefined) throw new ExperimentError(`${result.planner} on ${result.model}: a turn's report gave no samples to pool (an agent older than rounds?); run with rounds 1.`);
    latencyMs = summarizeLatency(samples, seed);
    const device = pooled((r) => r.deviceSamplesMs);
    deviceMs = device === undefined ? undefined : summarizeLatency(device, seed);
  }
  return {
    ...result,
    footprint: first.footprint,
    latencyMs,
    ...(deviceMs ? { deviceMs } : {}),
    ...(reports.length > 1 ? { rounds: reports.length } : {}),
    matchesNaive: first.matchesNaive,
    memory: first.memory,
    device: first.device,
    ...(peer ? { peer: { ...peer, ratio: latencyMs.median / peer.latencyMs.median } } : {}),
  };
}

interface LoadedModel {
  readonly graph?: Graph;
  readonly problem: Problem;
  /** Networks only: the lower bounds under the other operator order (issue 7: both are reported). */
  readonly otherOrder?: OtherOrderBounds;
}

async function loadModel(source: string, experiment: Experiment): Promise<LoadedModel> {
  const loaded = await loadSource(source);
  if (loaded.kind === 'records') return { problem: loaded.problem };
  const order = experiment.records.order ?? 'given';
  const other = order === 'given' ? 'memory-aware' : 'given';
  return {
    graph: loaded.graph,
    problem: graphToProblem(loaded.graph, experiment.records),
    otherOrder: { order: other, lowerBounds: lowerBounds(graphToProblem(loaded.graph, { ...experiment.records, order: other })) },
  };
}

function runCell(experiment: Experiment, source: string, label: string, planner: Planner, backend: string, problem: Problem): CellResult {
  const bounds = lowerBounds(problem);
  const options = { alignment: experiment.alignment, timeLimitMs: experiment.timeLimitSeconds * 1000, seed: experiment.seed };
  const verified = planAndVerify(planner, problem, { ...options, bounds });
  if (!verified.valid) {
    throw new InvalidPlanError(`${planner.id} produced an invalid plan for ${label}: ${verified.violations[0]?.message}`);
  }
  // The first, verified plan is one timing; the planner alone repeats for the rest. A
  // search runs once: its time is its limit, or the time it took to prove its plan optimal.
  const times = [verified.timeMs];
  for (let k = 1; k < (planner.searches ? 1 : experiment.repetitions); k++) {
    const started = performance.now();
    planner.plan(problem, options);
    times.push(performance.now() - started);
  }
  const naive = naiveFootprint(problem);
  const bound = experiment.approach === 'offsets' ? bounds.offsets : bounds.sharedObjects;
  return {
    experiment: experiment.name,
    model: source,
    modelLabel: label,
    planner: planner.id,
    plannerTitle: planner.title,
    plannerApproach: planner.approach,
    backend,
    records: problem.records.length,
    operators: problem.operatorCount,
    footprint: verified.footprint,
    naive,
    lowerBounds: bounds,
    ratioToLowerBound: bound === 0 ? 1 : verified.footprint / bound,
    ratioToNaive: naive === 0 ? 1 : verified.footprint / naive,
    valid: verified.valid,
    timeMs: summarizeTimings(times),
    ...(verified.optimal !== undefined ? { optimal: verified.optimal } : {}),
    ...(verified.bound !== undefined ? { bound: verified.bound } : {}),
  };
}

/**
 * This shard's cells and what `memplan merge` needs to check and order the shards: every
 * cell in the order an unsharded run runs them, costed by the planner's growth in the
 * model's records, shared out by assignShards. The cost comes from the experiment file
 * alone, never from what this machine has: zoo networks and synthetic problems are the same
 * everywhere (they load in milliseconds), and a file source counts as FILE_SOURCE_RECORDS
 * without being read, so a trace present here and absent on another machine moves no cell.
 */
async function shareOf(experiment: Experiment, planners: readonly Planner[], shard: ShardSpec, absent: ReadonlySet<string>): Promise<ShardInfo> {
  const cells = await shareableCells(experiment, planners);
  const owner = assignShards(cells, shard.count);
  return {
    index: shard.index,
    count: shard.count,
    configHash: configHash(experiment),
    order: cells.map((c) => c.key),
    assigned: cells.filter((_, k) => owner[k] === shard.index).map((c) => c.key),
    absentSources: experiment.models.filter((m) => absent.has(m.source)).map((m) => m.named),
    // How this machine's results name the file sources: merge keys them as the file does.
    sources: Object.fromEntries(experiment.models.filter((m) => m.named !== m.source).map((m) => [m.source, m.named])),
  };
}

/** Every cell of an experiment, in the order an unsharded run runs them, with the cost the split weighs it by. */
export async function shareableCells(experiment: Experiment, planners: readonly Planner[]): Promise<ShareableCell[]> {
  const cells: ShareableCell[] = [];
  for (const model of experiment.models) {
    const records = isFileSource(model.source) ? FILE_SOURCE_RECORDS : (await loadModel(model.source, experiment)).problem.records.length;
    for (const planner of planners) {
      for (const backend of experiment.backends) {
        const cost = expectedCost(records, planner.complexity, experiment.repetitions, experiment.timeLimitSeconds * 1000, backend.kind !== 'plan-only');
        cells.push({ key: cellKey(model.named, planner.id, backendLabel(backend)), cost });
      }
    }
  }
  return cells;
}

/**
 * The settings every cell's numbers depend on. A resumed run must have them as the run it
 * continues did: cells measured under two settings must never share a table. Models,
 * planners and backends may be added (their new cells run); everything here must match.
 */
const CELL_SETTINGS = ['approach', 'records', 'repetitions', 'seed', 'alignment', 'timeLimitSeconds'] as const;

async function checkResumable(store: ResultStore, experiment: Experiment): Promise<void> {
  // A run stopped before it wrote run.json (a planner module that failed to load) has no cells either.
  if (!existsSync(join(store.dir, 'run.json'))) return;
  const before = (await store.readRunInfo<{ config?: Partial<Experiment> }>()).config ?? {};
  // Keys sorted: the same settings written in another order are the same settings.
  const canonical = (value: unknown): string =>
    JSON.stringify(value, (_, v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));
  const changed = CELL_SETTINGS.filter((key) => canonical(before[key]) !== canonical(experiment[key]));
  if (changed.length > 0) {
    const was = changed.map((key) => `${key} ${JSON.stringify(before[key])} now ${JSON.stringify(experiment[key])}`).join('; ');
    throw new ExperimentError(`${store.dir} ran ${experiment.name} with other settings (${was}); run without --resume to start a new run.`);
  }
}

/** An optional model whose file is not there (zoo and synthetic sources always are): its cells are skipped. */
function isAbsent(model: ModelEntry): boolean {
  return model.optional && isFileSource(model.source) && !existsSync(model.source);
}

function isFileSource(source: string): boolean {
  return !/^(zoo|synthetic):/.test(source);
}

/** A sortable, file-name-safe id: the UTC time of the start. */
function runId(): string {
  return new Date()
    .toISOString()
    .replace(/:/g, '-')
    .replace(/\.\d+Z$/, 'Z');
}
