import type { Argv } from 'yargs';
import type { CommandText } from '../command-text.ts';
import { budgetTooLarge, MAX_BUDGET_BYTES } from '../../backends/budgeted/budgeted-backend.ts';
import { maxWorkers } from '../../backends/cpu-parallel/cpu-parallel-backend.ts';
import { findBackend, hasCapability, kindsWhere, servedKinds } from '../../backends/registry.ts';
import { executionRecords } from '../../backends/execution-records.ts';
import { execute } from '../../measuring/execute.ts';
import { execPlacement } from '../exec-placement.ts';
import { loadSource, SOURCE_KINDS } from '../../io/source.ts';
import { plannerByName } from '../../experiments/load-planner.ts';
import { parseAlignment } from '../alignment-option.ts';
import { checkBudgetedRecordArgs, parseAdaptBudgets, parseBudget, parseStorageBandwidthOption } from '../budget-options.ts';
import { UsageError } from '../errors.ts';
import { execBudgeted } from '../exec-budgeted.ts';
import type { MemoryReport, Timeline } from '../../backends/execution-report.ts';
import type { ParallelReport } from '../../backends/parallel-report.ts';
import { isParallelSchedule, parseSchedule } from '../../graph/schedule.ts';
import { alignedTable, mib } from '../format.ts';
import { writeFileAtomic } from '../../io/atomic-write.ts';
import { runTrace } from '../../io/perfetto-trace.ts';
import { sourceOptions, withSourceOptions, type SourceArgs } from '../source-options.ts';
import { TOKEN_ENV } from '../agent-token.ts';
import { peerChoice } from '../peer-option.ts';
import { layoutLine, ranLayout } from '../ran-layout.ts';

interface ExecArgs extends SourceArgs {
  source: string;
  backend?: string;
  workers?: number;
  threads?: number;
  planner?: string;
  budget?: string;
  loading: string;
  directIo: boolean;
  storageBandwidth?: string;
  adapt?: string;
  weightsDir?: string;
  repetitions: number;
  warmup: number;
  seed: number;
  weights: 'seeded' | 'file';
  align: number;
  peer: boolean;
  peers?: string;
  json: boolean;
  trace?: string;
  url?: string;
  token?: string;
  remoteBackend: string;
  browser?: string;
  device?: string;
}

export function registerExec(cli: Argv, text: CommandText): Argv {
  return cli.command<ExecArgs>(
    text.usage,
    text.describe,
    (y) =>
      withSourceOptions(y)
        .positional('source', { type: 'string', demandOption: true, describe: SOURCE_KINDS })
        .option('backend', {
          type: 'string',
          describe: `${servedKinds().join(', ')} (memplan list backends), or remote (a memplan agent: --url, --token); default cpu, or cpu-parallel with --workers or a --schedule other than sequential; --budget runs ${kindsWhere('streamsWeights').join(', ')}`,
        })
        .option('workers', { type: 'number', describe: "cpu-parallel: threads that run a step's operators at once (default and most: the number of cores)" })
        .option('threads', {
          type: 'number',
          describe: "split each operator's kernel over N threads (the cpu-parallel pool, N workers unless --workers; each node's scratch planned once per thread); the peers run N intra-op threads",
        })
        .option('url', { type: 'string', describe: 'remote: the agent, http://host:port' })
        .option('token', { type: 'string', describe: `remote: the token the agent was started with (or set ${TOKEN_ENV}, which keeps it out of the command line)` })
        .option('remote-backend', { type: 'string', default: 'cpu', describe: `remote: the agent's backend (${servedKinds().join(', ')})` })
        .option('device', { type: 'string', describe: 'remote: a browser that joined the agent as a device (memplan list devices); the job runs there, on its WebGPU' })
        .option('browser', { type: 'string', describe: 'browser: the Chromium-based browser to start, a path or a name on PATH (default: chromium, google-chrome, ... on PATH)' })
        .option('planner', { type: 'string', describe: 'planner id, or the path of a module of your own (.ts, .js) that exports one (default offsets/greedy-by-size; budgeted/flexnn with a budget)' })
        .option('budget', { type: 'string', describe: 'run in one buffer of this many bytes (35MiB, 4MB, 1048576), weights streamed from a file (the budgeted backend)' })
        .option('loading', { type: 'string', default: 'overlapped', describe: 'budgeted: overlapped (a loader thread reads ahead, FlexNN) or on-demand (each layer when it runs)' })
        .option('direct-io', { type: 'boolean', default: true, describe: 'budgeted: read the weights past the page cache (O_DIRECT) where the file system takes it; --no-direct-io reads through it' })
        .option('storage-bandwidth', { type: 'string', describe: "budgeted: hold weight reads to a stated storage speed, bytes per second (150MB, 1.5GB/s): a phone's flash on this machine's disk" })
        .option('weights-dir', { type: 'string', describe: "budgeted: the folder the weights file is written under (default: the system's temporary folder): the storage the reads measure" })
        .option('adapt', {
          type: 'string',
          describe:
            'budgeted: budgets the run changes to after --budget, comma-separated (300MiB,200MiB,500MiB): each a phase of --repetitions inferences, re-sliced and re-planned when it begins, its peak measured on its own (FlexNN)',
        })
        .option('repetitions', { type: 'number', default: 20, describe: 'timed inferences' })
        .option('warmup', { type: 'number', default: 3, describe: 'untimed inferences first' })
        .option('seed', { type: 'number', default: 1, describe: 'seed of the weights and the input' })
        .option('weights', { choices: ['seeded', 'file'] as const, default: 'seeded' as const, describe: "seeded random, or the file's own float32 weights" })
        .option('align', { type: 'number', default: 64, describe: 'alignment of planned offsets in bytes (a power of two, at least 4)' })
        .option('peer', { type: 'boolean', default: false, describe: "also time onnxruntime-node and onnxruntime-web's WebAssembly build (one thread each) on the same network and inputs" })
        .option('peers', { type: 'string', describe: 'the peers to time: node, web or node,web (implies --peer); onnxruntime-web compiles its WebAssembly first, 10 s of CPU' })
        .option('trace', { type: 'string', describe: 'also time every operator of one more inference and write it as a Perfetto / Chrome trace (JSON) to this file' })
        .option('json', { type: 'boolean', default: false }) as unknown as Argv<ExecArgs>,
    async (args) => {
      // float32 views need offsets of at least 4 bytes; the common parser keeps every --align a power of two.
      if (parseAlignment(args.align) < 4) throw new UsageError(`exec runs float32 tensors: --align must be at least 4 bytes, got ${args.align}.`);
      for (const [name, value, min] of [
        ['repetitions', args.repetitions, 1],
        ['warmup', args.warmup, 0],
        ['workers', args.workers ?? 1, 1],
        ['threads', args.threads ?? 1, 1],
      ] as const) {
        if (!Number.isSafeInteger(value) || value < min) throw new UsageError(`--${name} must be a whole number >= ${min}, got ${value}.`);
      }
      // A remote agent's machine has cores of its own: its backend judges the count there.
      if (args.workers !== undefined && args.workers > maxWorkers() && args.backend !== 'remote') {
        throw new UsageError(`--workers ${args.workers} is more than this machine's ${maxWorkers()} cores; the cpu-parallel backend runs at most one worker per core.`);
      }
      if (args.threads !== undefined && args.threads > maxWorkers() && args.backend !== 'remote') {
        throw new UsageError(`--threads ${args.threads} is more than this machine's ${maxWorkers()} cores; an operator is split over at most one thread per core.`);
      }
      const peers = peerChoice(args.peer, args.peers);
      const peer = peers.node || peers.web;
      const budget = parseBudget(args.budget);
      const backend = budget !== undefined ? 'budgeted' : execBackend(args);
      const loaded = await loadSource(args.source, sourceOptions(args));
      if (loaded.kind !== 'graph') throw new UsageError(`${args.source} holds usage records, not a network; exec runs networks.`);
      if (backend === 'budgeted') {
        // The streaming executor (a budget, weights from a file) has its own report.
        if (args.backend !== undefined && args.backend !== 'budgeted') throw new UsageError(`--budget runs the budgeted backend; --backend ${args.backend} does not take a budget.`);
        if (peer || args.workers !== undefined || args.threads !== undefined)
          throw new UsageError(`the budgeted backend runs one compute thread and no peer; --${peer ? 'peer' : args.workers !== undefined ? 'workers' : 'threads'} does not apply.`);
        checkBudgetedRecordArgs(args);
        const storageBandwidth = parseStorageBandwidthOption(args.storageBandwidth);
        const adapt = parseAdaptBudgets(args.adapt, budget);
        if (budget !== undefined && budget > MAX_BUDGET_BYTES) throw new UsageError(`--budget: ${budgetTooLarge(budget)}`);
        const planner = await plannerByName(args.planner ?? 'budgeted/flexnn');
        const { repetitions, warmup, seed, weights, json } = args;
        const report = await execBudgeted(loaded.graph, {
          source: args.source,
          planner,
          budget,
          loading: args.loading,
          repetitions,
          warmup,
          seed,
          weights,
          records: sourceOptions(args),
          alignment: args.align,
          json,
          directIo: args.directIo,
          ...(storageBandwidth === undefined ? {} : { storageBandwidth }),
          ...(adapt === undefined ? {} : { adapt }),
          ...(args.weightsDir === undefined ? {} : { weightsDir: args.weightsDir }),
          ...(args.trace === undefined ? {} : { timeline: true }),
        });
        if (args.trace !== undefined) await writeTrace(args.trace, args.source, report, json);
        if (report.matchesUnbudgeted === false || report.adaptations?.some((phase) => phase.matchesUnbudgeted === false)) process.exitCode = 1;
        return;
      }
      if (args.adapt !== undefined) throw new UsageError('--adapt changes the budget of a budgeted run; give the first with --budget.');
      if (args.weightsDir !== undefined) throw new UsageError('--weights-dir says where the budgeted backend writes its weights file; give it with --budget (or --backend budgeted).');
      if (args.storageBandwidth !== undefined || !args.directIo)
        throw new UsageError(
          `--${args.storageBandwidth !== undefined ? 'storage-bandwidth' : 'no-direct-io'} says how the budgeted backend reads its weights file; give it with --budget (or --backend budgeted).`,
        );
      if (args.trace !== undefined && !hasCapability(backend, 'traces'))
        throw new UsageError(`--trace times the operators of the ${kindsWhere('traces').join(', ')} backends; the ${backend} backend cannot.`);
      if (args.browser !== undefined && backend !== 'browser') throw new UsageError(`--browser names the browser of --backend browser; --backend ${backend} starts none.`);
      if (args.device !== undefined && backend !== 'remote') throw new UsageError('--device names a browser that joined a memplan agent; give it with --backend remote --url --token.');
      const common = {
        planner: await plannerByName(args.planner ?? 'offsets/greedy-by-size'),
        repetitions: args.repetitions,
        warmup: args.warmup,
        seed: args.seed,
        weights: args.weights,
        // Operators split over threads: the plan holds a scratch band per thread (RecordOptions.threads).
        records: { ...sourceOptions(args), ...(args.threads === undefined ? {} : { threads: args.threads }) },
        alignment: args.align,
        ...(args.workers === undefined ? {} : { workers: args.workers }),
      };
      const { kind, placement } = execPlacement({ ...args, peer }, backend);
      const ran = findBackend(kind);
      const report = await execute(loaded.graph, { ...common, backend: ran, peer: peers.node, webPeer: peers.web, ...(args.trace === undefined ? {} : { timeline: true }) }, placement);
      if (args.trace !== undefined) await writeTrace(args.trace, args.source, report, args.json);
      const { timeline: _timeline, samplesMs: _samples, deviceSamplesMs: _deviceSamples, ...printed } = report;
      // Laid out NHWC where the records the run planned ask for it (--nhwc, or the backend's own: executionRecords).
      const layout = ranLayout(loaded.graph, executionRecords(ran, common.records).nhwc === true);
      if (args.json) {
        process.stdout.write(`${JSON.stringify(layout === undefined ? printed : { ...printed, layout })}\n`);
      } else {
        const l = report.latencyMs;
        const lines = [
          `backend     ${report.backend} (${String(report.device.cpu ?? report.device.description ?? report.device.adapter ?? report.device.backend)})`,
          `planner     ${report.planner}: ${mib(report.footprint)} MiB planned`,
          `latency     median ${l.median.toFixed(2)} ms, min ${l.min.toFixed(2)}, p90 ${l.p90.toFixed(2)}, 95% CI of the median [${l.ci95[0].toFixed(2)}, ${l.ci95[1].toFixed(2)}] over ${l.runs} runs`,
          `outputs     ${report.matchesNaive === null ? 'not checked' : report.matchesNaive ? 'bit-identical to the naive plan' : 'DIFFER from the naive plan'}`,
          ...(layout === undefined ? [] : [`layout      ${layoutLine(layout)}`]),
          ...memoryLines(report.memory),
          ...(report.parallel ? parallelLines(report.parallel) : []),
        ];
        if (report.deviceMs) {
          const d = report.deviceMs;
          lines.splice(
            3,
            0,
            `device time median ${d.median.toFixed(2)} ms, min ${d.min.toFixed(2)}, 95% CI [${d.ci95[0].toFixed(2)}, ${d.ci95[1].toFixed(2)}] (${String(report.device.timing ?? 'device clock')}: the dispatches alone)`,
          );
        }
        for (const peer of report.peers ?? []) {
          lines.push(`peer        ${peer.runtime}: median ${peer.latencyMs.median.toFixed(2)} ms; ours/peer ${peer.ratio.toFixed(2)}x; relative error ${peer.relativeError.toExponential(2)}`);
        }
        process.stdout.write(`${lines.join('\n')}\n`);
      }
      if (report.matchesNaive === false) process.exitCode = 1;
    },
  );
}

/**
 * Writes one traced inference as a Perfetto / Chrome trace, atomically, and says so on
 * stderr (stdout may be JSON).
 */
async function writeTrace(
  file: string,
  source: string,
  report: { readonly planner: string; readonly backend: string; readonly footprint: number; readonly timeline?: Timeline },
  json: boolean,
): Promise<void> {
  if (report.timeline === undefined) throw new UsageError(`the ${report.backend} backend did not time its operators; --trace runs on ${kindsWhere('traces').join(', ')}.`);
  const meta = { source, planner: report.planner, backend: report.backend, footprint: report.footprint };
  await writeFileAtomic(file, `${JSON.stringify(runTrace(report.timeline.spans, report.timeline.problem, meta))}\n`);
  const threads = new Set(report.timeline.spans.map((s) => s.thread)).size;
  if (!json)
    process.stderr.write(`memplan: wrote ${file}: ${report.timeline.spans.length} slices on ${threads} thread track${threads === 1 ? '' : 's'} (open it in ui.perfetto.dev or chrome://tracing)\n`);
}

/**
 * The backend to run: as given, else the CPU, on the worker pool (cpu-parallel) when the
 * run asks for workers, operators split over threads or a schedule with several operators
 * per step.
 */
function execBackend(args: ExecArgs): string {
  const parallel = args.workers !== undefined || (args.threads ?? 1) > 1 || isParallelSchedule(parseSchedule(args.schedule));
  if (args.backend === undefined) return parallel ? 'cpu-parallel' : 'cpu';
  const kind = args.backend === 'remote' ? args.remoteBackend : args.backend;
  const named = `--backend ${args.backend}${args.backend === 'remote' ? ` --remote-backend ${args.remoteBackend}` : ''}`;
  if (args.workers !== undefined && !hasCapability(kind, 'parallelSteps')) throw new UsageError(`--workers sets the threads of the cpu-parallel backend; ${named} has none.`);
  // The CPU backends split operators (cpu one part after the other); another backend would plan bands it never uses.
  if (args.threads !== undefined && kind !== 'cpu' && kind !== 'cpu-parallel') throw new UsageError(`--threads splits operators on the cpu and cpu-parallel backends; ${named} does not.`);
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
    ['intermediates', memory.intermediates, "allocated for the plan's records (tensors and kernel scratch)"],
    ['io', memory.io, 'graph inputs and outputs the plan leaves out'],
    ['weights', memory.weights, 'one copy, as the kernels use them'],
    ['scratch', memory.scratch, 'kernel scratch the plan does not hold, high-water'],
    ['baseline RSS', memory.baselineRss, 'after start-up, before the network'],
    ['peak RSS', memory.peakRss, 'through preparation and inference'],
    ['peak - base', memory.peakRssDelta, 'what running this plan took'],
    ['rest', memory.rest, 'peak - base not accounted for above'],
    ...(memory.runtime === undefined ? [] : [['runtime', memory.runtime, "the executor's start-up, before the baseline"] as [string, number, string]]),
    ...(memory.job === undefined ? [] : [['job', memory.job, 'the job checked and a dry run of it, before the baseline'] as [string, number, string]]),
  ];
  // A figure the backend cannot measure (a browser page has no RSS) is said to be so, not printed as a number.
  const table = alignedTable(
    ['figure', 'MiB', 'what'],
    rows.map(([name, bytes, what]) => [name, Number.isFinite(bytes) ? mib(bytes) : 'unavailable', what]),
  );
  const device =
    memory.device === undefined
      ? []
      : [`device      buffers created (MiB): intermediates ${mib(memory.device.intermediates)}, io ${mib(memory.device.io)}, weights ${mib(memory.device.weights)}, other ${mib(memory.device.other)}`];
  const where =
    memory.unavailable !== undefined
      ? `as the backend counted it: ${memory.method}`
      : `measured in an isolated process that ran this plan alone (peak: ${memory.method.replace(/; measured in an isolated process.*$/, '')})`;
  return ['', `memory      ${where}`, ...device, ...table.split('\n')];
}
