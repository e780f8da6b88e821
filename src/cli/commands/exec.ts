import type { Argv } from 'yargs';
import { findBackend } from '../../backends/registry.ts';
import { executeRemote } from '../../backends/remote/remote-executor.ts';
import { executeGraph } from '../../backends/execute.ts';
import { loadSource, SOURCE_KINDS } from '../../io/source.ts';
import { findPlanner } from '../../planners/registry.ts';
import { checkBudgetedRecordArgs, parseBudget } from '../budget-options.ts';
import { UsageError } from '../errors.ts';
import { execBudgeted } from '../exec-budgeted.ts';
import type { MemoryReport } from '../../backends/execute.ts';
import type { ParallelReport } from '../../backends/parallel-report.ts';
import { isParallelSchedule, parseSchedule } from '../../graph/schedule.ts';
import { alignedTable, mib } from '../format.ts';
import { sourceOptions, withSourceOptions, type SourceArgs } from '../source-options.ts';

interface ExecArgs extends SourceArgs {
  source: string;
  backend?: string;
  workers?: number;
  planner?: string;
  budget?: string;
  loading: string;
  repetitions: number;
  warmup: number;
  seed: number;
  weights: 'seeded' | 'file';
  align: number;
  peer: boolean;
  json: boolean;
  url?: string;
  token?: string;
  remoteBackend: string;
}

export function registerExec(cli: Argv): Argv {
  return cli.command<ExecArgs>(
    'exec <source>',
    'Run a network inside a verified plan: latency, peak memory, and outputs checked against the naive plan',
    (y) =>
      withSourceOptions(y)
        .positional('source', { type: 'string', demandOption: true, describe: SOURCE_KINDS })
        .option('backend', {
          type: 'string',
          describe: 'cpu, cpu-parallel, webgpu, or remote (a memplan agent: --url, --token); default cpu, or cpu-parallel with --workers or a --schedule other than sequential',
        })
        .option('workers', { type: 'number', describe: "cpu-parallel: threads that run a step's operators at once (default: the number of cores)" })
        .option('url', { type: 'string', describe: 'remote: the agent, http://host:port' })
        .option('token', { type: 'string', describe: 'remote: the token the agent was started with' })
        .option('remote-backend', { type: 'string', default: 'cpu', describe: "remote: the agent's backend (cpu, cpu-parallel, webgpu)" })
        .option('planner', { type: 'string', describe: 'planner id (default offsets/greedy-by-size; budgeted/flexnn with a budget)' })
        .option('budget', { type: 'string', describe: 'run in one buffer of this many bytes (35MiB, 4MB, 1048576), weights streamed from a file (the budgeted backend)' })
        .option('loading', { type: 'string', default: 'overlapped', describe: 'budgeted: overlapped (a loader thread reads ahead, FlexNN) or on-demand (each layer when it runs)' })
        .option('repetitions', { type: 'number', default: 20, describe: 'timed inferences' })
        .option('warmup', { type: 'number', default: 3, describe: 'untimed inferences first' })
        .option('seed', { type: 'number', default: 1, describe: 'seed of the weights and the input' })
        .option('weights', { choices: ['seeded', 'file'] as const, default: 'seeded' as const, describe: "seeded random, or the file's own float32 weights" })
        .option('align', { type: 'number', default: 64, describe: 'alignment of planned offsets in bytes (at least 4)' })
        .option('peer', { type: 'boolean', default: false, describe: 'also time onnxruntime-node (one thread) on the same network and inputs' })
        .option('json', { type: 'boolean', default: false }) as unknown as Argv<ExecArgs>,
    async (args) => {
      for (const [name, value, min] of [['repetitions', args.repetitions, 1], ['warmup', args.warmup, 0], ['align', args.align, 4], ['workers', args.workers ?? 1, 1]] as const) {
        if (!Number.isSafeInteger(value) || value < min) throw new UsageError(`--${name} must be a whole number >= ${min}, got ${value}.`);
      }
      const budget = parseBudget(args.budget);
      const backend = budget !== undefined ? 'budgeted' : execBackend(args);
      const loaded = await loadSource(args.source, sourceOptions(args));
      if (loaded.kind !== 'graph') throw new UsageError(`${args.source} holds usage records, not a network; exec runs networks.`);
      if (backend === 'budgeted') {
        // The streaming executor (a budget, weights from a file) has its own report.
        if (args.backend !== undefined && args.backend !== 'budgeted') throw new UsageError(`--budget runs the budgeted backend; --backend ${args.backend} does not take a budget.`);
        if (args.peer || args.workers !== undefined) throw new UsageError(`the budgeted backend runs one compute thread and no peer; --${args.peer ? 'peer' : 'workers'} does not apply.`);
        checkBudgetedRecordArgs(args);
        const planner = findPlanner(args.planner ?? 'budgeted/flexnn');
        const { repetitions, warmup, seed, weights, json } = args;
        const report = await execBudgeted(loaded.graph, { source: args.source, planner, budget, loading: args.loading, repetitions, warmup, seed, weights, records: sourceOptions(args), alignment: args.align, json });
        if (report.matchesUnbudgeted === false) process.exitCode = 1;
        return;
      }
      const common = {
        planner: findPlanner(args.planner ?? 'offsets/greedy-by-size'),
        repetitions: args.repetitions,
        warmup: args.warmup,
        seed: args.seed,
        weights: args.weights,
        records: sourceOptions(args),
        alignment: args.align,
        ...(args.workers === undefined ? {} : { workers: args.workers }),
      };
      let report;
      if (backend === 'remote') {
        if (args.url === undefined || args.token === undefined) throw new UsageError('--backend remote needs --url http://host:port and --token of a memplan agent.');
        if (args.peer) throw new UsageError('--peer times onnxruntime on this machine; it does not combine with --backend remote.');
        report = await executeRemote(loaded.graph, { ...common, url: args.url, token: args.token, backend: args.remoteBackend });
      } else {
        report = await executeGraph(loaded.graph, { ...common, backend: findBackend(backend), peer: args.peer });
      }
      if (args.json) {
        process.stdout.write(`${JSON.stringify(report)}\n`);
      } else {
        const l = report.latencyMs;
        const lines = [
          `backend     ${report.backend} (${String(report.device.cpu ?? report.device.description ?? report.device.adapter ?? report.device.backend)})`,
          `planner     ${report.planner}: ${mib(report.footprint)} MiB planned`,
          `latency     median ${l.median.toFixed(2)} ms, min ${l.min.toFixed(2)}, p90 ${l.p90.toFixed(2)}, 95% CI of the median [${l.ci95[0].toFixed(2)}, ${l.ci95[1].toFixed(2)}] over ${l.runs} runs`,
          `outputs     ${report.matchesNaive === null ? 'not checked' : report.matchesNaive ? 'bit-identical to the naive plan' : 'DIFFER from the naive plan'}`,
          ...memoryLines(report.memory),
          ...(report.parallel ? parallelLines(report.parallel) : []),
        ];
        if (report.deviceMs) {
          const d = report.deviceMs;
          lines.splice(3, 0, `device time median ${d.median.toFixed(2)} ms, min ${d.min.toFixed(2)}, 95% CI [${d.ci95[0].toFixed(2)}, ${d.ci95[1].toFixed(2)}] (${String(report.device.timing ?? 'device clock')}: the dispatches alone)`);
        }
        if (report.peer) {
          lines.push(
            `peer        ${report.peer.runtime}: median ${report.peer.latencyMs.median.toFixed(2)} ms; ours/peer ${report.peer.ratio.toFixed(2)}x; relative error ${report.peer.relativeError.toExponential(2)}`,
          );
        }
        process.stdout.write(`${lines.join('\n')}\n`);
      }
      if (report.matchesNaive === false) process.exitCode = 1;
    },
  );
}

/**
 * The backend to run: as given, else the CPU, on the worker pool (cpu-parallel) when the
 * run asks for workers or a schedule with several operators per step.
 */
function execBackend(args: ExecArgs): string {
  const parallel = args.workers !== undefined || isParallelSchedule(parseSchedule(args.schedule));
  if (args.backend === undefined) return parallel ? 'cpu-parallel' : 'cpu';
  const pool = args.backend === 'cpu-parallel' || (args.backend === 'remote' && args.remoteBackend === 'cpu-parallel');
  if (args.workers !== undefined && !pool) throw new UsageError(`--workers sets the threads of the cpu-parallel backend; --backend ${args.backend}${args.backend === 'remote' ? ` --remote-backend ${args.remoteBackend}` : ''} has none.`);
  return args.backend;
}

/** Per-step timings of a parallel run, eight steps to a line. */
function parallelLines(parallel: ParallelReport): string[] {
  const lines = [
    '',
    `parallel    ${parallel.workers} workers, ${parallel.steps} steps (${Math.max(...parallel.stepSizes)} operators in the largest); steps took ${parallel.stepsMs.toFixed(2)} ms (median); workers busy ${(parallel.busyFraction * 100).toFixed(1)}% of it; threads started with ${mib(parallel.poolRss)} MiB resident`,
    'step timings (ms, median; operators in brackets):',
  ];
  for (let start = 0; start < parallel.steps; start += 8) {
    const cells = parallel.stepMs.slice(start, start + 8).map((ms, k) => `${ms.toFixed(2)} [${parallel.stepSizes[start + k]}]`.padEnd(13));
    lines.push(`  ${String(start).padStart(4)}  ${cells.join(' ').trimEnd()}`);
  }
  return lines;
}

/** The memory figures as one aligned block of MiB, with where they were measured. */
function memoryLines(memory: MemoryReport): string[] {
  const rows: [string, number, string][] = [
    ['planned', memory.planned, "the plan's footprint"],
    ['intermediates', memory.intermediates, 'allocated for the planned tensors'],
    ['io', memory.io, 'graph inputs and outputs'],
    ['weights', memory.weights, 'one copy, as the kernels use them'],
    ['scratch', memory.scratch, 'kernel scratch, high-water'],
    ['baseline RSS', memory.baselineRss, 'after start-up, before the network'],
    ['peak RSS', memory.peakRss, 'through preparation and inference'],
    ['peak - base', memory.peakRssDelta, 'what running this plan took'],
    ['rest', memory.rest, 'peak - base not accounted for above'],
  ];
  const table = alignedTable(['figure', 'MiB', 'what'], rows.map(([name, bytes, what]) => [name, mib(bytes), what]));
  const device = memory.device === undefined ? [] : [`device      buffers created (MiB): intermediates ${mib(memory.device.intermediates)}, io ${mib(memory.device.io)}, weights ${mib(memory.device.weights)}, other ${mib(memory.device.other)}`];
  return ['', `memory      measured in an isolated process that ran this plan alone (peak: ${memory.method.replace(/; measured in an isolated process.*$/, '')})`, ...device, ...table.split('\n')];
}
