import { fork } from 'node:child_process';
import type { Graph } from '../../graph/ir.ts';
import { BackendError } from '../backend-error.ts';
import { childModule } from '../child-module.ts';
import { withoutWeights } from '../run-data.ts';
import type { FromMeasureProcess, MeasureJob, MeasureResult, ToMeasureProcess } from './measure-job.ts';

/** How the weights reach the measured process. */
export type WeightsSource = { readonly seeded: number } | { readonly values: 'from-graph' };

/**
 * Runs one measurement in a fresh process of its own (measure-process.ts): nothing else
 * this process holds, no other plan, no reference run and no peer runtime, shares its
 * memory, so its peak is the plan's. Seeded weights are seeded there; a graph's own values
 * follow the job one constant per message.
 */
export async function measureIsolated(graph: Graph, weights: WeightsSource, job: Omit<MeasureJob, 'graph' | 'seededWeights'>): Promise<MeasureResult> {
  const { path, execArgv, env } = childModule(import.meta.url, './measure-process', ['--expose-gc']);
  const child = fork(path, [job.backend], { execArgv, env, serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const post = (message: ToMeasureProcess): Promise<void> =>
    new Promise((resolve, reject) => child.send(message, undefined, {}, (error) => (error ? reject(error) : resolve())));
  return new Promise<MeasureResult>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      outcome();
    };
    child.on('error', (error) => finish(() => reject(new Error(`the measurement process could not run: ${error.message}`))));
    child.on('close', (code, signal) =>
      finish(() => {
        const last = stderr.split('\n').map((l) => l.trim()).filter((l) => /^[A-Za-z]*Error\b/.test(l)).pop();
        reject(new Error(`the measurement process ${signal ? `was killed by ${signal}` : `exited with code ${code}`} before it reported${last ? ` (${last})` : ''}.`));
      }),
    );
    child.on('message', (message: FromMeasureProcess) => {
      if (message?.type === 'ready') {
        void (async () => {
          if ('seeded' in weights) {
            await post({ type: 'job', job: { ...job, graph: withoutWeights(graph), seededWeights: weights.seeded } });
          } else {
            await post({ type: 'job', job: { ...job, graph: withoutWeights(graph) } });
            for (const [name, tensor] of graph.tensors) {
              if (tensor.constant && tensor.data instanceof Float32Array) await post({ type: 'constant', name, data: tensor.data });
            }
          }
          await post({ type: 'go' });
        })().catch((error: Error) => finish(() => reject(new Error(`the job could not be handed to the measurement process (${error.message}).`))));
      } else if (message?.type === 'done') {
        finish(() => resolve(message.result));
      } else if (message?.type === 'failed') {
        finish(() => reject(message.backend ? new BackendError(message.message) : new Error(message.message)));
      }
    });
  });
}
