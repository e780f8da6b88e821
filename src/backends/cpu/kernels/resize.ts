import type { Node } from '../../../graph/ir.ts';
import type { Kernel } from '../kernel.ts';
import { ScratchF64, ScratchI32, windowInOut } from './common.ts';

type ResizeNode = Extract<Node, { op: 'Resize' }>;

const f32 = Math.fround;

/**
 * Resize, bilinear or nearest, with TFLite's source coordinates computed as TFLite computes
 * them (in float32):
 *
 * - scale = in / out, or (in - 1) / (out - 1) with alignCorners and out > 1;
 * - bilinear: src = (o + 0.5) * scale - 0.5 with halfPixelCenters, else o * scale;
 *   lower = max(floor(src), 0), upper = min(ceil(src), in - 1), weight of upper = src - lower;
 * - nearest: src = (o + 0.5 if halfPixelCenters else o) * scale, rounded half away from zero
 *   with alignCorners and floored otherwise, at most in - 1 (and at least 0 with
 *   halfPixelCenters).
 */
export const resize: Kernel = (call) => {
  const node = call.node as ResizeNode;
  const { x, out, inD, outD } = windowInOut(call);
  const { n: batch, h, w, c } = inD;
  const { h: oh, w: ow } = outD;
  if (node.mode === 'nearest') {
    const ys = rowIndex.get(oh);
    const xs = columnIndex.get(ow);
    for (let o = 0; o < oh; o++) ys[o] = nearestSource(o, h, oh, node.alignCorners, node.halfPixelCenters);
    for (let o = 0; o < ow; o++) xs[o] = nearestSource(o, w, ow, node.alignCorners, node.halfPixelCenters);
    if (call.layout === 'NHWC') {
      for (let n = 0; n < batch; n++) {
        for (let oy = 0; oy < oh; oy++) {
          const row = (n * h + ys[oy]) * w;
          for (let ox = 0, at = (n * oh + oy) * ow * c; ox < ow; ox++) {
            for (let ch = 0, s = (row + xs[ox]) * c; ch < c; ch++) out[at++] = x[s + ch];
          }
        }
      }
    } else {
      for (let plane = 0, at = 0; plane < batch * c; plane++) {
        for (let oy = 0; oy < oh; oy++) {
          const row = (plane * h + ys[oy]) * w;
          for (let ox = 0; ox < ow; ox++) out[at++] = x[row + xs[ox]];
        }
      }
    }
    return;
  }
  // Bilinear: per output row and column, the two source indices and the upper one's weight.
  const y0 = rowIndex.get(oh);
  const y1 = rowUpper.get(oh);
  const fy = rowWeight.get(oh);
  const x0 = columnIndex.get(ow);
  const x1 = columnUpper.get(ow);
  const fx = columnWeight.get(ow);
  bilinearSources(h, oh, node.alignCorners, node.halfPixelCenters, y0, y1, fy);
  bilinearSources(w, ow, node.alignCorners, node.halfPixelCenters, x0, x1, fx);
  if (call.layout === 'NHWC') {
    for (let n = 0; n < batch; n++) {
      for (let oy = 0; oy < oh; oy++) {
        const top = (n * h + y0[oy]) * w;
        const bottom = (n * h + y1[oy]) * w;
        const dy = fy[oy];
        for (let ox = 0, at = (n * oh + oy) * ow * c; ox < ow; ox++) {
          const dx = fx[ox];
          const w00 = (1 - dy) * (1 - dx);
          const w01 = (1 - dy) * dx;
          const w10 = dy * (1 - dx);
          const w11 = dy * dx;
          const s00 = (top + x0[ox]) * c;
          const s01 = (top + x1[ox]) * c;
          const s10 = (bottom + x0[ox]) * c;
          const s11 = (bottom + x1[ox]) * c;
          for (let ch = 0; ch < c; ch++) out[at++] = x[s00 + ch] * w00 + x[s10 + ch] * w10 + x[s01 + ch] * w01 + x[s11 + ch] * w11;
        }
      }
    }
  } else {
    for (let plane = 0, at = 0; plane < batch * c; plane++) {
      for (let oy = 0; oy < oh; oy++) {
        const top = (plane * h + y0[oy]) * w;
        const bottom = (plane * h + y1[oy]) * w;
        const dy = fy[oy];
        for (let ox = 0; ox < ow; ox++) {
          const dx = fx[ox];
          out[at++] = x[top + x0[ox]] * (1 - dy) * (1 - dx) + x[bottom + x0[ox]] * dy * (1 - dx) + x[top + x1[ox]] * (1 - dy) * dx + x[bottom + x1[ox]] * dy * dx;
        }
      }
    }
  }
};

const rowIndex = new ScratchI32();
const rowUpper = new ScratchI32();
const rowWeight = new ScratchF64();
const columnIndex = new ScratchI32();
const columnUpper = new ScratchI32();
const columnWeight = new ScratchF64();

/** TFLite's scale of one axis: input / output, or (input - 1) / (output - 1) with alignCorners, in float32. */
export function scaleOf(input: number, output: number, alignCorners: boolean): number {
  return alignCorners && output > 1 ? f32(f32(input - 1) / f32(output - 1)) : f32(f32(input) / f32(output));
}

/** TFLite's ComputeInterpolationValues for every output position along one axis. */
export function bilinearSources(input: number, output: number, alignCorners: boolean, halfPixelCenters: boolean, lower: Int32Array, upper: Int32Array, weight: Float64Array): void {
  const scale = scaleOf(input, output, alignCorners);
  for (let o = 0; o < output; o++) {
    const src = halfPixelCenters ? f32(f32(f32(o + 0.5) * scale) - 0.5) : f32(o * scale);
    const floor = Math.floor(src);
    const lo = Math.max(floor, 0);
    lower[o] = lo;
    upper[o] = Math.min(Math.ceil(src), input - 1);
    // TFLite weighs the upper pixel by (src - lower) and the lower by 1 - (src - lower).
    weight[o] = f32(src - lo);
  }
}

/** TFLite's GetNearestNeighbor. */
export function nearestSource(o: number, input: number, output: number, alignCorners: boolean, halfPixelCenters: boolean): number {
  const scale = scaleOf(input, output, alignCorners);
  const position = f32(f32(o + (halfPixelCenters ? 0.5 : 0)) * scale);
  // TfLiteRound rounds half away from zero; positions here are never negative.
  let index = Math.min(alignCorners ? Math.floor(position + 0.5) : Math.floor(position), input - 1);
  if (halfPixelCenters) index = Math.max(0, index);
  return index;
}
