import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Argv } from 'yargs';
import type { CommandText } from '../command-text.ts';
import { mergeShards } from '../../experiments/merge.ts';

interface MergeArgs {
  runs: string[];
  to?: string;
}

export function registerMerge(cli: Argv, text: CommandText): Argv {
  return cli.command<MergeArgs>(
    text.usage,
    text.describe,
    (y) =>
      y
        .positional('runs', {
          type: 'string',
          array: true,
          demandOption: true,
          describe: "the shards' run folders: results/<experiment>/<run-id>-shard-I-of-N; a * in the last part of a path is expanded here, where no shell does it (a container's args)",
        })
        .option('to', { type: 'string', describe: 'the merged run folder (default: beside the shards, <run-id>-merged)' }) as unknown as Argv<MergeArgs>,
    async (args) => {
      const runs = (await Promise.all(args.runs.map(expandPattern))).flat();
      const { dir, cells, skipped } = await mergeShards(runs, args.to);
      const note = skipped > 0 ? `; ${skipped} skipped on every machine (why: the skipped list in its run.json)` : '';
      process.stderr.write(`memplan: merged ${runs.length} shards, ${cells} cells${note}\n`);
      process.stdout.write(`${dir}\n`);
    },
  );
}

/**
 * A run folder as given, or the folders a `*` in its last part matches (sorted): where
 * memplan runs as a container's command, no shell expands the pattern. A pattern that
 * matches nothing is passed on as it is, and merge says it is not a run folder.
 */
async function expandPattern(path: string): Promise<string[]> {
  const name = basename(path);
  if (!name.includes('*') || existsSync(path)) return [path];
  const folder = dirname(path);
  const pattern = new RegExp(
    `^${name
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  const entries = existsSync(folder) ? await readdir(folder, { withFileTypes: true }) : [];
  const matched = entries
    .filter((e) => e.isDirectory() && pattern.test(e.name))
    .map((e) => join(folder, e.name))
    .sort();
  return matched.length > 0 ? matched : [path];
}
