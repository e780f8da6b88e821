import type { Activation, Layout, Node } from '../../../graph/ir.ts';
import { KernelError, type DispatchSpec, type KernelContext, type WebGpuKernel } from '../kernel.ts';
import { convGeometry as nodeConvGeometry, type ConvGeometry } from '../../kernel-geometry.ts';
import { act, index4, Params } from './wgsl.ts';

export type { ConvGeometry };

type ConvNode = Extract<Node, { op: 'Conv' }>;

/**
 * Conv: groups = 1, depthwise (groups = input channels, any multiplier) and any other group
 * count; weights OHWI, 1HWO or OIHW (repacked once to [tap][output channel]); optional bias;
 * SAME / VALID / explicit padding, strides, dilations; fused activation; NHWC or NCHW.
 */
export const conv: WebGpuKernel = (context) => {
  const node = context.node as ConvNode;
  const g = convGeometry(context, node);
  const weights = context.constantInput(1);
  if (weights === undefined) throw new KernelError(node, 'the WebGPU backend needs constant convolution weights.');
  if (weights.length !== g.o * g.kh * g.kw * g.cg) throw new KernelError(node, `weights have ${weights.length} elements, expected ${g.o}x${g.kh}x${g.kw}x${g.cg}.`);
  const bias = biasValues(context, 2, g.o);
  const taps = tapMajorWeights(weights, node, g);
  if (g.groups === g.c && g.cg === 1) return [depthwiseSpec(node.name, context.layout, g, taps, bias, node.activation, node.inputs[0], node.outputs[0])];
  return [convSpec(node.name, context.layout, g, taps, bias, node.activation, node.inputs[0], node.outputs[0])];
};

/** The geometry of this dispatch's convolution (one module for both backends). */
export function convGeometry(context: KernelContext, node: ConvNode): ConvGeometry {
  return nodeConvGeometry(node, context.inputShapes[0], context.outputShape, context.layout);
}

/** A bias input's values, or zeros when absent. */
export function biasValues(context: KernelContext, index: number, length: number): Float32Array {
  const name = context.node.inputs[index];
  if (name === undefined || name === '') return new Float32Array(length);
  const values = context.constantInput(index);
  if (values === undefined) throw new KernelError(context.node, 'the WebGPU backend needs a constant bias.');
  if (values.length !== length) throw new KernelError(context.node, `bias has ${values.length} elements, expected ${length}.`);
  return values;
}

/** Weights as [k][o] with k = (ky*kw + kx)*cg + ci, whatever their layout. */
function tapMajorWeights(weights: Float32Array, node: ConvNode, g: ConvGeometry): Float32Array {
  const { o: outChannels, kh, kw, cg } = g;
  const k = kh * kw * cg;
  const out = new Float32Array(k * outChannels);
  for (let o = 0; o < outChannels; o++) {
    for (let ky = 0; ky < kh; ky++) {
      for (let kx = 0; kx < kw; kx++) {
        for (let ci = 0; ci < cg; ci++) {
          let value: number;
          switch (node.weightLayout) {
            case 'OHWI':
              value = weights[((o * kh + ky) * kw + kx) * cg + ci];
              break;
            case 'OIHW':
              value = weights[((o * cg + ci) * kh + ky) * kw + kx];
              break;
            case '1HWO':
              if (cg !== 1) throw new KernelError(node, `1HWO weights need one input channel per group, not ${cg}.`);
              value = weights[(ky * kw + kx) * outChannels + o];
              break;
          }
          out[((ky * kw + kx) * cg + ci) * outChannels + o] = value;
        }
      }
    }
  }
  return out;
}

/** [k][o] weights with o padded to `padded` columns (zeros). */
function padColumns(weights: Float32Array, k: number, o: number, padded: number): Float32Array {
  if (padded === o) return weights;
  const out = new Float32Array(k * padded);
  for (let r = 0; r < k; r++) out.set(weights.subarray(r * o, r * o + o), r * padded);
  return out;
}

function padTo(values: Float32Array, length: number): Float32Array {
  if (values.length === length) return values;
  const out = new Float32Array(length);
  out.set(values);
  return out;
}

/** The geometry's parameters: input IN_H/W/C, output OUT_H/W/C, window, strides, dilations, padding, groups. */
function geometryParams(g: ConvGeometry, activation: Activation): Params {
  return new Params()
    .u('IN_H', g.h).u('IN_W', g.w).u('IN_C', g.c)
    .u('OUT_H', g.oh).u('OUT_W', g.ow).u('OUT_C', g.o)
    .u('KH', g.kh).u('KW', g.kw)
    .i('SH', g.sh).i('SW', g.sw).i('DH', g.dh).i('DW', g.dw).i('PT', g.pt).i('PL', g.pl)
    .u('CG', g.cg).u('OG', g.og)
    .u('PIXELS', g.n * g.oh * g.ow)
    .activation(activation);
}

/** Output pixels one invocation computes: they share every weight load (measured best on lavapipe, with 4 channels). */
const PIXELS = 4;

/** WGSL: pixel j of pixel block `pb`: batch n{j}, in-plane index r{j}, window origin iy{j}, ix{j}; valid{j} when it exists. */
function pixelLines(): string[] {
  const lines: string[] = [];
  for (let j = 0; j < PIXELS; j++) {
    lines.push(`  let valid${j} = pb * ${PIXELS}u + ${j}u < PIXELS;`);
    lines.push(`  let p${j} = min(pb * ${PIXELS}u + ${j}u, PIXELS - 1u);`);
    lines.push(`  let n${j} = p${j} / (OUT_H * OUT_W);`);
    lines.push(`  let r${j} = p${j} % (OUT_H * OUT_W);`);
    lines.push(`  let iy${j} = i32(r${j} / OUT_W) * SH - PT;`);
    lines.push(`  let ix${j} = i32(r${j} % OUT_W) * SW - PL;`);
  }
  return lines;
}

/** WGSL inside the (ky, kx) loop, per pixel j: the tap's coordinates yy{j}, xx{j} and whether they are inside the input (ok{j}). */
function tapLines(): string[] {
  const lines: string[] = [];
  for (let j = 0; j < PIXELS; j++) {
    lines.push(`      let yy${j} = iy${j} + i32(ky) * DH;`);
    lines.push(`      let xx${j} = ix${j} + i32(kx) * DW;`);
    lines.push(`      let ok${j} = yy${j} >= 0i && yy${j} < i32(IN_H) && xx${j} >= 0i && xx${j} < i32(IN_W);`);
  }
  return lines;
}

/** WGSL storing `value` for pixel j, output channel `o` (scalar), in the layout. */
function storeScalar(layout: Layout, j: number, o: string, value: string): string {
  return `y_st(${index4(layout, 'OUT_', `n${j}`, `r${j} / OUT_W`, `r${j} % OUT_W`, o)}, ${value});`;
}

/**
 * A convolution (not depthwise), or a dense layer as one: each invocation computes 4 output
 * channels (vec4 weights, repacked to [k][output channel] and padded to 4; 1 channel when a
 * group's output channels are not a multiple of 4) of PIXELS output pixels, over
 * k = (ky, kx, ci), reading 4 input channels at a time (vec4) where NHWC channels allow.
 * Neighbouring invocations compute neighbouring channel blocks of the same pixels.
 */
export function convSpec(label: string, layout: Layout, g: ConvGeometry, taps: Float32Array, bias: Float32Array, activation: Activation, input: string, output: string): DispatchSpec {
  const totalPixels = g.n * g.oh * g.ow;
  const oc = g.groups === 1 || g.og % 4 === 0 ? 4 : 1;
  const oPadded = Math.ceil(g.o / oc) * oc;
  const oBlocks = oPadded / oc;
  const vecX = layout === 'NHWC' && g.cg % 4 === 0 && g.c % 4 === 0;
  const vecY = layout === 'NHWC' && oc === 4 && g.o % 4 === 0;
  const step = vecX ? 4 : 1;
  const k = g.kh * g.kw * g.cg;
  const params = geometryParams(g, activation).u('OBLOCKS', oBlocks);
  const acc = oc === 4 ? 'vec4<f32>' : 'f32';
  const lines: string[] = [];
  lines.push('fn run(i: u32) {');
  lines.push(params.lets());
  lines.push('  let ob = i % OBLOCKS;');
  lines.push('  let pb = i / OBLOCKS;');
  lines.push(`  let o0 = ob * ${oc}u;`);
  lines.push('  let cb = (o0 / OG) * CG;');
  lines.push(...pixelLines());
  for (let j = 0; j < PIXELS; j++) lines.push(`  var a${j} = ${acc}(0.0f);`);
  lines.push('  for (var ky = 0u; ky < KH; ky++) {');
  lines.push('    for (var kx = 0u; kx < KW; kx++) {');
  lines.push('      let kb = (ky * KW + kx) * CG;');
  lines.push(...tapLines());
  for (let j = 0; j < PIXELS; j++) lines.push(`      let s${j} = select(0u, ${index4(layout, 'IN_', `n${j}`, `u32(yy${j})`, `u32(xx${j})`, 'cb')}, ok${j});`);
  lines.push(`      for (var ci = 0u; ci < CG; ci += ${step}u) {`);
  for (let r = 0; r < step; r++) lines.push(oc === 4 ? `        let w${r} = w_ld4((kb + ci + ${r}u) * OBLOCKS + ob);` : `        let w${r} = w_ld((kb + ci + ${r}u) * OUT_C + o0);`);
  for (let j = 0; j < PIXELS; j++) {
    if (vecX) {
      lines.push(`        let v${j} = select(vec4<f32>(0.0f), x_ld4((s${j} + ci) / 4u), ok${j});`);
      lines.push(`        a${j} += v${j}.x * w0 + v${j}.y * w1 + v${j}.z * w2 + v${j}.w * w3;`);
    } else {
      const channel = layout === 'NHWC' ? 'ci' : 'ci * IN_H * IN_W';
      lines.push(`        a${j} += select(0.0f, x_ld(s${j} + ${channel}), ok${j}) * w0;`);
    }
  }
  lines.push('      }');
  lines.push('    }');
  lines.push('  }');
  lines.push(oc === 4 ? '  let bv = bias_ld4(ob);' : '  let bv = bias_ld(o0);');
  for (let j = 0; j < PIXELS; j++) {
    lines.push(`  if (valid${j}) {`);
    lines.push(`    let res = ${act(`a${j} + bv`, oc === 4)};`);
    if (vecY) {
      lines.push(`    y_st4((p${j} * OUT_C + o0) / 4u, res);`);
    } else if (oc === 1) {
      lines.push(`    ${storeScalar(layout, j, 'o0', 'res')}`);
    } else {
      for (let c = 0; c < 4; c++) lines.push(`    if (o0 + ${c}u < OUT_C) { ${storeScalar(layout, j, `o0 + ${c}u`, `res[${c}]`)} }`);
    }
    lines.push('  }');
  }
  lines.push('}');
  return {
    label,
    args: [
      { kind: 'tensor', name: 'x', tensor: input, access: 'read', vec4: vecX },
      { kind: 'data', name: 'w', data: padColumns(taps, k, g.o, oPadded), vec4: oc === 4 },
      { kind: 'data', name: 'bias', data: padTo(bias, oPadded), vec4: oc === 4 },
      { kind: 'tensor', name: 'y', tensor: output, access: 'write', vec4: vecY },
    ],
    code: lines.join('\n'),
    params: params.values(),
    invocations: oBlocks * Math.ceil(totalPixels / PIXELS),
  };
}

/**
 * Depthwise: output channel o reads input channel o / multiplier. NHWC with multiplier 1 and
 * channels a multiple of 4: 4 channels per invocation (vec4); otherwise one channel; PIXELS
 * pixels per invocation, neighbouring invocations on neighbouring channels.
 */
function depthwiseSpec(label: string, layout: Layout, g: ConvGeometry, taps: Float32Array, bias: Float32Array, activation: Activation, input: string, output: string): DispatchSpec {
  const totalPixels = g.n * g.oh * g.ow;
  const vec = layout === 'NHWC' && g.o === g.c && g.c % 4 === 0;
  const blocks = vec ? g.o / 4 : g.o;
  const params = geometryParams(g, activation).u('BLOCKS', blocks).u('MULTIPLIER', g.o / g.c);
  const t = vec ? 'vec4<f32>' : 'f32';
  const lines: string[] = [];
  lines.push('fn run(i: u32) {');
  lines.push(params.lets());
  lines.push('  let cb = i % BLOCKS;');
  lines.push('  let pb = i / BLOCKS;');
  lines.push('  let ci = cb / MULTIPLIER;');
  lines.push(...pixelLines());
  for (let j = 0; j < PIXELS; j++) lines.push(`  var a${j} = ${t}(0.0f);`);
  lines.push('  for (var ky = 0u; ky < KH; ky++) {');
  lines.push('    for (var kx = 0u; kx < KW; kx++) {');
  lines.push(`      let wt = ${vec ? 'w_ld4((ky * KW + kx) * BLOCKS + cb)' : 'w_ld((ky * KW + kx) * OUT_C + cb)'};`);
  lines.push(...tapLines());
  for (let j = 0; j < PIXELS; j++) {
    // Outside the input: index 0 is read and its value replaced by 0.
    const at = vec ? `((n${j} * IN_H + u32(yy${j})) * IN_W + u32(xx${j})) * BLOCKS + cb` : index4(layout, 'IN_', `n${j}`, `u32(yy${j})`, `u32(xx${j})`, 'ci');
    lines.push(`      a${j} += select(${t}(0.0f), ${vec ? 'x_ld4' : 'x_ld'}(select(0u, ${at}, ok${j})), ok${j}) * wt;`);
  }
  lines.push('    }');
  lines.push('  }');
  lines.push(`  let bv = ${vec ? 'bias_ld4(cb)' : 'bias_ld(cb)'};`);
  for (let j = 0; j < PIXELS; j++) {
    const res = act(`a${j} + bv`, vec);
    lines.push(`  if (valid${j}) { ${vec ? `y_st4(p${j} * BLOCKS + cb, ${res});` : storeScalar(layout, j, 'cb', res)} }`);
  }
  lines.push('}');
  return {
    label,
    args: [
      { kind: 'tensor', name: 'x', tensor: input, access: 'read', vec4: vec },
      { kind: 'data', name: 'w', data: taps, vec4: vec },
      { kind: 'data', name: 'bias', data: bias, vec4: vec },
      { kind: 'tensor', name: 'y', tensor: output, access: 'write', vec4: vec },
    ],
    code: lines.join('\n'),
    params: params.values(),
    invocations: blocks * Math.ceil(totalPixels / PIXELS),
  };
}
