import type { Graph } from '../graph/ir.ts';
import { NetworkBuilder } from '../models/builder.ts';

/**
 * A network with one layer of every kind the CPU and budgeted executors run: an im2col, a 1x1, a
 * grouped, a 3x3 depthwise and a 5x5 depthwise convolution with multiplier 2, a max pool,
 * a concat, an add, the global average pool, a FullyConnected layer that the budget
 * slices, and the softmax.
 */
export function warmUpGraph(): Graph {
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
