/**
 * Geometry shared by every backend's kernels. The window geometry lives in the graph layer
 * (graph/window-geometry.ts), where the budgeted records size convolution scratch from it
 * too; it is re-exported here for the kernels.
 */
export { convGeometry, dims4, padBefore, type ConvGeometry, type Dims4 } from '../graph/window-geometry.ts';

/**
 * Element strides of an input for each output axis, numpy-style broadcasting (shapes
 * aligned at the right): 0 where the input broadcasts (size 1, or no such axis).
 */
export function broadcastStrides(shape: readonly number[], outShape: readonly number[]): number[] {
  const rank = outShape.length;
  const strides = new Array<number>(rank).fill(0);
  let stride = 1;
  for (let k = shape.length - 1; k >= 0; k--) {
    const d = rank - shape.length + k;
    strides[d] = shape[k] === 1 ? 0 : stride;
    stride *= shape[k];
  }
  return strides;
}
