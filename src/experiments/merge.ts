import { existsSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { makeFolder } from '../io/make-folder.ts';
import { basename, dirname, join } from 'node:path';
import { withPath } from '../io/file-system-error.ts';
import { ExperimentError } from './experiment-error.ts';
import type { CellResult } from './result.ts';
import { cellKey, printableKey, ResultStore } from './result-store.ts';
import { heldError, liveHolder } from './run-lock.ts';

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
  /** The experiment's optional sources that were absent on this shard's machine (all of them, not only its own cells'). */
  readonly absentSources?: readonly string[];
  /** This shard's cells that have no result, and why; written when the shard's run ends. */
  readonly skipped?: readonly SkippedCell[];
  /**
   * The file sources as this shard's results name them (resolved on its machine), each to
   * the name its experiment file gives it, which the keys above use. Runs from before it
   * (no map) keyed cells by the resolved paths: those merge only with shards run at the same path.
   */
  readonly sources?: Readonly<Record<string, string>>;
}

/**
 * A cell a shard ran no plan for: its optional source was absent on the shard's machine (a
 * merge accepts that only where every shard's machine lacked it), or the cell cannot run
 * anywhere (a planner's size limit, a records file on an executing backend).
 */
export type SkippedCell = { readonly cell: string; readonly because: 'source-absent'; readonly source: string } | { readonly cell: string; readonly because: 'not-applicable'; readonly note: string };

interface ShardRun {
  readonly dir: string;
  readonly info: Record<string, unknown> & { shard?: ShardInfo; versions?: Record<string, string> };
  readonly shard: ShardInfo;
  readonly results: readonly CellResult[];
}

/** A result's cell as its shard keys it: the source as the experiment file names it. */
const keyOf = (r: CellResult, shard: ShardInfo): string => cellKey(shard.sources?.[r.model] ?? r.model, r.planner, r.backend);
/** At most a few items in a sentence; the rest as a count. */
const listed = (items: readonly string[], at = 5): string => `${items.slice(0, at).join('; ')}${items.length > at ? ` and ${items.length - at} more` : ''}`;
const some = (keys: readonly string[], at = 5): string => listed(keys.map(printableKey), at);

/**
 * Joins the run folders of one sharded sweep into one run that `memplan report` reads as if
 * it had run on one machine. It proves that the shards cover the experiment: same
 * experiment (configuration fingerprint) and memplan version, every shard present once, the
 * same list of cells in every shard, each cell assigned to exactly one shard, and each
 * assigned cell there once, or skipped for a reason that holds on every machine. The cells
 * are written in the order an unsharded run writes them. One sentence says what is wrong
 * otherwise. Returns the new run folder, its cells and the cells skipped.
 */
export async function mergeShards(dirs: readonly string[], to?: string): Promise<{ dir: string; cells: number; skipped: number }> {
  if (dirs.length === 0) throw new ExperimentError('give the run folders of the shards to merge.');
  const target = to ?? join(dirname(dirs[0]), `${basename(dirs[0]).replace(/-shard-\d+-of-\d+$/, '')}-merged`);
  // Never over a run, and above all not over one that is being written.
  if (existsSync(target)) {
    const holder = await liveHolder(target);
    if (holder !== undefined) throw heldError(target, holder);
    throw new ExperimentError(`${target} already exists; give another folder with --to (merge never writes over a run).`);
  }
  const runs: ShardRun[] = [];
  for (const dir of dirs) {
    const store = new ResultStore(dir);
    const info = await store.readRunInfo<ShardRun['info']>();
    if (info.shard === undefined) throw new ExperimentError(`${dir}: not a shard (its run.json has no shard); only runs made with --shard I/N merge.`);
    // A shard still running would read as one that did not finish.
    const holder = await liveHolder(dir);
    if (holder !== undefined) throw heldError(dir, holder);
    runs.push({ dir, info, shard: info.shard, results: await store.readEachOnce() });
  }
  const [first] = runs;
  const shard = first.shard;
  for (const run of runs) {
    const other = run.shard;
    if (other.configHash !== shard.configHash)
      throw new ExperimentError(
        `${run.dir} ran another configuration than ${first.dir} (fingerprints ${other.configHash} and ${shard.configHash}); shards of one sweep must run the same experiment file.`,
      );
    const [a, b] = [run.info.versions?.['memplan-bench'], first.info.versions?.['memplan-bench']];
    if (a !== b) throw new ExperimentError(`${run.dir} ran memplan ${a} and ${first.dir} memplan ${b}; merge shards of one version.`);
    if (other.count !== shard.count) throw new ExperimentError(`${run.dir} is a shard of ${other.count} and ${first.dir} of ${shard.count}.`);
  }
  const seen = new Map<number, string>();
  for (const run of runs) {
    const index = run.shard.index;
    if (seen.has(index)) throw new ExperimentError(`shard ${index}/${shard.count} is given twice: ${seen.get(index)} and ${run.dir}.`);
    seen.set(index, run.dir);
  }
  const absent = Array.from({ length: shard.count }, (_, k) => k).filter((k) => !seen.has(k));
  if (absent.length > 0) throw new ExperimentError(`shard${absent.length > 1 ? 's' : ''} ${absent.map((k) => `${k}/${shard.count}`).join(', ')} ${absent.length > 1 ? 'are' : 'is'} missing.`);
  proveCover(runs);

  const byKey = new Map<string, CellResult>();
  const foreign: string[] = [];
  // The merged run names file sources as the first shard's machine did, as if it had run them all.
  const firstPath = new Map(Object.entries(first.shard.sources ?? {}).map(([path, named]) => [named, path]));
  for (const run of runs) {
    const own = new Set(run.shard.assigned);
    for (const result of run.results) {
      const key = keyOf(result, run.shard);
      // Each shard's cells are distinct (readEachOnce) and the shares disjoint (proveCover): only a cell outside its shard's share is left to catch.
      if (!own.has(key)) foreign.push(`${printableKey(key)} (in ${run.dir}, not shard ${run.shard.index}'s)`);
      else {
        const named = run.shard.sources?.[result.model];
        const path = named === undefined ? undefined : firstPath.get(named);
        byKey.set(key, path === undefined || path === result.model ? result : { ...result, model: path });
      }
    }
  }
  if (foreign.length > 0) throw new ExperimentError(`cells in a shard that does not own them: ${listed(foreign)}.`);
  const skipped = acceptSkipped(runs, byKey);

  const name = String(first.info.experiment ?? basename(dirname(first.dir)));
  const ordered = shard.order.flatMap((key) => byKey.get(key) ?? []); // the rest are in `skipped`
  const { shard: _ignored, ...common } = first.info;
  const info = {
    ...common,
    experiment: name,
    merged: { shards: runs.map((r) => ({ dir: r.dir, index: r.shard.index, date: r.info.date, machine: r.info.machine })), count: shard.count, configHash: shard.configHash },
    ...(skipped.length > 0 ? { skipped } : {}),
  };
  // Written whole in a folder beside the target, then renamed: a merge cut short leaves no half run that report would read.
  const partial = `${target}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  await makeFolder(partial);
  const store = new ResultStore(partial);
  try {
    await store.writeRunInfo(info);
    try {
      await writeFile(store.resultsPath, ordered.map((r) => `${JSON.stringify(r)}\n`).join(''));
    } catch (error) {
      // A full disk: Node's write error names no file.
      throw withPath(error, store.resultsPath);
    }
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
  return { dir: target, cells: ordered.length, skipped: skipped.length };
}

/**
 * That the shards split one list of cells, each cell to exactly one shard: the same `order`
 * in every shard, `assigned` lists that do not overlap and together are `order`. Shards that
 * split on what their machines had (before the split came from the experiment file alone)
 * fail here rather than leave cells out.
 */
function proveCover(runs: readonly ShardRun[]): void {
  const [first] = runs;
  const order = first.shard.order;
  for (const run of runs) {
    const other = run.shard.order;
    const at = other.findIndex((key, k) => key !== order[k]);
    if (other.length !== order.length || at >= 0) {
      const where =
        at >= 0
          ? `cell ${at + 1} is ${printableKey(other[at])} in ${run.dir} and ${order[at] === undefined ? 'absent' : printableKey(order[at])} in ${first.dir}`
          : `${run.dir} lists ${other.length} cells and ${first.dir} ${order.length}`;
      throw new ExperimentError(`the shards disagree on the experiment's cells (${where}); run every shard of the sweep with one memplan version and experiment file.`);
    }
  }
  const owner = new Map<string, number>();
  const twice: string[] = [];
  for (const run of runs) {
    for (const key of run.shard.assigned) {
      const before = owner.get(key);
      if (before !== undefined) twice.push(`${printableKey(key)} (shards ${before} and ${run.shard.index})`);
      else owner.set(key, run.shard.index);
    }
  }
  if (twice.length > 0) throw new ExperimentError(`cells assigned to two shards: ${listed(twice)}; the shards split the cells differently, so run them again with one memplan version.`);
  const known = new Set(order);
  const unknown = [...owner.keys()].filter((key) => !known.has(key));
  if (unknown.length > 0) throw new ExperimentError(`cells assigned to a shard but not in the experiment's cells: ${some(unknown)}; the shards' run.json files are damaged.`);
  const nobody = order.filter((key) => !owner.has(key));
  if (nobody.length > 0) throw new ExperimentError(`cells assigned to no shard: ${some(nobody)}; the shards split the cells differently, so run them again with one memplan version.`);
}

/**
 * The assigned cells with no result, accepted only where no machine could have run them: a
 * cell skipped as not applicable (a size limit, which holds everywhere), or one whose
 * optional source was absent on every shard's machine. A source absent on some machines and
 * present on others names the shards to run again where the file is; anything else is a
 * shard that did not finish.
 */
function acceptSkipped(runs: readonly ShardRun[], byKey: ReadonlyMap<string, CellResult>): { model: string; planner: string; backend: string; why: string }[] {
  const lackedEverywhere = (source: string): boolean => runs.every((run) => (run.shard.absentSources ?? []).includes(source));
  const accepted: { key: string; why: string }[] = [];
  const unfinished: string[] = [];
  /** source -> shard runs that skipped some of its cells, with those cells. */
  const rerun = new Map<string, Map<ShardRun, string[]>>();
  for (const run of runs) {
    const why = new Map((run.shard.skipped ?? []).map((s) => [s.cell, s]));
    for (const key of run.shard.assigned) {
      if (byKey.has(key)) continue;
      const skip = why.get(key);
      if (skip?.because === 'not-applicable') accepted.push({ key, why: skip.note });
      else if (skip?.because === 'source-absent' && lackedEverywhere(skip.source)) accepted.push({ key, why: `${skip.source} is absent on every shard's machine` });
      else if (skip?.because === 'source-absent') {
        const shards = rerun.get(skip.source) ?? new Map<ShardRun, string[]>();
        shards.set(run, [...(shards.get(run) ?? []), key]);
        rerun.set(skip.source, shards);
      } else unfinished.push(`${printableKey(key)} (shard ${run.shard.index}, ${run.dir})`);
    }
  }
  if (rerun.size > 0) {
    const [source, shards] = [...rerun][0];
    const having = runs.filter((run) => !(run.shard.absentSources ?? []).includes(source)).map((run) => run.shard.index);
    const lacking = [...shards].map(([run, keys]) => `shard ${run.shard.index} (${run.dir}: ${some(keys, 3)})`);
    const count = runs[0].shard.count;
    const again = [...shards.keys()].map((run) => `${run.shard.index}/${count}`).join(', ');
    throw new ExperimentError(
      `${source} was present on the machine of shard${having.length > 1 ? 's' : ''} ${having.join(', ')} but absent on that of ${lacking.join(' and ')}, whose cells of it have no result; run shard ${again} again with --resume on a machine that has the file${rerun.size > 1 ? ` (${rerun.size - 1} more source${rerun.size > 2 ? 's' : ''} likewise)` : ''}.`,
    );
  }
  if (unfinished.length > 0) throw new ExperimentError(`cells missing (a shard did not finish: run it again with --resume): ${listed(unfinished)}.`);
  const order = runs[0].shard.order;
  const position = new Map(order.map((key, k) => [key, k]));
  return accepted
    .sort((a, b) => (position.get(a.key) ?? 0) - (position.get(b.key) ?? 0))
    .map(({ key, why }) => {
      const [model, planner, backend] = key.split('\u0000');
      return { model, planner, backend, why };
    });
}
