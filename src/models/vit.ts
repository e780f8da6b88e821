import { GraphError, type Graph } from '../graph/ir.ts';
import { NetworkBuilder } from './builder.ts';
import type { ModelParameters, ZooModel } from './model.ts';
import { baseShape, transformerStack } from './transformer.ts';

const PATCH = 16;

/**
 * ViT-B/16 (Dosovitskiy et al. 2021) at 384 x 384, as FlexNN runs it: the image cut into 16 x 16
 * patches by a 16 x 16 stride-16 convolution to 768 features (24 x 24 = 576 patches, reshaped to
 * tokens [1, 576, 768]), a learned class token in front (a Concat: 577 tokens) and a learned
 * position embedding [1, 577, 768] added; 12 pre-LayerNorm blocks (12 heads, MLP 3072, GELU
 * with erf, LayerNorm epsilon 1e-6 as timm and big_vision have it; transformer.ts); then the
 * class token taken out (a Slice), the final LayerNorm and the 1000-class head. The output is
 * the logits [1, 1000] (no Softmax, as the published model ends). At 384 that is 86,859,496
 * parameters (timm's vit_base_patch16_384); `input` (a multiple of 16) changes only the position
 * embedding's length, `width` and `layers` shrink it for quick runs.
 */
export const vitB16: ZooModel = {
  name: 'vit-b-16',
  title: 'ViT-B/16 (384)',
  reference: 'ViT-B/16 of Dosovitskiy et al. 2021 at 384x384 (timm vit_base_patch16_384, 86.9M parameters); logits of the class token',
  defaults: { inputSize: 384, widthMultiplier: 1, batch: 1, dtype: 'float32', layers: 12 },
  tunable: ['inputSize', 'widthMultiplier', 'layers', 'dtype'],
  build(p: ModelParameters): Graph {
    const shape = baseShape(p, 'vit-b-16', { epsilon: 1e-6, gelu: 'none', causal: false });
    if (p.inputSize % PATCH !== 0) throw new GraphError(`vit-b-16: input ${p.inputSize} is not a multiple of the ${PATCH}-pixel patch.`);
    const b = new NetworkBuilder('vit-b-16', p.dtype);
    const image = b.input('pixels', [1, p.inputSize, p.inputSize, 3]);
    const grid = p.inputSize / PATCH;
    const patches = b.conv('vit/patch_embedding', image, { out: shape.hidden, kernel: PATCH, stride: PATCH, padding: 'valid' });
    const tokens = b.reshape('vit/patch_tokens', patches, [1, grid * grid, shape.hidden]);
    const withClass = b.concat('vit/class_and_patches', [b.parameter('vit/class_token', [1, 1, shape.hidden]), tokens], 1);
    let x = b.add('vit/position_embedding', withClass, b.parameter('vit/position_table', [1, grid * grid + 1, shape.hidden]));
    x = transformerStack(b, 'vit/encoder', x, shape);
    const cls = b.reshape('vit/class_features', b.layerNorm('vit/final_ln', b.slice('vit/class_output', x, 1, 0, 1), shape.epsilon), [1, shape.hidden]);
    return b.build([b.dense('vit/head', cls, 1000)]);
  },
};
