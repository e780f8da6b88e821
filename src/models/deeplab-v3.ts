import type { Graph } from '../graph/ir.ts';
import { NetworkBuilder } from './builder.ts';
import type { ModelParameters, ZooModel } from './model.ts';
import { mobilenetV2Body } from './mobilenet-v2.ts';

/**
 * DeepLab v3 as TFLite's deeplabv3_257_mv_gpu: a MobileNet v2 encoder at width 0.5 and
 * output stride 8 (33x33 features from 257x257), the reduced ASPP of the mobile models
 * (image pooling: average pool over the whole map, 1x1 conv, bilinear resize back; and a
 * 1x1 conv branch), concatenation, a 1x1 projection, 21-class logits, and bilinear
 * resizes to the input size.
 */
export const deeplabV3: ZooModel = {
  name: 'deeplab-v3',
  title: 'DeepLab v3',
  reference: 'deeplabv3_257_mv_gpu (TFLite GPU sample; MobileNetV2-0.5, output stride 8)',
  defaults: { inputSize: 257, widthMultiplier: 0.5, batch: 1, dtype: 'float32' },
  tunable: ['inputSize', 'widthMultiplier', 'batch', 'dtype'],
  build(p: ModelParameters): Graph {
    const b = new NetworkBuilder('deeplab-v3', p.dtype);
    const input = b.input('sub_7', [p.batch, p.inputSize, p.inputSize, 3]);
    // DeepLab rounds channels to multiples of 8 only at width 1 (its feature_extractor.py).
    const divisibleBy = p.widthMultiplier === 1 ? 8 : 1;
    const features = mobilenetV2Body(b, input, { widthMultiplier: p.widthMultiplier, outputStride: 8, divisibleBy });
    const [, h, w] = b.shapeOf(features);
    let pooled = b.pool('AvgPool2D/AvgPool', 'AveragePool', features, [h, w], h, 'valid');
    pooled = b.conv('image_pooling', pooled, { out: 256, kernel: 1, activation: 'relu' });
    pooled = b.resizeBilinear('ResizeBilinear_1', pooled, [h, w], true);
    const aspp0 = b.conv('aspp0', features, { out: 256, kernel: 1, activation: 'relu' });
    let x = b.concat('concat', [pooled, aspp0]);
    x = b.conv('concat_projection', x, { out: 256, kernel: 1, activation: 'relu' });
    x = b.conv('logits/semantic', x, { out: 21, kernel: 1 });
    // The published graph resizes the logits to their own size before the final resize:
    // an identity op, kept here so that the network is the file's op for op
    // (the `dropIdentityOps` record option removes it).
    x = b.resizeBilinear('ResizeBilinear_2', x, [h, w], true);
    return b.build([b.resizeBilinear('ResizeBilinear_3', x, [p.inputSize, p.inputSize], true)]);
  },
};
