import { budgetedNetwork } from '../../graph/budget-records.ts';
import type { Graph } from '../../graph/ir.ts';
import { NetworkBuilder } from '../../models/builder.ts';
import { flexnn } from '../../planners/budgeted/flexnn.ts';
import { planAndVerify } from '../../planners/plan-and-verify.ts';
import type { Backend } from '../backend.ts';
import { seededInputs } from '../run-data.ts';

/**
 * A network with one layer of every kind the budgeted executor runs: an im2col, a 1x1, a
 * grouped, a 3x3 depthwise and a 5x5 depthwise convolution with multiplier 2, a max pool,
 * a concat, an add, the global average pool, a FullyConnected layer that the budget
 * slices, and the softmax.
 */
function warmUpGraph(): Graph {
  const b = new NetworkBuilder('warm-up');
  const x = b.input('input', [1, 12, 12, 8]);
  const c = b.conv('conv', x, { out: 16, kernel: 3, activation: 'relu' });
  const p = b.conv('pointwise', c, { out: 16, kernel: 1 });
  const g = b.conv('grouped', p, { out: 16, kernel: 3, groups: 2 });
  const d = b.depthwise('depthwise', g, { kernel: 3, activation: 'relu6' });
  const e = b.depthwise('depthwise5x5', d, { kernel: 5, multiplier: 2 });
  const m = b.pool('pool', 'MaxPool', e, 2, 2, 'valid');
  const joined = b.concat('concat', [m, m]);
  const sum = b.add('add', joined, joined, 'relu');
  const avg = b.globalAveragePool('avgpool', sum);
  const fc = b.dense('fc', avg, 64);
  return b.build([b.softmax('softmax', fc)]);
}

/**
 * Runs that network twice through `backend` inside a small budget, its weights read from
 * /dev/zero: the measured process does this before its baseline, so that the executor's
 * compiled code and the heap it settles in count as the runtime's (a native runtime's code
 * is in its binary), and the figures after the baseline are the network's: its buffer,
 * and what describing it takes.
 */
export async function warmUp(backend: Backend): Promise<void> {
  const budget = 256 * 1024;
  const network = budgetedNetwork(warmUpGraph(), { budget });
  const plan = planAndVerify(flexnn, network.problem, { alignment: 64, budget });
  const prepared = await backend.prepare({ graph: network.graph, problem: network.problem, plan, streaming: { weightsFile: '/dev/zero', loading: 'overlapped', bufferBytes: budget, trace: true } });
  const inputs = seededInputs(network.graph, 1);
  await prepared.infer(inputs);
  await prepared.infer(inputs);
  prepared.streamingStats?.();
  prepared.dispose();
}
