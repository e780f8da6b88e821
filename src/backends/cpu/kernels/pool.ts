import type { Node } from '../../../graph/ir.ts';
import type { Kernel, KernelCall } from '../kernel.ts';
import { clampRange, finishActivation } from './activation.ts';
import { checkLength, dims4, input, padBefore, ScratchF64 } from './common.ts';

type PoolNode = Extract<Node, { op: 'AveragePool' | 'MaxPool' }>;

/** TFLite's "lowest float": a max pool over a window with no valid pixel. */
const LOWEST = -3.4028234663852886e38;

const accumulators = new ScratchF64();

/**
 * AveragePool and MaxPool over windows of the input; padded positions take no part: an
 * average divides by the number of valid pixels in its window (TFLite; ONNX with
 * count_include_pad = 0), a max ignores them. Fused activation.
 */
export const averagePool: Kernel = (call) => pool(call, false);
export const maxPool: Kernel = (call) => pool(call, true);

function pool(call: KernelCall, isMax: boolean): void {
  const node = call.node as PoolNode;
  const x = input(call, 0);
  const out = call.output;
  checkLength(call, x, call.inputShapes[0], 'input');
  checkLength(call, out, call.outputShape, 'output');
  const inD = dims4(call, call.inputShapes[0], call.layout);
  const outD = dims4(call, call.outputShape, call.layout);
  if (inD.n !== outD.n || inD.c !== outD.c) throw new Error(`node ${node.name} (${node.op}): the output's batch or channels differ from the input's.`);
  const [kh, kw] = node.kernel;
  const [sh, sw] = node.strides;
  const [pt, pl] = padBefore(node.padding, inD.h, inD.w, kh, kw, sh, sw, 1, 1);
  const { lo, hi } = clampRange(node.activation);
  const { n: batch, h, w, c } = inD;
  const { h: oh, w: ow } = outD;
  if (call.layout === 'NHWC') {
    const acc = accumulators.get(c);
    for (let n = 0; n < batch; n++) {
      for (let oy = 0; oy < oh; oy++) {
        const iy0 = oy * sh - pt;
        const kyLo = Math.max(0, -iy0);
        const kyHi = Math.min(kh, h - iy0);
        for (let ox = 0; ox < ow; ox++) {
          const ix0 = ox * sw - pl;
          const kxLo = Math.max(0, -ix0);
          const kxHi = Math.min(kw, w - ix0);
          acc.fill(isMax ? LOWEST : 0, 0, c);
          for (let ky = kyLo; ky < kyHi; ky++) {
            for (let kx = kxLo; kx < kxHi; kx++) {
              const base = ((n * h + iy0 + ky) * w + ix0 + kx) * c;
              if (isMax) {
                for (let ch = 0; ch < c; ch++) {
                  const v = x[base + ch];
                  if (v > acc[ch]) acc[ch] = v;
                }
              } else {
                for (let ch = 0; ch < c; ch++) acc[ch] += x[base + ch];
              }
            }
          }
          const windowCount = Math.max(0, kyHi - kyLo) * Math.max(0, kxHi - kxLo);
          const scale = isMax || windowCount === 0 ? 1 : 1 / windowCount;
          const at = ((n * oh + oy) * ow + ox) * c;
          for (let ch = 0; ch < c; ch++) {
            const v = acc[ch] * scale;
            out[at + ch] = v < lo ? lo : v > hi ? hi : v;
          }
        }
      }
    }
  } else {
    for (let plane = 0; plane < batch * c; plane++) {
      const inBase = plane * h * w;
      const outBase = plane * oh * ow;
      for (let oy = 0; oy < oh; oy++) {
        const iy0 = oy * sh - pt;
        const kyLo = Math.max(0, -iy0);
        const kyHi = Math.min(kh, h - iy0);
        for (let ox = 0; ox < ow; ox++) {
          const ix0 = ox * sw - pl;
          const kxLo = Math.max(0, -ix0);
          const kxHi = Math.min(kw, w - ix0);
          let v = isMax ? LOWEST : 0;
          for (let ky = kyLo; ky < kyHi; ky++) {
            const row = inBase + (iy0 + ky) * w + ix0;
            for (let kx = kxLo; kx < kxHi; kx++) {
              const s = x[row + kx];
              if (isMax) {
                if (s > v) v = s;
              } else {
                v += s;
              }
            }
          }
          const windowCount = Math.max(0, kyHi - kyLo) * Math.max(0, kxHi - kxLo);
          if (!isMax && windowCount > 0) v /= windowCount;
          out[outBase + oy * ow + ox] = v < lo ? lo : v > hi ? hi : v;
        }
      }
    }
  }
  finishActivation(out, node.activation);
}

/** GlobalAveragePool: the mean of each channel over height and width. */
export const globalAveragePool: Kernel = (call) => {
  const x = input(call, 0);
  const out = call.output;
  checkLength(call, x, call.inputShapes[0], 'input');
  const { n: batch, h, w, c } = dims4(call, call.inputShapes[0], call.layout);
  if (out.length !== batch * c) throw new Error(`node ${call.node.name} (GlobalAveragePool): the output holds ${out.length} values, expected ${batch * c}.`);
  const hw = h * w;
  if (call.layout === 'NHWC') {
    const acc = accumulators.get(c);
    for (let n = 0; n < batch; n++) {
      acc.fill(0, 0, c);
      for (let p = 0, base = n * hw * c; p < hw; p++, base += c) for (let ch = 0; ch < c; ch++) acc[ch] += x[base + ch];
      for (let ch = 0; ch < c; ch++) out[n * c + ch] = acc[ch] / hw;
    }
  } else {
    for (let plane = 0; plane < batch * c; plane++) {
      let sum = 0;
      for (let p = plane * hw, end = p + hw; p < end; p++) sum += x[p];
      out[plane] = sum / hw;
    }
  }
};
