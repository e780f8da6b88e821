import type { Graph } from '../graph/ir.ts';
import { NetworkBuilder } from './builder.ts';
import type { ModelParameters, ZooModel } from './model.ts';

/** Fire modules of v1.1: name, squeeze s, expand e (1x1 and 3x3 each); a max pool follows fire3 and fire5. */
const FIRES = [
  ['fire2', 16, 64],
  ['fire3', 16, 64],
  ['fire4', 32, 128],
  ['fire5', 32, 128],
  ['fire6', 48, 192],
  ['fire7', 48, 192],
  ['fire8', 64, 256],
  ['fire9', 64, 256],
] as const;
const POOL_AFTER = new Set(['fire3', 'fire5']);

/**
 * SqueezeNet v1.1 (the official DeepScale repository's v1.1, torchvision squeezenet1_1):
 * conv 3x3/2 to 64 (ReLU), max pool 3x3/2, fire modules (squeeze 1x1 to s, then expand 1x1
 * and expand 3x3 to e each, ReLU fused, concatenated along channels) with max pools
 * 3x3/2 after fire3 and fire5, a final 1x1 convolution to 1000 with ReLU, the global
 * average pool (a Mean) and the softmax (dropout is inference's identity). The stem and
 * pools are VALID, which at 224 gives the ceil-mode pools' 111 -> 55 -> 27 -> 13 exactly.
 */
export const squeezenet11: ZooModel = {
  name: 'squeezenet-1.1',
  title: 'SqueezeNet v1.1',
  reference: 'SqueezeNet v1.1 (DeepScale/SqueezeNet repository; torchvision squeezenet1_1, 1.24M parameters)',
  defaults: { inputSize: 224, widthMultiplier: 1, batch: 1, dtype: 'float32' },
  tunable: ['inputSize', 'batch', 'dtype'],
  build(p: ModelParameters): Graph {
    const b = new NetworkBuilder('squeezenet-1.1', p.dtype);
    let x = b.input('input', [p.batch, p.inputSize, p.inputSize, 3]);
    x = b.conv('conv1', x, { out: 64, kernel: 3, stride: 2, padding: 'valid', activation: 'relu' });
    x = b.pool('pool1', 'MaxPool', x, 3, 2, 'valid');
    for (const [name, s, e] of FIRES) {
      const squeeze = b.conv(`${name}/squeeze1x1`, x, { out: s, kernel: 1, activation: 'relu' });
      const expand1 = b.conv(`${name}/expand1x1`, squeeze, { out: e, kernel: 1, activation: 'relu' });
      const expand3 = b.conv(`${name}/expand3x3`, squeeze, { out: e, kernel: 3, activation: 'relu' });
      x = b.concat(`${name}/concat`, [expand1, expand3]);
      if (POOL_AFTER.has(name)) x = b.pool(`${name}/pool`, 'MaxPool', x, 3, 2, 'valid');
    }
    x = b.conv('conv10', x, { out: 1000, kernel: 1, activation: 'relu' });
    x = b.globalAveragePool('pool10', x);
    return b.build([b.softmax('softmax', x)]);
  },
};
