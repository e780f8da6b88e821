import type { Graph } from '../graph/ir.ts';
import { NetworkBuilder } from './builder.ts';
import type { ModelParameters, ZooModel } from './model.ts';
import { bottleneckNetwork, type BottleneckMiddle } from './resnet-152.ts';

/** ResNeXt-50 32x4d: 32 paths of width 4 at stage 1 (128 in all), doubling per stage. */
const CARDINALITY = 32;
const BLOCKS = [3, 4, 6, 3] as const;
const WIDTH = 128;

/** The usual form: 1x1 to `width`, then one 3x3 convolution in 32 groups. */
const groupedMiddle: BottleneckMiddle = (b, scope, x, width, stride) => {
  const y = b.conv(`${scope}/conv1`, x, { out: width, kernel: 1, activation: 'relu' });
  return b.conv(`${scope}/conv2`, y, { out: width, kernel: 3, stride, groups: CARDINALITY, activation: 'relu' });
};

/**
 * The same function with the 32 paths as parallel branches (Fig. 3a of the paper): per
 * path a 1x1 to width/32 and a 3x3, each path to its end and then the next, the outputs
 * concatenated along channels. Path g's weights are rows g*d..g*d+d-1 of the grouped form's
 * conv1 and conv2 weights (OHWI), so the two forms compute the same function.
 */
const pathsMiddle: BottleneckMiddle = (b, scope, x, width, stride) => {
  const d = width / CARDINALITY;
  const paths = Array.from({ length: CARDINALITY }, (_, g) => {
    const y = b.conv(`${scope}/path${g}/conv1`, x, { out: d, kernel: 1, activation: 'relu' });
    return b.conv(`${scope}/path${g}/conv2`, y, { out: d, kernel: 3, stride, activation: 'relu' });
  });
  return b.concat(`${scope}/concat`, paths);
};

function resnext50(form: 'grouped' | 'paths', middle: BottleneckMiddle, description: string): ZooModel {
  const name = `resnext-50-${form}`;
  return {
    name,
    title: `ResNeXt-50 32x4d (${description})`,
    reference: 'ResNeXt-50 (32x4d) of Xie et al. 2017 as torchvision resnext50_32x4d (25.0M parameters)',
    defaults: { inputSize: 224, widthMultiplier: 1, batch: 1, dtype: 'float32' },
    tunable: ['inputSize', 'batch', 'dtype'],
    build(p: ModelParameters): Graph {
      const b = new NetworkBuilder(name, p.dtype);
      return b.build([bottleneckNetwork(b, p, { blocks: BLOCKS, width: WIDTH, middle })]);
    },
  };
}

/**
 * ResNeXt-50 32x4d, the torchvision network (ResNet v1.5 layout, see bottleneckNetwork),
 * with 3x3 convolutions in 32 groups; in two forms of the same function:
 * `-grouped` with grouped convolutions (Conv with groups 32), `-paths` with the 32 paths
 * as explicit branches and a Concat, the form where running paths in parallel and
 * sharing memory pull apart.
 */
export const resnext50Grouped: ZooModel = resnext50('grouped', groupedMiddle, 'grouped convolutions');
export const resnext50Paths: ZooModel = resnext50('paths', pathsMiddle, '32 explicit paths');
