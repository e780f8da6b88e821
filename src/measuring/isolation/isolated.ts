import type { Graph } from '../../graph/ir.ts';
import { withoutWeights } from '../../backends/run-data.ts';
import type { MeasureResult } from '../../backends/execution-report.ts';
import type { MeasureJob, ToMeasureProcess } from './measure-job.ts';
import { forkMeasured } from './measured-child.ts';

/**
 * How the weights reach the measured process: seeded there, the graph's values sent one
 * constant per message, or streamed by the backend from the weights file the job names
 * (the budgeted variant: nothing is sent).
 */
export type WeightsSource = { readonly seeded: number } | { readonly values: 'from-graph' } | { readonly values: 'streamed' };

/**
 * Runs one measurement in a fresh process of its own (measure-process.ts): nothing else
 * this process holds, no other plan, no reference run and no peer runtime, shares its
 * memory, so its peak is the plan's. Seeded weights are seeded there; a graph's own values
 * follow the job one constant per message.
 */
export function measureIsolated(graph: Graph, weights: WeightsSource, job: Omit<MeasureJob, 'graph' | 'seededWeights'>): Promise<MeasureResult> {
  return forkMeasured<MeasureResult>(import.meta.url, './measure-process', [job.backend], async (post) => {
    const message = (payload: ToMeasureProcess): Promise<void> => post(payload);
    await message({ type: 'job', job: { ...job, graph: withoutWeights(graph), ...('seeded' in weights ? { seededWeights: weights.seeded } : {}) } });
    if ('values' in weights && weights.values === 'from-graph') {
      for (const [name, tensor] of graph.tensors) {
        if (tensor.constant && tensor.data instanceof Float32Array) await message({ type: 'constant', name, data: tensor.data });
      }
    }
    await message({ type: 'go' });
  });
}
