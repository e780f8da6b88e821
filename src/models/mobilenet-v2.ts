import type { Graph } from '../graph/ir.ts';
import { makeDivisible, NetworkBuilder } from './builder.ts';
import { classifierHead } from './classifier-head.ts';
import type { ModelParameters, ZooModel } from './model.ts';
import { OutputStride } from './output-stride.ts';

/** slim's MobileNet v2 bottlenecks: expansion t, output channels c, repeats n, stride s. */
const BOTTLENECKS = [
  { t: 1, c: 16, n: 1, s: 1 },
  { t: 6, c: 24, n: 2, s: 2 },
  { t: 6, c: 32, n: 3, s: 2 },
  { t: 6, c: 64, n: 4, s: 2 },
  { t: 6, c: 96, n: 3, s: 1 },
  { t: 6, c: 160, n: 3, s: 2 },
  { t: 6, c: 320, n: 1, s: 1 },
] as const;

export interface MobilenetV2BodyOptions {
  readonly widthMultiplier: number;
  /** Stop striding once the feature map is this much smaller than the input, dilating instead (DeepLab). */
  readonly outputStride?: number;
  /** Channel counts are rounded to multiples of this (slim: 8; DeepLab below width 1: 1). */
  readonly divisibleBy?: number;
}

/**
 * The MobileNet v2 feature extractor of TF-slim up to its last bottleneck (layer_18):
 * a 3x3 stride-2 convolution, then the bottlenecks (1x1 expand, 3x3 depthwise, 1x1
 * project, residual add when shapes allow), ReLU6 fused. With an output stride, strides
 * beyond it become dilations, as slim does for DeepLab.
 */
export function mobilenetV2Body(b: NetworkBuilder, input: string, options: MobilenetV2BodyOptions): string {
  const divisor = options.divisibleBy ?? 8;
  const depth = (channels: number): number => makeDivisible(channels * options.widthMultiplier, divisor);
  let x = b.conv('MobilenetV2/Conv', input, { out: depth(32), kernel: 3, stride: 2, activation: 'relu6' });
  const strides = new OutputStride(options.outputStride, 2);
  let block = 0;
  for (const { t, c, n, s } of BOTTLENECKS) {
    for (let repeat = 0; repeat < n; repeat++) {
      const scope = block === 0 ? 'MobilenetV2/expanded_conv' : `MobilenetV2/expanded_conv_${block}`;
      const { stride, dilation } = strides.next(repeat === 0 ? s : 1);
      const inChannels = b.shapeOf(x)[3];
      const outChannels = depth(c);
      let y = x;
      if (t !== 1) y = b.conv(`${scope}/expand`, y, { out: makeDivisible(inChannels * t, divisor), kernel: 1, activation: 'relu6' });
      y = b.depthwise(`${scope}/depthwise`, y, { kernel: 3, stride, dilation, activation: 'relu6' });
      y = b.conv(`${scope}/project`, y, { out: outChannels, kernel: 1 });
      x = stride === 1 && inChannels === outChannels ? b.add(`${scope}/add`, x, y) : y;
      block++;
    }
  }
  return x;
}

/** MobileNet v2 1.0/224 as TFLite's mobilenet_v2_1.0_224 (the coral file has the same graph). */
export const mobilenetV2: ZooModel = {
  name: 'mobilenet-v2',
  title: 'MobileNet v2',
  reference: 'mobilenet_v2_1.0_224 (TF-slim; TFLite hosted and coral models)',
  defaults: { inputSize: 224, widthMultiplier: 1, batch: 1, dtype: 'float32' },
  tunable: ['inputSize', 'widthMultiplier', 'batch', 'dtype'],
  build(p: ModelParameters): Graph {
    const b = new NetworkBuilder('mobilenet-v2', p.dtype);
    const input = b.input('input', [p.batch, p.inputSize, p.inputSize, 3]);
    let x = mobilenetV2Body(b, input, { widthMultiplier: p.widthMultiplier });
    // slim keeps the last layer at 1280 channels for multipliers below 1.
    const last = p.widthMultiplier > 1 ? makeDivisible(1280 * p.widthMultiplier) : 1280;
    x = b.conv('MobilenetV2/Conv_1', x, { out: last, kernel: 1, activation: 'relu6' });
    return b.build([classifierHead(b, x, 'MobilenetV2', { pool: 'AvgPool', squeeze: 'Squeeze' }, 1)]);
  },
};
