import type { Graph } from '../graph/ir.ts';
import { NetworkBuilder } from './builder.ts';
import type { ModelParameters, ZooModel } from './model.ts';

/** Output channels of the 3x3 convolutions of each stage; a 2x2 max pool ends every stage. */
const STAGES = [
  [64, 64],
  [128, 128],
  [256, 256, 256, 256],
  [512, 512, 512, 512],
  [512, 512, 512, 512],
] as const;

/**
 * VGG-19 (configuration E of Simonyan and Zisserman; Keras' VGG19 and torchvision's vgg19
 * without batch norm): sixteen 3x3 convolutions (SAME padding, ReLU fused) in five stages,
 * each closed by a 2x2/2 max pool, then the map flattened (a Reshape) and three
 * FullyConnected layers 4096, 4096 (ReLU) and 1000, and the softmax. The classifier's
 * first layer takes the whole flattened map: at 224 that is the published 7x7x512 and
 * 143,667,240 parameters; another input size (32 and up) changes that layer's weights.
 */
export const vgg19: ZooModel = {
  name: 'vgg-19',
  title: 'VGG-19',
  reference: 'VGG-19, configuration E of Simonyan & Zisserman 2015 (Keras VGG19 / torchvision vgg19, 143.7M parameters)',
  defaults: { inputSize: 224, widthMultiplier: 1, batch: 1, dtype: 'float32' },
  tunable: ['inputSize', 'batch', 'dtype'],
  build(p: ModelParameters): Graph {
    const b = new NetworkBuilder('vgg-19', p.dtype);
    let x = b.input('input', [p.batch, p.inputSize, p.inputSize, 3]);
    STAGES.forEach((widths, stage) => {
      widths.forEach((out, k) => {
        x = b.conv(`vgg19/block${stage + 1}_conv${k + 1}`, x, { out, kernel: 3, activation: 'relu' });
      });
      x = b.pool(`vgg19/block${stage + 1}_pool`, 'MaxPool', x, 2, 2, 'valid');
    });
    x = b.flatten('vgg19/flatten', x);
    x = b.dense('vgg19/fc1', x, 4096, 'relu');
    x = b.dense('vgg19/fc2', x, 4096, 'relu');
    x = b.dense('vgg19/predictions', x, 1000);
    return b.build([b.softmax('vgg19/softmax', x)]);
  },
};
