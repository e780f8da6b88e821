import type { NetworkBuilder } from './builder.ts';

/**
 * The ImageNet classifier the slim networks end with: average pool over the whole map,
 * a 1x1 convolution to 1001 logits, a squeeze to [batch, 1001] and the softmax.
 */
export function classifierHead(b: NetworkBuilder, x: string, scope: string, names: { pool: string; squeeze: string }, poolStride: number): string {
  const [batch, h, w] = b.shapeOf(x);
  let y = b.pool(`${scope}/Logits/${names.pool}`, 'AveragePool', x, [h, w], poolStride, 'valid');
  y = b.conv(`${scope}/Logits/Conv2d_1c_1x1`, y, { out: 1001, kernel: 1 });
  y = b.reshape(`${scope}/Logits/${names.squeeze}`, y, [batch, 1001]);
  return b.softmax(`${scope}/Predictions/Softmax`, y);
}
