import type { Graph } from '../graph/ir.ts';
import { NetworkBuilder } from './builder.ts';
import { mobilenetV1Body } from './mobilenet-v1.ts';
import type { ModelParameters, ZooModel } from './model.ts';

/**
 * PoseNet as TFLite's posenet_mobilenet_v1_100_257x257_multi_kpt_stripped: the MobileNet
 * v1 1.0 body at output stride 32 on a 257x257 image, and four 1x1 heads on its 9x9
 * features: keypoint heatmaps (17), offsets (34), forward and backward displacements (32
 * each). The heads are the graph's outputs.
 */
export const posenet: ZooModel = {
  name: 'posenet',
  title: 'PoseNet',
  reference: 'posenet_mobilenet_v1_100_257x257_multi_kpt_stripped (TFLite sample)',
  defaults: { inputSize: 257, widthMultiplier: 1, batch: 1, dtype: 'float32' },
  tunable: ['inputSize', 'widthMultiplier', 'batch', 'dtype'],
  build(p: ModelParameters): Graph {
    const b = new NetworkBuilder('posenet', p.dtype);
    const input = b.input('sub_2', [p.batch, p.inputSize, p.inputSize, 3]);
    const features = mobilenetV1Body(b, input, { widthMultiplier: p.widthMultiplier, outputStride: 32 });
    const heads = [
      b.conv('MobilenetV1/heatmap_2', features, { out: 17, kernel: 1 }),
      b.conv('MobilenetV1/offset_2', features, { out: 34, kernel: 1 }),
      b.conv('MobilenetV1/displacement_fwd_2', features, { out: 32, kernel: 1 }),
      b.conv('MobilenetV1/displacement_bwd_2', features, { out: 32, kernel: 1 }),
    ];
    return b.build(heads);
  },
};
