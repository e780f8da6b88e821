import { readFile } from 'node:fs/promises';
import { JsonSyntaxError, scanJson } from '../io/json-positions.ts';
import { ExperimentError } from './experiment-error.ts';
import { ResultStore } from './result-store.ts';
import { collectRunInfo } from './run-info.ts';
import { lockRun } from './run-lock.ts';

/**
 * A study: an experiment whose cells are not (network, planner, backend) triples but its
 * own (GEMM tile and budget, a network under a memory budget, a schedule of layer
 * groups). Its file names it with a top-level `"study"`; `memplan run` sends it here, and
 * the run folder looks like any other: `run.json` (with `study` and the parsed config)
 * and `results.jsonl`, one finished cell per line, so a killed run loses nothing finished.
 * Its report lives in the report layer (src/report/study-reports.ts).
 */
export interface Study<Config extends StudyConfig = StudyConfig, Cell = unknown> {
  /** The value of the file's `"study"` field. */
  readonly kind: string;
  /** Checks the file (already parsed JSON): errors are ExperimentErrors naming the file and the JSON path. */
  parse(data: Record<string, unknown>, file: string): Config;
  /** Runs every cell, appending each to the store as it finishes. */
  run(config: Config, store: ResultStore, options: StudyRunOptions): Promise<Cell[]>;
}

export interface StudyConfig {
  /** The results folder's name: results/<name>/<run-id>. */
  readonly name: string;
  readonly title: string;
}

export interface StudyRunOptions {
  readonly quiet?: boolean;
  /** A smaller variant for a look in seconds, where the study has one (`--quick`). */
  readonly quick?: boolean;
}

const studies = new Map<string, Study<StudyConfig, unknown>>();

/** Makes a study known to `memplan run` (each study's module registers itself; see studies/index.ts). */
export function registerStudy<C extends StudyConfig, Cell>(study: Study<C, Cell>): void {
  studies.set(study.kind, study as unknown as Study<StudyConfig, unknown>);
}

export function studyKinds(): string[] {
  return [...studies.keys()];
}

/** The study an experiment file names, or undefined for a planning experiment (no `"study"`). */
export async function readStudyFile(file: string): Promise<{ study: Study; data: Record<string, unknown> } | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ExperimentError(`${file}: ${code === 'ENOENT' ? 'no such experiment file' : `cannot be read (${code})`}.`);
  }
  try {
    scanJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new ExperimentError(`${file}:${error.line}:${error.column}: invalid JSON: ${error.problem}.`);
    throw error;
  }
  const data = JSON.parse(text) as unknown;
  if (data === null || typeof data !== 'object' || Array.isArray(data) || !('study' in data)) return undefined;
  const kind = (data as { study: unknown }).study;
  const study = typeof kind === 'string' ? studies.get(kind) : undefined;
  if (study === undefined) throw new ExperimentError(`${file}: $.study: must be one of ${studyKinds().join(', ')}; got ${JSON.stringify(kind)}.`);
  return { study, data: data as Record<string, unknown> };
}

/** Runs a study into `<root>/<name>/<run-id>/`; returns the folder. */
export async function runStudy(study: Study, data: Record<string, unknown>, file: string, root: string, options: StudyRunOptions = {}): Promise<{ dir: string; cells: unknown[] }> {
  const config = study.parse(data, file);
  const store = await ResultStore.create(
    root,
    config.name,
    new Date()
      .toISOString()
      .replace(/:/g, '-')
      .replace(/\.\d+Z$/, 'Z'),
  );
  // Held while the study writes, as a planning run's folder is: report and merge see a finished folder or a live holder.
  const lock = await lockRun(store.dir);
  try {
    await store.writeRunInfo({ study: study.kind, experiment: config.name, title: config.title, config, quick: options.quick ?? false, ...collectRunInfo() });
    const cells = await study.run(config, store, options);
    return { dir: store.dir, cells };
  } finally {
    await lock.release();
  }
}
