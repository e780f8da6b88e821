import type { Graph } from '../../../src/graph/ir.ts';
import { NetworkBuilder } from '../../../src/models/builder.ts';

/**
 * A small NHWC network with a layer on every path of the budgeted executor: im2col (strided,
 * and grouped), 1x1, 3x3 depthwise, 5x5 depthwise with multiplier 2, max pool, Winograd, concat,
 * add, global average pool, FullyConnected (wide enough to be sliced), softmax.
 */
export function everyPathNetwork(): Graph {
  const b = new NetworkBuilder('every-path');
  let x = b.input('input', [1, 20, 20, 6]);
  x = b.conv('stem', x, { out: 24, kernel: 3, stride: 2, activation: 'relu' });
  const a = b.conv('pointwise', x, { out: 16, kernel: 1, activation: 'relu6' });
  const g = b.conv('grouped', a, { out: 16, kernel: 3, groups: 4 });
  const d = b.depthwise('dw3', g, { kernel: 3, activation: 'relu6' });
  const e = b.depthwise('dw5', d, { kernel: 5, multiplier: 2 });
  const m = b.pool('pool', 'MaxPool', e, 2, 2, 'valid');
  const w = b.conv('winograd', m, { out: 4, kernel: 3, activation: 'relu' });
  const joined = b.concat('concat', [m, w]);
  const sum = b.add('add', joined, joined, 'relu');
  const avg = b.globalAveragePool('avgpool', sum);
  const fc = b.dense('fc', avg, 200, 'relu');
  const out = b.dense('logits', fc, 10);
  return b.build([b.softmax('softmax', out)]);
}
