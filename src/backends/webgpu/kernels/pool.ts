import type { Node } from '../../../graph/ir.ts';
import { inputOutputArgs, KernelError, type DispatchSpec, type KernelContext, type WebGpuKernel } from '../kernel.ts';
import { act, dims4, index4, LOWEST_F32, padBefore, Params } from './wgsl.ts';

type PoolNode = Extract<Node, { op: 'AveragePool' | 'MaxPool' }>;

/**
 * AveragePool and MaxPool: padded positions take no part (an average divides by the number
 * of valid pixels in its window, as TFLite counts; a max ignores them; a window with no valid
 * pixel gives 0, or TFLite's lowest float for a max), then the fused activation. One output
 * pixel per invocation, 4 channels at a time in NHWC when the channels allow.
 */
export const averagePool: WebGpuKernel = (context) => [poolSpec(context, false)];
export const maxPool: WebGpuKernel = (context) => [poolSpec(context, true)];

function poolSpec(context: KernelContext, isMax: boolean): DispatchSpec {
  const node = context.node as PoolNode;
  const { layout } = context;
  const inD = dims4(context, context.inputShapes[0]);
  const outD = dims4(context, context.outputShape);
  if (inD.n !== outD.n || inD.c !== outD.c) throw new KernelError(node, "the output's batch or channels differ from the input's.");
  const [kh, kw] = node.kernel;
  const [sh, sw] = node.strides;
  const [pt, pl] = padBefore(node.padding, inD.h, inD.w, kh, kw, sh, sw, 1, 1);
  const vec = layout === 'NHWC' && inD.c % 4 === 0;
  const blocks = vec ? inD.c / 4 : inD.c;
  const params = new Params()
    .u('IN_H', inD.h).u('IN_W', inD.w).u('IN_C', inD.c).u('OUT_H', outD.h).u('OUT_W', outD.w).u('OUT_C', outD.c)
    .i('KH', kh).i('KW', kw).i('SH', sh).i('SW', sw).i('PT', pt).i('PL', pl).u('BLOCKS', blocks)
    .activation(node.activation);
  const t = vec ? 'vec4<f32>' : 'f32';
  const at = vec ? '((n * IN_H + y) * IN_W + x) * BLOCKS + cb' : index4(layout, 'IN_', 'n', 'y', 'x', 'cb');
  const load = vec ? `x_ld4(${at})` : `x_ld(${at})`;
  const lines = [
    'fn run(i: u32) {',
    params.lets(),
    '  let cb = i % BLOCKS;',
    '  let p = i / BLOCKS;',
    '  let n = p / (OUT_H * OUT_W);',
    '  let oy = (p / OUT_W) % OUT_H;',
    '  let ox = p % OUT_W;',
    '  let iy0 = i32(oy) * SH - PT;',
    '  let ix0 = i32(ox) * SW - PL;',
    '  let y0 = u32(max(iy0, 0i));',
    '  let y1 = u32(max(min(iy0 + KH, i32(IN_H)), 0i));',
    '  let x0 = u32(max(ix0, 0i));',
    '  let x1 = u32(max(min(ix0 + KW, i32(IN_W)), 0i));',
    `  var acc = ${t}(${isMax ? LOWEST_F32 : '0.0f'});`,
    '  for (var y = y0; y < y1; y++) {',
    '    for (var x = x0; x < x1; x++) {',
    isMax ? `      acc = max(acc, ${load});` : `      acc += ${load};`,
    '    }',
    '  }',
    isMax ? '' : `  if (y1 > y0 && x1 > x0) { acc = acc / f32((y1 - y0) * (x1 - x0)); }`,
    vec ? `  y_st4(p * BLOCKS + cb, ${act('acc', true)});` : `  y_st(${index4(layout, 'OUT_', 'n', 'oy', 'ox', 'cb')}, ${act('acc')});`,
    '}',
  ];
  return {
    label: node.name,
    args: inputOutputArgs(node, vec),
    code: lines.join('\n'),
    params: params.values(),
    invocations: outD.n * outD.h * outD.w * blocks,
  };
}

/** GlobalAveragePool: the mean of each channel over height and width. */
export const globalAveragePool: WebGpuKernel = (context) => {
  const { node, layout } = context;
  const d = dims4(context, context.inputShapes[0]);
  const vec = layout === 'NHWC' && d.c % 4 === 0;
  const blocks = vec ? d.c / 4 : d.c;
  const params = new Params().u('HW', d.h * d.w).u('C', d.c).u('BLOCKS', blocks);
  const t = vec ? 'vec4<f32>' : 'f32';
  const at = layout === 'NHWC' ? '(n * HW + q) * BLOCKS + cb' : '(n * C + cb) * HW + q';
  const code = [
    'fn run(i: u32) {',
    params.lets(),
    '  let cb = i % BLOCKS;',
    '  let n = i / BLOCKS;',
    `  var acc = ${t}(0.0f);`,
    `  for (var q = 0u; q < HW; q++) { acc += ${vec ? 'x_ld4' : 'x_ld'}(${at}); }`,
    `  ${vec ? 'y_st4' : 'y_st'}(i, acc / f32(HW));`,
    '}',
  ].join('\n');
  return [
    {
      label: node.name,
      args: inputOutputArgs(node, vec),
      code,
      params: params.values(),
      invocations: d.n * blocks,
    },
  ];
};
