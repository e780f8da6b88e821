import { existsSync } from 'node:fs';
import { appendFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../io/atomic-write.ts';
import { ExperimentError } from './config.ts';
import type { CellResult } from './result.ts';

/**
 * A run folder: `run.json` (written atomically) and `results.jsonl`, one finished cell per
 * line, each appended whole. A killed run leaves at worst a torn last line, which reading
 * ignores, so no finished cell is ever lost.
 */
export class ResultStore {
  constructor(readonly dir: string) {}

  static async create(root: string, experiment: string, runId: string): Promise<ResultStore> {
    let dir = join(root, experiment, runId);
    for (let k = 2; existsSync(dir); k++) dir = join(root, experiment, `${runId}-${k}`);
    await mkdir(dir, { recursive: true });
    return new ResultStore(dir);
  }

  /**
   * The most recent run folder of an experiment, for `--resume`: of the folders named with
   * `suffix` (one shard's), or of the unsharded ones (no shard or merge suffix).
   */
  static async latest(root: string, experiment: string, suffix = ''): Promise<ResultStore | undefined> {
    const base = join(root, experiment);
    if (!existsSync(base)) return undefined;
    const runs = (await readdir(base, { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .filter((name) => (suffix === '' ? !/-shard-\d+-of-\d+$|-merged$/.test(name) : name.endsWith(suffix)))
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
      if (code === 'ENOENT' || code === 'ENOTDIR') throw new ExperimentError(`${this.dir}: not a run folder (it has no run.json); run folders are results/<experiment>/<run-id>, written by memplan run.`);
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

  /** Appends one finished cell (a CellResult, or a study's own cell) as one whole line. */
  async append(result: object): Promise<void> {
    await appendFile(this.resultsPath, `${JSON.stringify(result)}\n`);
  }

  async read(): Promise<CellResult[]> {
    return this.readCells<CellResult>();
  }

  /** The finished cells, whatever their shape (a study's). */
  async readCells<T>(): Promise<T[]> {
    if (!existsSync(this.resultsPath)) return [];
    const text = await readFile(this.resultsPath, 'utf8');
    const results: T[] = [];
    const lines = text.split('\n');
    lines.forEach((line, k) => {
      if (line.trim() === '') return;
      try {
        results.push(JSON.parse(line) as T);
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
