import type { Argv } from 'yargs';
import { graphToProblem, plannedGraph } from '../../graph/lifetimes.ts';
import { writeFileAtomic } from '../../io/atomic-write.ts';
import { writeOnnx } from '../../io/onnx/write-onnx.ts';
import { recordsToCsv, recordsToJson } from '../../io/records-writers.ts';
import { loadSource, SOURCE_KINDS } from '../../io/source.ts';
import { UsageError } from '../errors.ts';
import { sourceOptions, withSourceOptions, type SourceArgs } from '../source-options.ts';

interface ExportArgs extends SourceArgs {
  source: string;
  to: string;
  weights: boolean;
  seed: number;
}

export function registerExport(cli: Argv): Argv {
  return cli.command<ExportArgs>(
    'export <source>',
    'Write a source as usage records (.csv, .json) or as an ONNX model (.onnx)',
    (y) =>
      withSourceOptions(y)
        .positional('source', { type: 'string', demandOption: true, describe: SOURCE_KINDS })
        .option('to', { type: 'string', demandOption: true, describe: 'records.csv (MiniMalloc, half-open), records.json (closed) or model.onnx' })
        .option('weights', { type: 'boolean', default: true, describe: 'ONNX: seeded random weights; --no-weights writes shapes only' })
        .option('seed', { type: 'number', default: 1, describe: 'ONNX: seed of the random weights' }) as unknown as Argv<ExportArgs>,
    async (args) => {
      const extension = /\.([^./\\]+)$/.exec(args.to)?.[1]?.toLowerCase();
      if (extension !== 'csv' && extension !== 'json' && extension !== 'onnx') {
        throw new UsageError(`--to ${args.to}: the file must end in .csv, .json or .onnx.`);
      }
      const options = sourceOptions(args);
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
