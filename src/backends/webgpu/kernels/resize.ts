import type { Node } from '../../../graph/ir.ts';
import { bilinearSources, nearestSource } from '../../cpu/kernels/resize.ts';
import { inputOutputArgs, KernelError, type WebGpuKernel } from '../kernel.ts';
import { dims4, index4, Params } from './wgsl.ts';

type ResizeNode = Extract<Node, { op: 'Resize' }>;

/**
 * Resize, bilinear or nearest, with TFLite's source coordinates: the per-row and per-column
 * source indices (and bilinear weights) are computed once on the host by the very functions
 * the CPU kernel uses, and read from a table; one output pixel per invocation, 4 channels at
 * a time in NHWC when the channels allow.
 *
 * Table layout (u32, weights as float32 bits): bilinear [y0 | y1 | fy] over output rows then
 * [x0 | x1 | fx] over output columns; nearest [ys | xs].
 */
export const resize: WebGpuKernel = (context) => {
  const node = context.node as ResizeNode;
  const inD = dims4(context, context.inputShapes[0]);
  const outD = dims4(context, context.outputShape);
  if (inD.n !== outD.n || inD.c !== outD.c) throw new KernelError(node, "the output's batch or channels differ from the input's.");
  const { h, w } = inD;
  const { h: oh, w: ow } = outD;
  const vec = context.layout === 'NHWC' && inD.c % 4 === 0;
  const blocks = vec ? inD.c / 4 : inD.c;
  const ld = vec ? 'x_ld4' : 'x_ld';
  const params = new Params().u('IN_H', h).u('IN_W', w).u('IN_C', inD.c).u('OUT_H', oh).u('OUT_W', ow).u('OUT_C', outD.c).u('BLOCKS', blocks);
  const at = (y: string, x: string): string => (vec ? `((n * IN_H + ${y}) * IN_W + ${x}) * BLOCKS + cb` : index4(context.layout, 'IN_', 'n', y, x, 'cb'));
  const outAt = vec ? 'p * BLOCKS + cb' : index4(context.layout, 'OUT_', 'n', 'oy', 'ox', 'cb');
  const head = ['fn run(i: u32) {', params.lets(), '  let cb = i % BLOCKS;', '  let p = i / BLOCKS;', '  let n = p / (OUT_H * OUT_W);', '  let oy = (p / OUT_W) % OUT_H;', '  let ox = p % OUT_W;'];
  let table: Uint32Array;
  let body: string[];
  if (node.mode === 'nearest') {
    table = new Uint32Array(oh + ow);
    for (let o = 0; o < oh; o++) table[o] = nearestSource(o, h, oh, node.alignCorners, node.halfPixelCenters);
    for (let o = 0; o < ow; o++) table[oh + o] = nearestSource(o, w, ow, node.alignCorners, node.halfPixelCenters);
    body = [`  let v = ${ld}(${at('t_ld(oy)', 't_ld(OUT_H + ox)')});`];
  } else {
    table = new Uint32Array(3 * (oh + ow));
    const bits = new Float32Array(table.buffer);
    const axis = (input: number, output: number, start: number): void => {
      const lower = new Int32Array(output);
      const upper = new Int32Array(output);
      const weight = new Float64Array(output);
      bilinearSources(input, output, node.alignCorners, node.halfPixelCenters, lower, upper, weight);
      for (let o = 0; o < output; o++) {
        table[start + o] = lower[o];
        table[start + output + o] = upper[o];
        bits[start + 2 * output + o] = weight[o];
      }
    };
    axis(h, oh, 0);
    axis(w, ow, 3 * oh);
    body = [
      '  let y0 = t_ld(oy);',
      '  let y1 = t_ld(OUT_H + oy);',
      '  let dy = bitcast<f32>(t_ld(2u * OUT_H + oy));',
      '  let x0 = t_ld(3u * OUT_H + ox);',
      '  let x1 = t_ld(3u * OUT_H + OUT_W + ox);',
      '  let dx = bitcast<f32>(t_ld(3u * OUT_H + 2u * OUT_W + ox));',
      `  let v = ${ld}(${at('y0', 'x0')}) * ((1.0f - dy) * (1.0f - dx)) + ${ld}(${at('y1', 'x0')}) * (dy * (1.0f - dx))`,
      `        + ${ld}(${at('y0', 'x1')}) * ((1.0f - dy) * dx) + ${ld}(${at('y1', 'x1')}) * (dy * dx);`,
    ];
  }
  const [x, y] = inputOutputArgs(node, vec);
  const code = [...head, ...body, `  ${vec ? 'y_st4' : 'y_st'}(${outAt}, v);`, '}'].join('\n');
  return [
    {
      label: node.name,
      // The index table binds between the input and the output.
      args: [x, { kind: 'data', name: 't', data: table }, y],
      code,
      params: params.values(),
      invocations: outD.n * oh * ow * blocks,
    },
  ];
};
