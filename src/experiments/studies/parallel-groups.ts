import { executionRecords } from '../../backends/execution-records.ts';
import { lowerBounds } from '../../core/bounds.ts';
import { naiveFootprint } from '../../core/problem.ts';
import type { Backend } from '../../backends/backend.ts';
import { execute } from '../../measuring/execute.ts';
import { naiveReference } from '../../measuring/isolation/execute-isolated.ts';
import type { ExecuteReport } from '../../backends/execution-report.ts';
import { findBackend } from '../../backends/registry.ts';
import type { Graph } from '../../graph/ir.ts';
import { plannedProblem } from '../../graph/lifetimes.ts';
import type { Schedule } from '../../graph/schedule.ts';
import { loadSource } from '../../io/source.ts';
import { findPlanner } from '../../planners/registry.ts';
import { ExperimentError } from '../experiment-error.ts';
import { Progress } from '../progress.ts';
import type { ResultStore } from '../result-store.ts';
import { registerStudy, type Study, type StudyRunOptions } from '../study.ts';
import { parseParallelGroups, type GroupsNetwork, type ParallelGroupsConfig } from './parallel-groups-config.ts';

/**
 * Memory against parallelism (the MindSpore Vulkan thesis, ../shared/paper/README.md
 * section 5): every network under every row of the thesis' table (a schedule, a planner, a
 * backend: one operator at a time, or a step's operators at once on the worker pool), a
 * sweep of the number of groups on each network, and what a WebGPU adapter makes of the
 * same schedules. Every cell is one measured execution (execute: the plan verified,
 * run in a process of its own, memory measured there), its outputs checked bit for bit
 * against the network's naive sequential run, which runs once per network and backend.
 */
export interface GroupsCell {
  /** table: a row of the thesis' table; sweep: a number of groups the table has not run; webgpu: the WebGPU look. */
  readonly part: 'table' | 'sweep' | 'webgpu';
  readonly network: string;
  readonly source: string;
  /** The table row's id (part table). */
  readonly row?: string;
  readonly schedule: Schedule;
  readonly planner: string;
  readonly backend: string;
  /** Steps of the schedule, and the operators of the largest. */
  readonly steps: number;
  readonly largestStep: number;
  /** Bytes of the records with no reuse, and the offsets lower bound under the schedule (the largest step's live bytes). */
  readonly naive: number;
  readonly bound: number;
  readonly report?: ExecuteReport;
  /** Why the cell has no report (one sentence). */
  readonly error?: string;
  /**
   * Did the measured processes and their worker threads run compiled JavaScript (dist/)?
   * From TypeScript sources each thread carries tsx's compiler and the compiled modules,
   * tens of MiB that the measured peak then counts.
   */
  readonly compiled: boolean;
}

/** Child processes and worker threads run what this module runs: compiled JavaScript, or TypeScript through tsx (child-module.ts). */
const COMPILED = !import.meta.url.endsWith('.ts');

interface Planned {
  readonly part: GroupsCell['part'];
  readonly network: GroupsNetwork;
  readonly row?: string;
  readonly schedule: Schedule;
  readonly planner: string;
  readonly backend: string;
}

/** Every cell the config asks for, in the order they run (network by network); `webgpu`: an adapter is there. */
export function plannedCells(config: ParallelGroupsConfig, webgpu: boolean, quick: boolean): Planned[] {
  const gpuNetworks = (quick ? config.quick.webgpuNetworks : undefined) ?? config.webgpu?.networks ?? [];
  const sweepNetworks = (quick ? config.quick.sweepNetworks : undefined) ?? config.sweep.networks;
  return config.networks.flatMap((network) => {
    const table = config.rows.map((row): Planned => ({ part: 'table', network, row: row.id, schedule: row.schedule, planner: row.planner, backend: row.backend }));
    const covered = (k: number): boolean => table.some((c) => c.schedule === `groups:${k}` && c.planner === config.sweep.planner && c.backend === 'cpu-parallel');
    const sweep = sweepNetworks.includes(network.label)
      ? config.sweep.groups.filter((k) => !covered(k)).map((k): Planned => ({ part: 'sweep', network, schedule: `groups:${k}`, planner: config.sweep.planner, backend: 'cpu-parallel' }))
      : [];
    const gpu =
      webgpu && config.webgpu !== undefined && gpuNetworks.includes(network.label)
        ? config.webgpu.schedules.map((schedule): Planned => ({ part: 'webgpu', network, schedule, planner: config.webgpu!.planner, backend: 'webgpu' }))
        : [];
    return [...table, ...sweep, ...gpu];
  });
}

async function runStudy(config: ParallelGroupsConfig, store: ResultStore, options: StudyRunOptions): Promise<GroupsCell[]> {
  const quick = options.quick === true;
  const repetitions = quick ? config.quick.repetitions : config.repetitions;
  const warmup = quick ? config.quick.warmup : config.warmup;
  let webgpuMissing: string | undefined;
  if (config.webgpu !== undefined) {
    try {
      await findBackend('webgpu').device();
    } catch (error) {
      webgpuMissing = `no WebGPU adapter here (${error instanceof Error ? error.message : String(error)})`;
    }
  }
  const planned = plannedCells(config, webgpuMissing === undefined, quick);
  const progress = new Progress(planned.length, config.name, process.stderr, options.quiet === true);
  progress.start(store.dir);
  if (webgpuMissing !== undefined) progress.note(`the WebGPU part is skipped: ${webgpuMissing}.`);
  const cells: GroupsCell[] = [];
  const graphs = new Map<string, Graph>();
  const references = new Map<string, Map<string, Float32Array>>();
  for (const cell of planned) {
    const source = quick ? cell.network.quickSource : cell.network.source;
    let graph = graphs.get(source);
    if (graph === undefined) {
      const loaded = await loadSource(source);
      if (loaded.kind !== 'graph') throw new ExperimentError(`${source} holds usage records, not a network; the parallel-groups study runs networks.`);
      graph = loaded.graph;
      graphs.clear();
      graphs.set(source, graph);
    }
    const backend = findBackend(cell.backend);
    const common = { backend, seed: config.seed, alignment: config.alignment, records: { schedule: cell.schedule } };
    // Steps, naive and bound of the records the backend runs (its scratch, its fused activations), as its footprint is.
    const { problem, steps } = plannedProblem(graph, executionRecords(backend, { schedule: cell.schedule }));
    const base = {
      part: cell.part,
      network: cell.network.label,
      source,
      ...(cell.row === undefined ? {} : { row: cell.row }),
      schedule: cell.schedule,
      planner: cell.planner,
      backend: cell.backend,
      steps: steps.length,
      largestStep: Math.max(...steps.map((s) => s.length)),
      naive: naiveFootprint(problem),
      bound: lowerBounds(problem).offsets,
      compiled: COMPILED,
    };
    let result: GroupsCell;
    try {
      const reference = await referenceOf(references, source, graph, backend, common);
      const report = await execute(graph, {
        ...common,
        planner: findPlanner(cell.planner),
        repetitions,
        warmup,
        reference,
        ...(config.workers === undefined ? {} : { workers: config.workers }),
      });
      result = { ...base, report };
    } catch (error) {
      result = { ...base, error: error instanceof Error ? error.message : String(error) };
    }
    await store.append(result);
    cells.push(result);
    progress.step(`${cell.network.label} ${cell.row ?? cell.schedule} ${cell.backend}${result.error ? ` FAILED: ${result.error}` : ''}`);
  }
  return cells;
}

/** The naive sequential outputs of a network on the backend that checks `backend`, run once per network and reference backend. */
async function referenceOf(
  references: Map<string, Map<string, Float32Array>>,
  source: string,
  graph: Graph,
  backend: Backend,
  common: { backend: Backend; seed: number; alignment: number },
): Promise<Map<string, Float32Array>> {
  const key = `${source} ${backend.reference ?? backend.kind}`;
  let outputs = references.get(key);
  if (outputs === undefined) {
    outputs = await naiveReference(graph, { ...common, backend });
    for (const other of references.keys()) if (!other.startsWith(`${source} `)) references.delete(other);
    references.set(key, outputs);
  }
  return outputs;
}

export const parallelGroupsStudy: Study<ParallelGroupsConfig, GroupsCell> = {
  kind: 'parallel-groups',
  parse: parseParallelGroups,
  run: runStudy,
};

registerStudy(parallelGroupsStudy);
