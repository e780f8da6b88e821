import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ExperimentError } from './config.ts';
import type { CellResult } from './result.ts';
import { cellKey, ResultStore } from './result-store.ts';

/** What a shard's run.json says of its share (written by the runner with --shard). */
export interface ShardInfo {
  readonly index: number;
  readonly count: number;
  /** Fingerprint of the experiment's configuration: shards of one sweep share it. */
  readonly configHash: string;
  /** Every cell of the experiment, in the order an unsharded run would run them. */
  readonly order: readonly string[];
  /** The cells of this shard. */
  readonly assigned: readonly string[];
}

interface ShardRun {
  readonly dir: string;
  readonly info: Record<string, unknown> & { shard?: ShardInfo; versions?: Record<string, string> };
  readonly results: readonly CellResult[];
}

const keyOf = (r: CellResult): string => cellKey(r.model, r.planner, r.backend);
const printable = (key: string): string => key.split('\u0000').join(' / ');

/**
 * Joins the run folders of one sharded sweep into one run that `memplan report` reads as if
 * it had run on one machine: the shards must be of the same experiment (configuration
 * fingerprint) and memplan version, every shard present once, every cell present exactly
 * once; the cells are written in the order an unsharded run writes them. A clear error lists
 * what is missing or doubled. Returns the new run folder.
 */
export async function mergeShards(dirs: readonly string[], to?: string): Promise<{ dir: string; cells: number }> {
  if (dirs.length === 0) throw new ExperimentError('give the run folders of the shards to merge.');
  const runs: ShardRun[] = [];
  for (const dir of dirs) {
    const store = new ResultStore(dir);
    const info = await store.readRunInfo<ShardRun['info']>();
    if (info.shard === undefined) throw new ExperimentError(`${dir}: not a shard (its run.json has no shard); only runs made with --shard I/N merge.`);
    runs.push({ dir, info, results: await store.read() });
  }
  const [first] = runs;
  const shard = first.info.shard!;
  for (const run of runs) {
    const other = run.info.shard!;
    if (other.configHash !== shard.configHash) throw new ExperimentError(`${run.dir} ran another configuration than ${first.dir} (fingerprints ${other.configHash} and ${shard.configHash}); shards of one sweep must run the same experiment file.`);
    const [a, b] = [run.info.versions?.['memplan-bench'], first.info.versions?.['memplan-bench']];
    if (a !== b) throw new ExperimentError(`${run.dir} ran memplan ${a} and ${first.dir} memplan ${b}; merge shards of one version.`);
    if (other.count !== shard.count) throw new ExperimentError(`${run.dir} is a shard of ${other.count} and ${first.dir} of ${shard.count}.`);
  }
  const seen = new Map<number, string>();
  for (const run of runs) {
    const index = run.info.shard!.index;
    if (seen.has(index)) throw new ExperimentError(`shard ${index}/${shard.count} is given twice: ${seen.get(index)} and ${run.dir}.`);
    seen.set(index, run.dir);
  }
  const absent = Array.from({ length: shard.count }, (_, k) => k).filter((k) => !seen.has(k));
  if (absent.length > 0) throw new ExperimentError(`shard${absent.length > 1 ? 's' : ''} ${absent.map((k) => `${k}/${shard.count}`).join(', ')} ${absent.length > 1 ? 'are' : 'is'} missing.`);

  const byKey = new Map<string, CellResult>();
  const doubled: string[] = [];
  const missing: string[] = [];
  for (const run of runs) {
    const own = new Set(run.info.shard!.assigned);
    for (const result of run.results) {
      const key = keyOf(result);
      if (byKey.has(key)) doubled.push(printable(key));
      else if (!own.has(key)) doubled.push(`${printable(key)} (not shard ${run.info.shard!.index}'s)`);
      else byKey.set(key, result);
    }
    for (const key of own) if (!run.results.some((r) => keyOf(r) === key)) missing.push(`${printable(key)} (shard ${run.info.shard!.index}, ${run.dir})`);
  }
  if (doubled.length > 0) throw new ExperimentError(`cells present more than once: ${doubled.join('; ')}.`);
  if (missing.length > 0) throw new ExperimentError(`cells missing (a shard did not finish: run it again with --resume): ${missing.join('; ')}.`);

  const name = String(first.info.experiment ?? basename(dirname(first.dir)));
  const target = to ?? join(dirname(first.dir), `${basename(first.dir).replace(/-shard-\d+-of-\d+$/, '')}-merged`);
  if (existsSync(target)) throw new ExperimentError(`${target} already exists; give another folder with --to (merge never writes over a run).`);
  const ordered = shard.order.flatMap((key) => byKey.get(key) ?? []); // a cell no shard ran: skipped (an absent optional source)
  const { shard: _ignored, ...common } = first.info;
  const info = { ...common, experiment: name, merged: { shards: runs.map((r) => ({ dir: r.dir, index: r.info.shard!.index, date: r.info.date, machine: r.info.machine })), count: shard.count, configHash: shard.configHash } };
  // Written whole in a folder beside the target, then renamed: a merge cut short leaves no half run that report would read.
  const partial = `${target}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  const store = new ResultStore(partial);
  await store.writeRunInfo(info);
  await writeFile(store.resultsPath, ordered.map((r) => `${JSON.stringify(r)}\n`).join(''));
  await rename(partial, target);
  return { dir: target, cells: ordered.length };
}
