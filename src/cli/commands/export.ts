import type { Argv } from 'yargs';
import type { CommandText } from '../command-text.ts';
import { graphToProblem, plannedGraph, plannedProblem, type RecordOptions } from '../../graph/lifetimes.ts';
import { writeFileAtomic } from '../../io/atomic-write.ts';
import { writeOnnx } from '../../io/onnx/write-onnx.ts';
import { recordsToCsv, recordsToJson } from '../../io/records-writers.ts';
import { InvalidPlanError } from '../../planners/invalid-plan-error.ts';
import { InputError } from '../../io/input-error.ts';
import { MAX_PLAN_TRACE_STEPS, planTrace } from '../../io/perfetto-trace.ts';
import { loadSource, SOURCE_KINDS, type SourceOptions } from '../../io/source.ts';
import { planAndVerify } from '../../planners/plan-and-verify.ts';
import type { Planner } from '../../planners/planner.ts';
import { plannerByName } from '../../experiments/load-planner.ts';
import { checkAlignedSizes, parseAlignment } from '../alignment-option.ts';
import { UsageError } from '../errors.ts';
import { sourceOptions, withSourceOptions, type SourceArgs } from '../source-options.ts';

interface ExportArgs extends SourceArgs {
  source: string;
  to: string;
  weights: boolean;
  seed: number;
  format?: 'records' | 'onnx' | 'perfetto';
  planner?: string;
  align: number;
}

export function registerExport(cli: Argv, text: CommandText): Argv {
  return cli.command<ExportArgs>(
    text.usage,
    text.describe,
    (y) =>
      withSourceOptions(y)
        .positional('source', { type: 'string', demandOption: true, describe: SOURCE_KINDS })
        .option('to', { type: 'string', demandOption: true, describe: 'records.csv (MiniMalloc, half-open), records.json (closed) or model.onnx' })
        .option('weights', { type: 'boolean', default: true, describe: 'ONNX: seeded random weights; --no-weights writes shapes only' })
        .option('seed', { type: 'number', default: 1, describe: 'ONNX: seed of the random weights' })
        .option('format', { choices: ['records', 'onnx', 'perfetto'] as const, describe: 'what to write; default from the file name (.csv, .json: records; .onnx: the model)' })
        .option('planner', { type: 'string', describe: 'perfetto: the planner whose plan the trace draws (an id, or the path of a module of your own)' })
        .option('align', { type: 'number', default: 1, describe: 'perfetto: alignment of the plan in bytes' }) as unknown as Argv<ExportArgs>,
    async (args) => {
      const extension = /\.([^./\\]+)$/.exec(args.to)?.[1]?.toLowerCase();
      const options = sourceOptions(args);
      if (args.format === 'perfetto') {
        if (extension !== 'json') throw new UsageError(`--to ${args.to}: a Perfetto trace is a .json file (Chrome trace event format).`);
        if (args.planner === undefined) throw new UsageError('--format perfetto draws a plan: give --planner ID.');
        const alignment = parseAlignment(args.align);
        await writeFileAtomic(args.to, `${JSON.stringify(await tracePlan(args.source, options, await plannerByName(args.planner), alignment))}\n`);
        process.stderr.write(`memplan: wrote ${args.to} (open it in https://ui.perfetto.dev or chrome://tracing)\n`);
        return;
      }
      if (extension !== 'csv' && extension !== 'json' && extension !== 'onnx') {
        throw new UsageError(`--to ${args.to}: the file must end in .csv, .json or .onnx.`);
      }
      if ((args.format === 'onnx') !== (extension === 'onnx') && args.format !== undefined) {
        throw new UsageError(`--format ${args.format} does not write a .${extension} file.`);
      }
      const loaded = await loadSource(args.source, options);
      if (extension === 'onnx') {
        if (loaded.kind !== 'graph') throw new UsageError(`${args.source} holds usage records, not a network; only a network can be written as ONNX.`);
        // The planned graph (transforms applied, operators in the planned order): the file
        // then runs, and plans, as the records of this source do.
        await writeFileAtomic(args.to, writeOnnx(plannedGraph(loaded.graph, options), { weights: args.weights ? 'random' : 'none', seed: args.seed }));
      } else {
        const problem = loaded.kind === 'graph' ? graphToProblem(loaded.graph, options) : loaded.problem;
        await writeFileAtomic(args.to, extension === 'csv' ? recordsToCsv(problem) : recordsToJson(problem));
      }
      process.stderr.write(`memplan: wrote ${args.to}\n`);
    },
  );
}

/** A verified plan of the source as a Perfetto trace: tensors on their objects' or offsets' tracks, producers named. */
async function tracePlan(source: string, options: SourceOptions & RecordOptions, planner: Planner, alignment: number) {
  const loaded = await loadSource(source, options);
  const producers = new Map<string, string>();
  let problem;
  if (loaded.kind === 'graph') {
    const planned = plannedProblem(loaded.graph, options);
    for (const node of planned.graph.nodes) for (const output of node.outputs) producers.set(output, `${node.name} (${node.op})`);
    problem = planned.problem;
  } else {
    problem = loaded.problem;
  }
  checkAlignedSizes(problem, alignment, source);
  // The trace holds a live-bytes sample per step: a file of huge lower/upper values plans
  // fine but would need more samples than memory holds.
  if (problem.operatorCount > MAX_PLAN_TRACE_STEPS) {
    throw new InputError(source, undefined, `its records span ${problem.operatorCount} operator steps; a plan trace draws the live bytes of every step and holds at most ${MAX_PLAN_TRACE_STEPS}.`);
  }
  const plan = planAndVerify(planner, problem, { alignment });
  // A plan the verifier rejected is a planner's bug: exit code 1 and one sentence (README).
  if (!plan.valid) throw new InvalidPlanError(`${planner.id} produced an invalid plan: ${plan.violations[0]?.message}`);
  return planTrace(problem, plan, producers);
}
