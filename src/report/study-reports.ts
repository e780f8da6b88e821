import { ExperimentError } from '../experiments/experiment-error.ts';
import { ResultStore } from '../experiments/result-store.ts';

/** What `memplan report` makes of a study's run folder. */
export type StudyReporter = (dir: string, info: Record<string, unknown>) => Promise<{ markdown: string; files: string[] }>;

const reporters = new Map<string, StudyReporter>();

/** Makes a study's report known to `memplan report` (each study's report module registers itself). */
export function registerStudyReport(kind: string, reporter: StudyReporter): void {
  reporters.set(kind, reporter);
}

/** The study a run folder holds (its run.json's `study`), or undefined for a planning run. */
export async function studyOfRun(dir: string): Promise<{ kind: string; info: Record<string, unknown> } | undefined> {
  const info = await new ResultStore(dir).readRunInfo<Record<string, unknown>>();
  return typeof info.study === 'string' ? { kind: info.study, info } : undefined;
}

/** Reports a study's run folder; throws when the study has no report. */
export async function reportStudy(dir: string, kind: string, info: Record<string, unknown>): Promise<{ markdown: string; files: string[] }> {
  const reporter = reporters.get(kind);
  if (reporter === undefined) throw new ExperimentError(`${dir}: its run.json names the study "${kind}", which this build has no report for (known: ${[...reporters.keys()].sort().join(', ')}).`);
  return reporter(dir, info);
}
