import type { Graph } from '../graph/ir.ts';
import { NetworkBuilder } from './builder.ts';
import { classifierHead } from './classifier-head.ts';
import type { ModelParameters, ZooModel } from './model.ts';
import { OutputStride } from './output-stride.ts';

/** slim's MobileNet v1 separable layers: pointwise output channels and depthwise stride. */
const SEPARABLE = [
  [64, 1],
  [128, 2],
  [128, 1],
  [256, 2],
  [256, 1],
  [512, 2],
  [512, 1],
  [512, 1],
  [512, 1],
  [512, 1],
  [512, 1],
  [1024, 2],
  [1024, 1],
] as const;

export interface MobilenetV1BodyOptions {
  readonly widthMultiplier: number;
  readonly outputStride?: number;
}

/**
 * TF-slim's MobileNet v1 body: a 3x3 stride-2 convolution and 13 depthwise-separable
 * layers (3x3 depthwise, 1x1 pointwise), ReLU6 fused. Strides past the output stride
 * become dilations (PoseNet uses the full stride of 32).
 */
export function mobilenetV1Body(b: NetworkBuilder, input: string, options: MobilenetV1BodyOptions): string {
  const depth = (channels: number): number => Math.max(8, Math.floor(channels * options.widthMultiplier));
  let x = b.conv('MobilenetV1/Conv2d_0', input, { out: depth(32), kernel: 3, stride: 2, activation: 'relu6' });
  const strides = new OutputStride(options.outputStride, 2);
  SEPARABLE.forEach(([channels, layerStride], index) => {
    const { stride, dilation } = strides.next(layerStride);
    const scope = `MobilenetV1/Conv2d_${index + 1}`;
    x = b.depthwise(`${scope}_depthwise`, x, { kernel: 3, stride, dilation, activation: 'relu6' });
    x = b.conv(`${scope}_pointwise`, x, { out: depth(channels), kernel: 1, activation: 'relu6' });
  });
  return x;
}

/** MobileNet v1 1.0/224 as TFLite's mobilenet_v1_1.0_224. */
export const mobilenetV1: ZooModel = {
  name: 'mobilenet-v1',
  title: 'MobileNet v1',
  reference: 'mobilenet_v1_1.0_224 (TF-slim; TFLite hosted model; the coral embedding extractor is its body)',
  defaults: { inputSize: 224, widthMultiplier: 1, batch: 1, dtype: 'float32' },
  tunable: ['inputSize', 'widthMultiplier', 'batch', 'dtype'],
  build(p: ModelParameters): Graph {
    const b = new NetworkBuilder('mobilenet-v1', p.dtype);
    const input = b.input('input', [p.batch, p.inputSize, p.inputSize, 3]);
    const body = mobilenetV1Body(b, input, { widthMultiplier: p.widthMultiplier });
    return b.build([classifierHead(b, body, 'MobilenetV1', { pool: 'AvgPool_1a', squeeze: 'SpatialSqueeze' }, 2)]);
  },
};
