import type { Graph } from '../graph/ir.ts';
import { NetworkBuilder } from './builder.ts';
import type { ModelParameters, ZooModel } from './model.ts';

/**
 * The first two layers of a bottleneck block: 1x1 reduction and the 3x3 convolution (with
 * the block's stride), ReLU fused into both; returns the 3x3 layer's output.
 */
export type BottleneckMiddle = (b: NetworkBuilder, scope: string, x: string, width: number, stride: number) => string;

/** The plain ResNet middle: 1x1 to `width`, then 3x3 `width` -> `width`. */
export const plainMiddle: BottleneckMiddle = (b, scope, x, width, stride) => {
  const y = b.conv(`${scope}/conv1`, x, { out: width, kernel: 1, activation: 'relu' });
  return b.conv(`${scope}/conv2`, y, { out: width, kernel: 3, stride, activation: 'relu' });
};

export interface BottleneckNetworkOptions {
  /** Blocks per stage (stages 1..4 at strides 4, 8, 16, 32 of the input). */
  readonly blocks: readonly number[];
  /** Width of the middle layers at stage 1; it doubles per stage. */
  readonly width: number;
  readonly middle: BottleneckMiddle;
}

/**
 * A ResNet v1.5 bottleneck network as torchvision builds it (ResNet-50/101/152, ResNeXt):
 * 7x7/2 convolution to 64 and a 3x3/2 max pool, then per stage blocks of 1x1 -> 3x3 -> 1x1
 * (output 256 x 2^stage channels), the stride on the 3x3 of a stage's first block (v1.5),
 * a 1x1 projection shortcut on each stage's first block, the residual Add with the ReLU
 * fused; then the global average pool (a Mean), FullyConnected 1000 and the softmax.
 * Batch norm is folded into the convolutions (each gets a bias). Per block the main path
 * runs first, then the projection (torchvision's order). Padding is TFLite's SAME, which
 * gives torchvision's shapes (its padding is symmetric, SAME puts the odd pixel after).
 */
export function bottleneckNetwork(b: NetworkBuilder, p: ModelParameters, options: BottleneckNetworkOptions): string {
  let x = b.input('input', [p.batch, p.inputSize, p.inputSize, 3]);
  x = b.conv('conv1', x, { out: 64, kernel: 7, stride: 2, activation: 'relu' });
  x = b.pool('maxpool', 'MaxPool', x, 3, 2, 'same');
  options.blocks.forEach((count, stage) => {
    const width = options.width * 2 ** stage;
    const out = 256 * 2 ** stage;
    for (let k = 0; k < count; k++) {
      const scope = `layer${stage + 1}.${k}`;
      const stride = k === 0 && stage > 0 ? 2 : 1;
      let y = options.middle(b, scope, x, width, stride);
      y = b.conv(`${scope}/conv3`, y, { out, kernel: 1 });
      const shortcut = k === 0 ? b.conv(`${scope}/downsample`, x, { out, kernel: 1, stride }) : x;
      x = b.add(`${scope}/add`, y, shortcut, 'relu');
    }
  });
  x = b.globalAveragePool('avgpool', x);
  x = b.dense('fc', x, 1000);
  return b.softmax('softmax', x);
}

/** ResNet-152 v1.5 (torchvision resnet152): stages [3, 8, 36, 3], 60.2M parameters. */
export const resnet152: ZooModel = {
  name: 'resnet-152',
  title: 'ResNet-152',
  reference: 'ResNet-152 v1.5 of He et al. 2016 as torchvision resnet152 (stride on the 3x3; 60.2M parameters)',
  defaults: { inputSize: 224, widthMultiplier: 1, batch: 1, dtype: 'float32' },
  tunable: ['inputSize', 'batch', 'dtype'],
  build(p: ModelParameters): Graph {
    const b = new NetworkBuilder('resnet-152', p.dtype);
    return b.build([bottleneckNetwork(b, p, { blocks: [3, 8, 36, 3], width: 64, middle: plainMiddle })]);
  },
};
