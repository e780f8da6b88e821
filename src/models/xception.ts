import type { Activation, Graph } from '../graph/ir.ts';
import { NetworkBuilder } from './builder.ts';
import type { ModelParameters, ZooModel } from './model.ts';

/**
 * Xception as Keras builds it (keras.applications.Xception), batch norm folded into the
 * convolutions. A SeparableConv2D is a depthwise 3x3 Conv (groups = channels, weights 1HWO,
 * bias) followed by a 1x1 Conv, which takes the folded batch norm and any ReLU that follows.
 * Keras' pre-activation ReLUs (the first layer of each block after block 2) read the
 * output of an Add that also feeds the block's shortcut, so they cannot be fused into it:
 * they are explicit Relu nodes. A block's 1x1/2 shortcut runs after its main path (before
 * the Add). The first two convolutions are VALID as in Keras (224 ->
 * 111 -> 109), the rest SAME; Keras' default input is 299, ours is 224 (tunable).
 */
export const xception: ZooModel = {
  name: 'xception',
  title: 'Xception',
  reference: 'Xception of Chollet 2017 as Keras applications Xception (22.9M parameters; 224x224 here, Keras default 299)',
  defaults: { inputSize: 224, widthMultiplier: 1, batch: 1, dtype: 'float32' },
  tunable: ['inputSize', 'batch', 'dtype'],
  build(p: ModelParameters): Graph {
    const b = new NetworkBuilder('xception', p.dtype);
    const separable = (scope: string, x: string, out: number, activation: Activation = 'none'): string => {
      const y = b.depthwise(`${scope}/depthwise`, x, { kernel: 3 });
      return b.conv(`${scope}/pointwise`, y, { out, kernel: 1, activation });
    };
    const shortcut = (scope: string, x: string, out: number): string => b.conv(scope, x, { out, kernel: 1, stride: 2 });
    const pool = (scope: string, x: string): string => b.pool(scope, 'MaxPool', x, 3, 2, 'same');

    let x = b.input('input', [p.batch, p.inputSize, p.inputSize, 3]);
    // Entry flow.
    x = b.conv('block1_conv1', x, { out: 32, kernel: 3, stride: 2, padding: 'valid', activation: 'relu' });
    x = b.conv('block1_conv2', x, { out: 64, kernel: 3, padding: 'valid', activation: 'relu' });
    {
      // block 2: its input is already ReLU'd (fused into block1_conv2).
      let y = separable('block2_sepconv1', x, 128, 'relu');
      y = separable('block2_sepconv2', y, 128);
      y = pool('block2_pool', y);
      x = b.add('add_1', y, shortcut('conv2d_1', x, 128));
    }
    for (const [block, out, add] of [
      [3, 256, 2],
      [4, 728, 3],
    ] as const) {
      let y = b.unary(`block${block}_sepconv1_act`, 'Relu', x);
      y = separable(`block${block}_sepconv1`, y, out, 'relu');
      y = separable(`block${block}_sepconv2`, y, out);
      y = pool(`block${block}_pool`, y);
      x = b.add(`add_${add}`, y, shortcut(`conv2d_${add}`, x, out));
    }
    // Middle flow: 8 residual blocks of three ReLU + separable convolutions.
    for (let block = 5; block <= 12; block++) {
      let y = b.unary(`block${block}_sepconv1_act`, 'Relu', x);
      y = separable(`block${block}_sepconv1`, y, 728, 'relu');
      y = separable(`block${block}_sepconv2`, y, 728, 'relu');
      y = separable(`block${block}_sepconv3`, y, 728);
      x = b.add(`add_${block - 1}`, y, x);
    }
    // Exit flow.
    {
      let y = b.unary('block13_sepconv1_act', 'Relu', x);
      y = separable('block13_sepconv1', y, 728, 'relu');
      y = separable('block13_sepconv2', y, 1024);
      y = pool('block13_pool', y);
      x = b.add('add_12', y, shortcut('conv2d_4', x, 1024));
    }
    x = separable('block14_sepconv1', x, 1536, 'relu');
    x = separable('block14_sepconv2', x, 2048, 'relu');
    x = b.globalAveragePool('avg_pool', x);
    x = b.dense('predictions', x, 1000);
    return b.build([b.softmax('softmax', x)]);
  },
};
