import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { APPROACHES } from '../core/plans.ts';
import type { OffsetsPlan, SharedObjectsPlan } from '../core/plans.ts';
import type { Problem } from '../core/problem.ts';
import type { Planner, PlannerOptions } from '../planners/planner.ts';
import { findPlanner } from '../planners/registry.ts';
import { isPlannerModule, type PlannerEntry } from './planner-entry.ts';
import { ExperimentError } from './experiment-error.ts';

/**
 * What `--planner` names on the command line: a registry id, or the path of a module of
 * one's own (relative to the working directory), loaded and checked as an experiment's.
 */
export function plannerByName(ref: string): Promise<Planner> {
  return loadPlanner(isPlannerModule(ref) ? { ref: resolve(ref), module: true } : { ref, module: false });
}

/**
 * A registry planner, or a user's module that exports one (as `default` or `planner`):
 * `{ id, approach, title, citation, complexity, plan(problem, options) }`. The module's
 * planner is checked for shape here; its plans are verified like everyone's.
 */
export async function loadPlanner(entry: PlannerEntry): Promise<Planner> {
  if (!entry.module) return findPlanner(entry.ref);
  let module: Record<string, unknown>;
  try {
    module = await importModule(entry.ref);
  } catch (error) {
    throw new ExperimentError(`${entry.ref}: the planner module cannot be loaded (${loadFailure(error)}).`);
  }
  const candidate = (module.default ?? module.planner) as Partial<Planner> | undefined;
  const problems: string[] = [];
  if (candidate === undefined || typeof candidate !== 'object') problems.push('it exports no planner (export it as default or as `planner`)');
  else {
    if (typeof candidate.id !== 'string' || !/^[a-z-]+\/[\w.-]+$/.test(candidate.id)) problems.push('`id` must be "<approach>/<name>"');
    if (!APPROACHES.includes(candidate.approach as Planner['approach'])) problems.push(`\`approach\` must be one of ${APPROACHES.join(', ')}`);
    if (typeof candidate.plan !== 'function') problems.push('`plan(problem, options)` must be a function');
    if (typeof candidate.title !== 'string') problems.push('`title` must be a string');
  }
  if (problems.length > 0) throw new ExperimentError(`${entry.ref}: ${problems.join('; ')}.`);
  const planner = candidate as Planner;
  // An exception from the user's code is that module's failure, named as such (not a stack trace of ours).
  const plan = (problem: Problem, options?: PlannerOptions): OffsetsPlan | SharedObjectsPlan => {
    try {
      return planner.plan(problem, options);
    } catch (error) {
      throw new ExperimentError(`${entry.ref}: ${planner.id} threw while planning ${problem.name}: ${(error instanceof Error ? error.message.split('\n')[0] : String(error)).replace(/[.!?]?$/, '.')}`);
    }
  };
  return { citation: '', complexity: 'n^2', ...candidate, plan } as Planner;
}

/**
 * A user's module, by path. TypeScript goes through tsx whichever way memplan itself runs
 * (compiled from dist/, where Node alone cannot load .ts, or from src/ through tsx), and
 * wherever the file lies: outside a "type": "module" package tsx compiles it to CommonJS,
 * whose exports arrive wrapped in the namespace's default.
 */
async function importModule(path: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(path).href;
  if (!/\.[cm]?tsx?$/i.test(path)) return (await import(url)) as Record<string, unknown>;
  // tsx (and esbuild under it) is loaded only for a TypeScript module: a command that names none starts without it.
  const { tsImport } = await import('tsx/esm/api');
  const namespace = (await tsImport(url, import.meta.url)) as Record<string, unknown>;
  const wrapped = namespace.default as Record<string, unknown> | undefined;
  return wrapped !== null && typeof wrapped === 'object' && wrapped.__esModule === true ? wrapped : namespace;
}

/** Why a module did not load, in one line: esbuild's first error with its place, or the error's first line. */
function loadFailure(error: unknown): string {
  const lines = (error as Error).message.split('\n');
  return /^Transform failed/.test(lines[0]) && lines.length > 1 ? lines[1].trim() : lines[0];
}
