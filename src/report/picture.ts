import { basename, extname, join } from 'node:path';
import type { RecordOptions } from '../graph/lifetimes.ts';
import { loadProblem } from '../io/source.ts';
import { planAndVerify } from '../planners/plan-and-verify.ts';
import { plannerByName } from '../experiments/load-planner.ts';
import { allocationPictureSpec, type PicturePlan } from './charts/allocation-picture.ts';
import { renderChart } from './charts/render.ts';

/**
 * The file name (no extension) of the picture of `source` under the planners `plannerIds`:
 * a zoo network's name, or a file's base name without its extension (never its folders: a
 * `../x.csv` gives `x`, not a hidden `.._x.csv`), then the planner ids, `/` as `-`.
 */
export function pictureName(source: string, plannerIds: readonly string[]): string {
  const zoo = /^zoo:(.*)$/.exec(source);
  const file = zoo ? zoo[1] : basename(source, extname(source));
  const safe = (text: string) => text.replace(/[^\w.-]+/g, '_').replace(/^[._-]+/, '');
  const planners = plannerIds.map((id) => safe(id.replace(/\//g, '-')));
  return [safe(file) || 'picture', ...planners].join('-');
}

/**
 * The allocation picture of verified plans of one source (time on x, address on y, a
 * rectangle per tensor, as the paper's Figures 3-6), one panel per planner side by side,
 * written as `<dir>/<name>.svg|png|pdf|vl.json` (`pictureName`); returns `<dir>/<name>`.
 */
export async function drawPicture(source: string, plannerRefs: string | readonly string[], dir: string, records: RecordOptions): Promise<string> {
  const refs = typeof plannerRefs === 'string' ? [plannerRefs] : plannerRefs;
  if (refs.length === 0) throw new Error(`the allocation picture of ${source} needs at least one planner.`);
  const problem = await loadProblem(source, records);
  const plans: PicturePlan[] = [];
  const ids: string[] = [];
  for (const ref of refs) {
    const planner = await plannerByName(ref);
    const result = planAndVerify(planner, problem);
    if (!result.valid) throw new Error(`${planner.id} produced an invalid plan for ${source}: ${result.violations[0]?.message}`);
    plans.push({ planner: planner.title, offsets: result.offsets });
    ids.push(planner.id);
  }
  const base = join(dir, pictureName(source, ids));
  await renderChart(allocationPictureSpec(problem, plans, { title: `${problem.name}: tensors in memory over time` }), base);
  return base;
}
