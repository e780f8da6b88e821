import { pathToFileURL } from 'node:url';
import { APPROACHES } from '../core/plans.ts';
import type { Planner } from '../planners/planner.ts';
import { findPlanner } from '../planners/registry.ts';
import { ExperimentError, type PlannerEntry } from './config.ts';

/**
 * A registry planner, or a user's module that exports one (as `default` or `planner`):
 * `{ id, approach, title, citation, complexity, plan(problem, options) }`. The module's
 * planner is checked for shape here; its plans are verified like everyone's.
 */
export async function loadPlanner(entry: PlannerEntry): Promise<Planner> {
  if (!entry.module) return findPlanner(entry.ref);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(entry.ref).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ExperimentError(`${entry.ref}: the planner module cannot be loaded (${(error as Error).message.split('\n')[0]}).`);
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
  return { citation: '', complexity: 'n^2', ...candidate } as Planner;
}
