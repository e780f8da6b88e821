import type { Node } from '../../../graph/ir.ts';
import type { Kernel, KernelCall } from '../kernel.ts';
import { applyActivation } from './activation.ts';
import { checkLength, dims4, input, padBefore, ScratchF64, ScratchI32, windowInOut } from './common.ts';
import { LOWEST_FLOAT } from './wasm/pool.ts';

type PoolNode = Extract<Node, { op: 'AveragePool' | 'MaxPool' }>;

/**
 * AveragePool and MaxPool over windows of the input; padded positions take no part: an
 * average divides by the number of valid pixels in its window (TFLite; ONNX with
 * count_include_pad = 0), a max ignores them (a window with no valid pixel gives 0, or
 * TFLite's lowest float for a max). Then the fused activation.
 */
export const averagePool: Kernel = (call) => pool(call, false);
export const maxPool: Kernel = (call) => pool(call, true);

function pool(call: KernelCall, isMax: boolean): void {
  const node = call.node as PoolNode;
  const { x, out, inD, outD } = windowInOut(call);
  const [kh, kw] = node.kernel;
  const [sh, sw] = node.strides;
  const [pt, pl] = padBefore(node.padding, inD.h, inD.w, kh, kw, sh, sw, 1, 1);
  const { n: batch, h, w, c } = inD;
  const { h: oh, w: ow } = outD;
  const nhwc = call.layout === 'NHWC';
  // Per output pixel: the offsets of its window's pixels inside the input (channel 0), then
  // per channel a run over them; NCHW planes are pools of one channel.
  const offsets = windowOffsets.get(kh * kw);
  const planes = nhwc ? batch : batch * c;
  const channels = nhwc ? c : 1;
  for (let plane = 0; plane < planes; plane++) {
    const inBase = plane * h * w * channels;
    let at = plane * oh * ow * channels;
    for (let oy = 0; oy < oh; oy++) {
      const iy0 = oy * sh - pt;
      const kyLo = Math.max(0, -iy0);
      const kyHi = Math.min(kh, h - iy0);
      for (let ox = 0; ox < ow; ox++, at += channels) {
        const ix0 = ox * sw - pl;
        const kxLo = Math.max(0, -ix0);
        const kxHi = Math.min(kw, w - ix0);
        let taps = 0;
        for (let ky = kyLo; ky < kyHi; ky++) {
          for (let kx = kxLo; kx < kxHi; kx++) offsets[taps++] = inBase + ((iy0 + ky) * w + ix0 + kx) * channels;
        }
        if (taps === 0) {
          for (let ch = 0; ch < channels; ch++) out[at + ch] = isMax ? LOWEST_FLOAT : 0;
        } else if (isMax) {
          for (let ch = 0; ch < channels; ch++) {
            let m = x[offsets[0] + ch];
            for (let t = 1; t < taps; t++) {
              const v = x[offsets[t] + ch];
              if (v > m) m = v;
            }
            out[at + ch] = m;
          }
        } else {
          const scale = 1 / taps;
          for (let ch = 0; ch < channels; ch++) {
            let sum = 0;
            for (let t = 0; t < taps; t++) sum += x[offsets[t] + ch];
            out[at + ch] = sum * scale;
          }
        }
      }
    }
  }
  applyActivation(out, node.activation);
}

const windowOffsets = new ScratchI32();

const accumulators = new ScratchF64();

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
