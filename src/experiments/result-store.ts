import { existsSync } from 'node:fs';
import { mkdir, open, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../io/atomic-write.ts';
import { withPath } from '../io/file-system-error.ts';
import { makeFolder } from '../io/make-folder.ts';
import { ExperimentError } from './experiment-error.ts';
import type { CellResult } from './result.ts';

/**
 * A run folder: `run.json` (written atomically) and `results.jsonl`, one finished cell per
 * line, each appended whole. A killed run leaves at worst a torn last line, which reading
 * ignores, and a failed append (a full disk) is cut back off, so no finished cell is ever lost.
 */
export class ResultStore {
  constructor(readonly dir: string) {}

  static async create(root: string, experiment: string, runId: string): Promise<ResultStore> {
    await makeFolder(join(root, experiment));
    // The run's own folder is made without `recursive`, so that of two runs started in the
    // same second each gets a folder of its own (the second is told EEXIST and takes -2).
    for (let k = 1; ; k++) {
      const dir = join(root, experiment, k === 1 ? runId : `${runId}-${k}`);
      try {
        await mkdir(dir);
        return new ResultStore(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
  }

  /**
   * The most recent run folder of an experiment (run ids are UTC times: the last by name).
   * For `--resume`: of the folders named with `suffix` (one shard's), or of the unsharded
   * ones (no shard or merge suffix). For `report`, `suffix` '*': of every folder with a
   * run.json, shards and merges too.
   */
  static async latest(root: string, experiment: string, suffix = ''): Promise<ResultStore | undefined> {
    const base = join(root, experiment);
    if (!existsSync(base)) return undefined;
    const runs = (await readdir(base, { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      // A merge's folder in the making (`.partial-<pid>`) is nobody's run.
      .filter((name) => !name.includes('.partial-'))
      .filter((name) => (suffix === '*' ? existsSync(join(base, name, 'run.json')) : suffix === '' ? !/-shard-\d+-of-\d+$|-merged$/.test(name) : name.endsWith(suffix)))
      .sort();
    return runs.length === 0 ? undefined : new ResultStore(join(base, runs[runs.length - 1]));
  }

  get resultsPath(): string {
    return join(this.dir, 'results.jsonl');
  }

  async writeRunInfo(info: object): Promise<void> {
    await writeFileAtomic(join(this.dir, 'run.json'), `${JSON.stringify(info, null, 2)}\n`);
  }

  /** The folder's run.json; a folder without one, or with a damaged one, is one clear sentence. */
  async readRunInfo<T>(): Promise<T> {
    const path = join(this.dir, 'run.json');
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR')
        throw new ExperimentError(`${this.dir}: not a run folder (it has no run.json); run folders are results/<experiment>/<run-id>, written by memplan run.`);
      throw new ExperimentError(`${path}: cannot be read (${code ?? (error as Error).message}).`);
    }
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new ExperimentError(`${path}: not valid JSON (${(error as Error).message}); the run folder is damaged.`);
    }
  }

  /** Cuts a torn last line (a run killed mid-write) so that appending can go on. */
  async repairTail(): Promise<void> {
    if (!existsSync(this.resultsPath)) return;
    const text = await readFile(this.resultsPath, 'utf8');
    if (text === '' || text.endsWith('\n')) return;
    await writeFileAtomic(this.resultsPath, text.slice(0, text.lastIndexOf('\n') + 1));
  }

  /**
   * Appends one finished cell (a CellResult, or a study's own cell) as one whole line, or
   * not at all: a write that fails part-way (a full disk) is cut back to the length before
   * it, and its error names results.jsonl (Node's write errors name no file).
   */
  async append(result: object): Promise<void> {
    let handle;
    try {
      handle = await open(this.resultsPath, 'a');
    } catch (error) {
      throw withPath(error, this.resultsPath);
    }
    try {
      const before = (await handle.stat()).size;
      try {
        await handle.writeFile(`${JSON.stringify(result)}\n`);
      } catch (error) {
        await handle.truncate(before).catch(() => undefined);
        throw withPath(error, this.resultsPath);
      }
    } finally {
      await handle.close();
    }
  }

  async read(): Promise<CellResult[]> {
    return this.readCells<CellResult>();
  }

  /**
   * The finished cells, refusing a folder that holds one cell twice: two runs wrote into it
   * at once (before run folders were locked), and a table would quietly take one of the two.
   */
  async readEachOnce(): Promise<CellResult[]> {
    const lines = await this.readLines<CellResult>();
    const first = new Map<string, number>();
    for (const { value, line } of lines) {
      const key = cellKey(value.model, value.planner, value.backend);
      const before = first.get(key);
      if (before !== undefined) {
        throw new ExperimentError(
          `${this.dir} holds the cell ${printableKey(key)} twice (results.jsonl lines ${before} and ${line}): two runs wrote into it at once, so run the experiment again into a new folder.`,
        );
      }
      first.set(key, line);
    }
    return lines.map((l) => l.value);
  }

  /** The finished cells, whatever their shape (a study's). */
  async readCells<T>(): Promise<T[]> {
    return (await this.readLines<T>()).map((l) => l.value);
  }

  private async readLines<T>(): Promise<{ value: T; line: number }[]> {
    if (!existsSync(this.resultsPath)) return [];
    const text = await readFile(this.resultsPath, 'utf8');
    const results: { value: T; line: number }[] = [];
    const lines = text.split('\n');
    lines.forEach((line, k) => {
      if (line.trim() === '') return;
      try {
        results.push({ value: JSON.parse(line) as T, line: k + 1 });
      } catch (error) {
        // Only the last line can be torn (a killed run); anything else is damage.
        if (k < lines.length - 1 && lines.slice(k + 1).some((l) => l.trim() !== '')) throw new ExperimentError(`${this.resultsPath}:${k + 1}: not a JSON line (${(error as Error).message}).`);
      }
    });
    return results;
  }
}

export function cellKey(model: string, planner: string, backend: string): string {
  return `${model}\u0000${planner}\u0000${backend}`;
}

/** A cell key as a person reads it: model / planner / backend. */
export function printableKey(key: string): string {
  return key.split('\u0000').join(' / ');
}
