import type { Graph } from '../graph/ir.ts';
import { NetworkBuilder } from './builder.ts';
import type { ModelParameters, ZooModel } from './model.ts';

/** Output channels and stride of the 16 BlazeBlocks of the front model. */
const BLOCKS: readonly (readonly [number, number])[] = [
  [24, 1],
  [28, 1],
  [32, 2],
  [36, 1],
  [42, 1],
  [48, 2],
  [56, 1],
  [64, 1],
  [72, 1],
  [80, 1],
  [88, 1],
  [96, 2],
  [96, 1],
  [96, 1],
  [96, 1],
  [96, 1],
];

/**
 * BlazeFace, MediaPipe's face_detection_front (128x128), op for op: a 5x5 stride-2
 * convolution and ReLU, then 16 BlazeBlocks (3x3 depthwise, 1x1 convolution, residual add,
 * ReLU; on stride 2 the residual is max-pooled; when channels grow it is zero-padded along
 * channels), and the two SSD heads on the 16x16 and 8x8 maps (2 and 6 anchors per cell):
 * classificators [1, 896, 1] and regressors [1, 896, 16].
 */
export const blazeface: ZooModel = {
  name: 'blazeface',
  title: 'BlazeFace',
  reference: 'face_detection_front (MediaPipe, 2019 release, 128x128)',
  defaults: { inputSize: 128, widthMultiplier: 1, batch: 1, dtype: 'float32' },
  tunable: ['inputSize', 'batch', 'dtype'],
  build(p: ModelParameters): Graph {
    const b = new NetworkBuilder('blazeface', p.dtype);
    const input = b.input('input', [p.batch, p.inputSize, p.inputSize, 3]);
    let x = b.unary('activation', 'Relu', b.conv('conv2d', input, { out: 24, kernel: 5, stride: 2 }));
    const taps: string[] = [];
    BLOCKS.forEach(([channels, stride], k) => {
      const suffix = k === 0 ? '' : `_${k}`;
      const main = b.depthwise(`depthwise_conv2d${suffix}`, x, { kernel: 3, stride });
      let skip = stride === 2 ? b.pool(`max_pooling2d${stride2Suffix(k)}`, 'MaxPool', x, 2, 2, 'same') : x;
      const projected = b.conv(`conv2d_${k + 1}`, main, { out: channels, kernel: 1, padding: 'valid' });
      const inChannels = b.shapeOf(skip)[3];
      if (channels > inChannels) {
        skip = b.pad(`channel_padding${padSuffix(k)}`, skip, [
          [0, 0],
          [0, 0],
          [0, 0],
          [0, channels - inChannels],
        ]);
      }
      x = b.unary(`activation_${k + 1}`, 'Relu', b.add(`add${suffix}`, skip, projected));
      if (k === 10 || k === 15) taps.push(x);
    });
    const [map16, map8] = taps;
    // The file runs the four head convolutions first, then the four reshapes.
    const heads = [
      [map16, 2, 1, 'classificator_8', 'reshape'],
      [map8, 6, 1, 'classificator_16', 'reshape_2'],
      [map16, 2, 16, 'regressor_8', 'reshape_1'],
      [map8, 6, 16, 'regressor_16', 'reshape_3'],
    ] as const;
    const convolved = heads.map(([map, perCell, depth, name]) => b.conv(name, map, { out: perCell * depth, kernel: 1 }));
    const [classes8, classes16, boxes8, boxes16] = heads.map(([map, perCell, depth, , reshaped], k) => {
      const [batch, h, w] = b.shapeOf(map);
      return b.reshape(reshaped, convolved[k], [batch, h * w * perCell, depth]);
    });
    const classificators = b.concat('classificators', [classes8, classes16], 1);
    const regressors = b.concat('regressors', [boxes8, boxes16], 1);
    return b.build([regressors, classificators]);
  },
};

/** Keras numbered the max-pool and channel-padding layers separately from the blocks. */
function stride2Suffix(block: number): string {
  const index = BLOCKS.slice(0, block).filter(([, stride]) => stride === 2).length;
  return index === 0 ? '' : `_${index}`;
}

function padSuffix(block: number): string {
  let index = 0;
  for (let k = 0; k < block; k++) if (BLOCKS[k][0] > (k === 0 ? 24 : BLOCKS[k - 1][0])) index++;
  return index === 0 ? '' : `_${index}`;
}
