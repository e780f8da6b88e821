import type { Graph } from '../graph/ir.ts';
import { NetworkBuilder } from './builder.ts';
import { classifierHead } from './classifier-head.ts';
import type { ModelParameters, ZooModel } from './model.ts';

type Step = readonly [out: number, kernel: number | readonly [number, number], stride?: number, padding?: 'same' | 'valid'];

/**
 * Inception v3 as TF-slim builds it (inception_v3_base, then the logits; no auxiliary
 * head), 299x299, batch norm folded into the convolutions with ReLU fused. Branches of each
 * Mixed block run in slim's order (Branch_0 .. Branch_3), each branch to its end, then
 * the concatenation: that is the order TFLite's converter keeps.
 */
export const inceptionV3: ZooModel = {
  name: 'inception-v3',
  title: 'Inception v3',
  reference: 'inception_v3 (TF-slim, 299x299; TFLite hosted model)',
  defaults: { inputSize: 299, widthMultiplier: 1, batch: 1, dtype: 'float32' },
  tunable: ['inputSize', 'batch', 'dtype'],
  build(p: ModelParameters): Graph {
    const b = new NetworkBuilder('inception-v3', p.dtype);
    const chain = (scope: string, x: string, steps: readonly Step[]): string =>
      steps.reduce((y, [out, kernel, stride, padding], k) => {
        const size = typeof kernel === 'number' ? `${kernel}x${kernel}` : `${kernel[0]}x${kernel[1]}`;
        return b.conv(`${scope}/Conv2d_${k}_${size}`, y, { out, kernel, stride, padding, activation: 'relu' });
      }, x);
    const avgBranch = (scope: string, x: string, out: number): string => chain(scope, b.pool(`${scope}/AvgPool_0a_3x3`, 'AveragePool', x, 3, 1, 'same'), [[out, 1]]);
    const mixed = (scope: string, branches: readonly ((s: string) => string)[]): string =>
      b.concat(
        `${scope}/concat`,
        branches.map((branch, k) => branch(`${scope}/Branch_${k}`)),
      );

    let x = b.input('input', [p.batch, p.inputSize, p.inputSize, 3]);
    x = chain('InceptionV3/Stem', x, [
      [32, 3, 2, 'valid'],
      [32, 3, 1, 'valid'],
      [64, 3, 1, 'same'],
    ]);
    x = b.pool('InceptionV3/MaxPool_3a_3x3', 'MaxPool', x, 3, 2, 'valid');
    x = chain('InceptionV3/Stem2', x, [
      [80, 1, 1, 'valid'],
      [192, 3, 1, 'valid'],
    ]);
    x = b.pool('InceptionV3/MaxPool_5a_3x3', 'MaxPool', x, 3, 2, 'valid');

    // 35 x 35
    for (const [name, poolOut] of [
      ['Mixed_5b', 32],
      ['Mixed_5c', 64],
      ['Mixed_5d', 64],
    ] as const) {
      const input = x;
      x = mixed(`InceptionV3/${name}`, [
        (s) => chain(s, input, [[64, 1]]),
        (s) =>
          chain(s, input, [
            [48, 1],
            [64, 5],
          ]),
        (s) =>
          chain(s, input, [
            [64, 1],
            [96, 3],
            [96, 3],
          ]),
        (s) => avgBranch(s, input, poolOut),
      ]);
    }
    {
      const input = x;
      x = mixed('InceptionV3/Mixed_6a', [
        (s) => chain(s, input, [[384, 3, 2, 'valid']]),
        (s) =>
          chain(s, input, [
            [64, 1],
            [96, 3],
            [96, 3, 2, 'valid'],
          ]),
        (s) => b.pool(`${s}/MaxPool_1a_3x3`, 'MaxPool', input, 3, 2, 'valid'),
      ]);
    }
    // 17 x 17
    for (const [name, width] of [
      ['Mixed_6b', 128],
      ['Mixed_6c', 160],
      ['Mixed_6d', 160],
      ['Mixed_6e', 192],
    ] as const) {
      const input = x;
      x = mixed(`InceptionV3/${name}`, [
        (s) => chain(s, input, [[192, 1]]),
        (s) =>
          chain(s, input, [
            [width, 1],
            [width, [1, 7]],
            [192, [7, 1]],
          ]),
        (s) =>
          chain(s, input, [
            [width, 1],
            [width, [7, 1]],
            [width, [1, 7]],
            [width, [7, 1]],
            [192, [1, 7]],
          ]),
        (s) => avgBranch(s, input, 192),
      ]);
    }
    {
      const input = x;
      x = mixed('InceptionV3/Mixed_7a', [
        (s) =>
          chain(s, input, [
            [192, 1],
            [320, 3, 2, 'valid'],
          ]),
        (s) =>
          chain(s, input, [
            [192, 1],
            [192, [1, 7]],
            [192, [7, 1]],
            [192, 3, 2, 'valid'],
          ]),
        (s) => b.pool(`${s}/MaxPool_1a_3x3`, 'MaxPool', input, 3, 2, 'valid'),
      ]);
    }
    // 8 x 8
    for (const name of ['Mixed_7b', 'Mixed_7c']) {
      const input = x;
      const split = (s: string, y: string): string => b.concat(`${s}/concat`, [chain(`${s}/a`, y, [[384, [1, 3]]]), chain(`${s}/b`, y, [[384, [3, 1]]])]);
      x = mixed(`InceptionV3/${name}`, [
        (s) => chain(s, input, [[320, 1]]),
        (s) => split(s, chain(s, input, [[384, 1]])),
        (s) =>
          split(
            s,
            chain(s, input, [
              [448, 1],
              [384, 3],
            ]),
          ),
        (s) => avgBranch(s, input, 192),
      ]);
    }
    return b.build([classifierHead(b, x, 'InceptionV3', { pool: 'AvgPool_1a', squeeze: 'SpatialSqueeze' }, 2)]);
  },
};
