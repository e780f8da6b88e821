import { join } from 'node:path';
import type { RecordOptions } from '../graph/lifetimes.ts';
import { loadProblem } from '../io/source.ts';
import { planAndVerify } from '../planners/plan-and-verify.ts';
import { plannerByName } from '../experiments/load-planner.ts';
import { allocationPictureSpec } from './charts/allocation-picture.ts';
import { renderChart } from './charts/render.ts';

/**
 * The allocation picture of one verified plan (time on x, offset on y, a rectangle per
 * tensor, as the paper's Figures 3-6), written as `<dir>/<name>.svg|png|vl.json`.
 */
export async function drawPicture(source: string, plannerRef: string, dir: string, records: RecordOptions): Promise<string> {
  const planner = await plannerByName(plannerRef);
  const plannerId = planner.id;
  const problem = await loadProblem(source, records);
  const result = planAndVerify(planner, problem);
  if (!result.valid) throw new Error(`${plannerId} produced an invalid plan for ${source}: ${result.violations[0]?.message}`);
  const name = `${source.replace(/^zoo:/, '').replace(/[^\w.-]+/g, '_')}-${plannerId.replace(/\//g, '-')}`;
  const base = join(dir, name);
  const mib = (result.footprint / 2 ** 20).toFixed(3);
  await renderChart(allocationPictureSpec(problem, result.offsets, { title: `${problem.name}: ${planner.title}, ${mib} MiB` }), base);
  return base;
}
