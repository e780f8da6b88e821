import type { Graph } from '../graph/ir.ts';
import { NetworkBuilder } from './builder.ts';
import type { ModelParameters, ZooModel } from './model.ts';

/** Inception modules: name, #1x1, #3x3 reduce, #3x3, #5x5 reduce, #5x5, pool proj (Table 1 of the paper). */
const INCEPTIONS = [
  ['inception3a', 64, 96, 128, 16, 32, 32],
  ['inception3b', 128, 128, 192, 32, 96, 64],
  ['inception4a', 192, 96, 208, 16, 48, 64],
  ['inception4b', 160, 112, 224, 24, 64, 64],
  ['inception4c', 128, 128, 256, 24, 64, 64],
  ['inception4d', 112, 144, 288, 32, 64, 64],
  ['inception4e', 256, 160, 320, 32, 128, 128],
  ['inception5a', 256, 160, 320, 32, 128, 128],
  ['inception5b', 384, 192, 384, 48, 128, 128],
] as const;

/** Max pools before these modules: 3x3/2 before stage 4, 2x2/2 before stage 5 (torchvision). */
const POOL_BEFORE: Readonly<Record<string, { name: string; kernel: number }>> = {
  inception4a: { name: 'maxpool3', kernel: 3 },
  inception5a: { name: 'maxpool4', kernel: 2 },
};

/**
 * GoogLeNet (Inception v1) as torchvision's googlenet without the auxiliary classifiers
 * (inference), batch norm folded, ReLU fused, SAME padding. Two departures, both stated in
 * `reference`: there is NO local response normalization after the stem's first pool and
 * after conv3 (the paper has two LRN layers; the IR has no LRN op), and the third branch
 * is 1x1 -> 5x5 as in the paper (torchvision, like TF-slim, uses a 3x3 there). Each
 * module runs its branches in order (1x1; 1x1 -> 3x3; 1x1 -> 5x5; max pool 3x3/1 -> 1x1
 * pool projection), each to its end, then concatenates them; global average pool (a
 * Mean), FullyConnected 1000, softmax.
 */
export const googlenet: ZooModel = {
  name: 'googlenet',
  title: 'GoogLeNet (Inception v1)',
  reference: 'GoogLeNet / Inception v1 of Szegedy et al. 2015 as torchvision googlenet without auxiliary classifiers; 5x5 branch as in the paper (torchvision: 3x3); no LRN (the IR has none)',
  defaults: { inputSize: 224, widthMultiplier: 1, batch: 1, dtype: 'float32' },
  tunable: ['inputSize', 'batch', 'dtype'],
  build(p: ModelParameters): Graph {
    const b = new NetworkBuilder('googlenet', p.dtype);
    let x = b.input('input', [p.batch, p.inputSize, p.inputSize, 3]);
    x = b.conv('conv1', x, { out: 64, kernel: 7, stride: 2, activation: 'relu' });
    x = b.pool('maxpool1', 'MaxPool', x, 3, 2, 'same');
    // (LRN here in the paper)
    x = b.conv('conv2', x, { out: 64, kernel: 1, activation: 'relu' });
    x = b.conv('conv3', x, { out: 192, kernel: 3, activation: 'relu' });
    // (LRN here in the paper)
    x = b.pool('maxpool2', 'MaxPool', x, 3, 2, 'same');
    for (const [name, n1, r3, n3, r5, n5, proj] of INCEPTIONS) {
      const pool = POOL_BEFORE[name];
      if (pool !== undefined) x = b.pool(pool.name, 'MaxPool', x, pool.kernel, 2, 'same');
      const input = x;
      const relu = 'relu' as const;
      const branch1 = b.conv(`${name}/branch1`, input, { out: n1, kernel: 1, activation: relu });
      const reduce3 = b.conv(`${name}/branch2/reduce`, input, { out: r3, kernel: 1, activation: relu });
      const branch2 = b.conv(`${name}/branch2/conv3x3`, reduce3, { out: n3, kernel: 3, activation: relu });
      const reduce5 = b.conv(`${name}/branch3/reduce`, input, { out: r5, kernel: 1, activation: relu });
      const branch3 = b.conv(`${name}/branch3/conv5x5`, reduce5, { out: n5, kernel: 5, activation: relu });
      const pooled = b.pool(`${name}/branch4/maxpool`, 'MaxPool', input, 3, 1, 'same');
      const branch4 = b.conv(`${name}/branch4/proj`, pooled, { out: proj, kernel: 1, activation: relu });
      x = b.concat(`${name}/concat`, [branch1, branch2, branch3, branch4]);
    }
    x = b.globalAveragePool('avgpool', x);
    x = b.dense('fc', x, 1000);
    return b.build([b.softmax('softmax', x)]);
  },
};
