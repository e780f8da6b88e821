import type { Argv } from 'yargs';
import { mergeShards } from '../../experiments/merge.ts';

interface MergeArgs {
  runs: string[];
  to?: string;
}

export function registerMerge(cli: Argv): Argv {
  return cli.command<MergeArgs>(
    'merge <runs..>',
    'Join the run folders of a sharded sweep (memplan run --shard I/N) into one run that memplan report reads',
    (y) =>
      y
        .positional('runs', { type: 'string', array: true, demandOption: true, describe: "the shards' run folders: results/<experiment>/<run-id>-shard-I-of-N" })
        .option('to', { type: 'string', describe: 'the merged run folder (default: beside the shards, <run-id>-merged)' }) as unknown as Argv<MergeArgs>,
    async (args) => {
      const { dir, cells, skipped } = await mergeShards(args.runs, args.to);
      const note = skipped > 0 ? `; ${skipped} skipped on every machine (why: the skipped list in its run.json)` : '';
      process.stderr.write(`memplan: merged ${args.runs.length} shards, ${cells} cells${note}\n`);
      process.stdout.write(`${dir}\n`);
    },
  );
}
