import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Graph } from '../../graph/ir.ts';
import { withoutWeights } from '../../backends/run-data.ts';
import type { MeasureResult } from '../../backends/execution-report.ts';
import type { MeasureJob, ToMeasureProcess } from './measure-job.ts';
import { writeConstantsFile } from './constants-file.ts';
import { forkMeasured } from './measured-child.ts';

/**
 * How the weights reach the measured process: seeded there, the graph's values read there
 * from a file written for it (constants-file.ts), or streamed by the backend from the weights
 * file the job names (the budgeted variant).
 */
export type WeightsSource = { readonly seeded: number } | { readonly values: 'from-graph' } | { readonly values: 'streamed' };

/**
 * Runs one measurement in a fresh process of its own (measure-process.ts): nothing else
 * this process holds, no other plan, no reference run and no peer runtime, shares its
 * memory, so its peak is the plan's. Seeded weights are seeded there, and a graph's own
 * values read there from a file, both after its baseline.
 */
export async function measureIsolated(graph: Graph, weights: WeightsSource, job: Omit<MeasureJob, 'graph' | 'seededWeights' | 'constantsFile'>): Promise<MeasureResult> {
  // A graph's own values go through a file the process reads after its baseline (constants-file.ts).
  const dir = 'values' in weights && weights.values === 'from-graph' ? await mkdtemp(join(tmpdir(), 'memplan-constants-')) : undefined;
  try {
    const constants = dir === undefined ? {} : { constantsFile: writeConstantsFile(graph, dir) };
    return await forkMeasured<MeasureResult>(import.meta.url, './measure-process', [job.backend], async (post) => {
      const message = (payload: ToMeasureProcess): Promise<void> => post(payload);
      await message({ type: 'job', job: { ...job, graph: withoutWeights(graph), ...('seeded' in weights ? { seededWeights: weights.seeded } : {}), ...constants } });
      await message({ type: 'go' });
    });
  } finally {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }
}
