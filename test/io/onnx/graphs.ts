import type { DType } from '../../../src/graph/dtype.ts';
import { elementCount, type Graph, type Layout, type Node, type OpSpec, type Tensor } from '../../../src/graph/ir.ts';
import { inferOutputShapes } from '../../../src/graph/shape-inference.ts';

type Spec = OpSpec extends infer S ? (S extends OpSpec ? S : never) : never;

/** Builds small IR graphs by hand; output shapes come from shape inference. */
export class GraphBuilder {
  readonly tensors = new Map<string, Tensor>();
  readonly nodes: Node[] = [];
  readonly inputs: string[] = [];

  constructor(
    readonly name: string,
    readonly layout: Layout,
  ) {}

  input(name: string, shape: number[], dtype: DType = 'float32'): string {
    this.tensors.set(name, { name, shape, dtype, constant: false });
    this.inputs.push(name);
    return name;
  }

  constant(name: string, shape: number[], data?: ArrayBufferView, dtype: DType = 'float32'): string {
    this.tensors.set(name, { name, shape, dtype, constant: true, ...(data ? { data } : {}) });
    return name;
  }

  /** A constant filled with 0, 1, 2, ... (so permutations can be checked). */
  counting(name: string, shape: number[]): string {
    return this.constant(
      name,
      shape,
      Float32Array.from({ length: elementCount(shape) }, (_, k) => k),
    );
  }

  op(spec: Spec, inputs: string[], output: string, dtype: DType = 'float32'): string {
    const node = { ...spec, name: `${output}_op`, inputs, outputs: [output] } as Node;
    const shapes = inputs.map((name) => (name === '' ? [] : this.shape(name)));
    const [shape] = inferOutputShapes(node, shapes, this.layout);
    this.tensors.set(output, { name: output, shape, dtype, constant: false });
    this.nodes.push(node);
    return output;
  }

  shape(name: string): readonly number[] {
    const tensor = this.tensors.get(name);
    if (!tensor) throw new Error(`no tensor ${name}`);
    return tensor.shape;
  }

  build(outputs: string[]): Graph {
    return { name: this.name, layout: this.layout, tensors: this.tensors, nodes: this.nodes, inputs: this.inputs, outputs };
  }
}

const same = { kind: 'same' } as const;
const valid = { kind: 'valid' } as const;

/** float16 bits of small whole numbers 0..n-1 (exact in half precision below 2048). */
function halfCounting(count: number): Uint16Array {
  const out = new Uint16Array(count);
  for (let k = 0; k < count; k++) {
    if (k === 0) continue;
    const exponent = Math.floor(Math.log2(k));
    const fraction = Math.round((k / 2 ** exponent - 1) * 1024);
    out[k] = ((exponent + 15) << 10) | fraction;
  }
  return out;
}

/**
 * A TFLite-like NHWC network with every op the converters handle: convs (regular OHWI,
 * depthwise 1HWO, SAME / VALID / explicit padding, fused activations, fp16 weights through a
 * Dequantize), add, mul by a per-channel constant, concat, pools, pad, resize (bilinear and
 * nearest), mean, squeeze, reshape, fully connected (2-D and 4-D input), softmax and
 * standalone activations.
 */
export function nhwcNetwork(withData = false): Graph {
  const b = new GraphBuilder('nhwc-net', 'NHWC');
  const w = (name: string, shape: number[]): string => (withData ? b.counting(name, shape) : b.constant(name, shape));
  b.input('image', [1, 32, 32, 3]);
  b.op(
    { op: 'Conv', kernel: [3, 3], strides: [2, 2], dilations: [1, 1], padding: same, groups: 1, outChannels: 8, weightLayout: 'OHWI', activation: 'relu6' },
    ['image', w('conv1/w', [8, 3, 3, 3]), w('conv1/b', [8])],
    'conv1',
  );
  b.op(
    { op: 'Conv', kernel: [3, 3], strides: [1, 1], dilations: [1, 1], padding: same, groups: 8, outChannels: 8, weightLayout: '1HWO', activation: 'relu' },
    ['conv1', w('dw/w', [1, 3, 3, 8]), w('dw/b', [8])],
    'dw',
  );
  b.op(
    { op: 'Conv', kernel: [1, 1], strides: [1, 1], dilations: [1, 1], padding: valid, groups: 1, outChannels: 16, weightLayout: 'OHWI', activation: 'none' },
    ['dw', w('pw/w', [16, 1, 1, 8]), ''],
    'pw',
  );
  b.constant('branch/w16', [16, 3, 3, 8], withData ? halfCounting(16 * 9 * 8) : undefined, 'float16');
  b.op({ op: 'Dequantize' }, ['branch/w16'], 'branch/w');
  b.op(
    { op: 'Conv', kernel: [3, 3], strides: [1, 1], dilations: [1, 1], padding: { kind: 'explicit', pads: [1, 1, 1, 1] }, groups: 1, outChannels: 16, weightLayout: 'OHWI', activation: 'tanh' },
    ['dw', 'branch/w', w('branch/b', [16])],
    'branch',
  );
  b.op({ op: 'Add', activation: 'relu' }, ['pw', 'branch'], 'sum');
  b.op({ op: 'Mul', activation: 'none' }, ['sum', w('scale', [16])], 'scaled');
  b.op({ op: 'Relu' }, ['scaled'], 'scaled/relu');
  b.op({ op: 'Concat', axis: 3, activation: 'none' }, ['pw', 'scaled/relu'], 'cat');
  b.op({ op: 'MaxPool', kernel: [2, 2], strides: [2, 2], padding: valid, activation: 'none' }, ['cat'], 'maxpool');
  b.op({ op: 'AveragePool', kernel: [3, 3], strides: [1, 1], padding: same, activation: 'relu' }, ['maxpool'], 'avgpool');
  b.op(
    {
      op: 'Pad',
      pads: [
        [0, 0],
        [1, 2],
        [2, 1],
        [0, 0],
      ],
    },
    ['avgpool'],
    'padded',
  );
  b.op(
    { op: 'Conv', kernel: [3, 3], strides: [2, 2], dilations: [1, 1], padding: valid, groups: 1, outChannels: 16, weightLayout: 'OHWI', activation: 'sigmoid' },
    ['padded', w('valid/w', [16, 3, 3, 32]), w('valid/b', [16])],
    'valid',
  );
  b.op({ op: 'Resize', mode: 'bilinear', size: [8, 8], alignCorners: false, halfPixelCenters: true }, ['valid'], 'up');
  b.op({ op: 'Resize', mode: 'nearest', size: [16, 16], alignCorners: true, halfPixelCenters: false }, ['up'], 'up2');
  b.op({ op: 'Mean', axes: [1, 2], keepDims: true }, ['up2'], 'mean');
  b.op({ op: 'Squeeze', axes: [1, 2] }, ['mean'], 'squeezed');
  b.op({ op: 'FullyConnected', outFeatures: 10, activation: 'relu', keepDims: false }, ['squeezed', w('fc/w', [10, 16]), w('fc/b', [10])], 'fc');
  b.op({ op: 'FullyConnected', outFeatures: 10, activation: 'none', keepDims: false }, ['mean', w('fc4d/w', [10, 16]), ''], 'fc4d');
  b.op({ op: 'Add', activation: 'none' }, ['fc', 'fc4d'], 'logits');
  b.op({ op: 'Reshape', shape: [1, 1, 1, -1] }, ['logits'], 'logits4d');
  b.op({ op: 'Reshape', shape: [1, 10] }, ['logits4d'], 'logits2d');
  b.op({ op: 'Softmax', axis: -1, beta: 1 }, ['logits2d'], 'probs');
  b.op({ op: 'Sigmoid' }, ['logits2d'], 'gate');
  b.op({ op: 'Tanh' }, ['gate'], 'gate/tanh');
  b.op({ op: 'Relu6' }, ['gate/tanh'], 'gate/relu6');
  return b.build(['probs', 'gate/relu6']);
}

/**
 * An ONNX-like NCHW network: OIHW convs (grouped), GlobalAveragePool, Flatten, Gemm, MatMul,
 * a keepDims FullyConnected of a 3-D tensor, Mean without keepDims.
 */
export function nchwNetwork(): Graph {
  const b = new GraphBuilder('nchw-net', 'NCHW');
  b.input('x', [1, 4, 20, 20]);
  b.op(
    { op: 'Conv', kernel: [3, 3], strides: [2, 2], dilations: [1, 1], padding: same, groups: 1, outChannels: 8, weightLayout: 'OIHW', activation: 'relu' },
    ['x', b.constant('c1/w', [8, 4, 3, 3]), b.constant('c1/b', [8])],
    'c1',
  );
  b.op(
    { op: 'Conv', kernel: [3, 3], strides: [1, 1], dilations: [2, 2], padding: { kind: 'explicit', pads: [2, 1, 2, 3] }, groups: 8, outChannels: 16, weightLayout: 'OIHW', activation: 'relu-n1-to-1' },
    ['c1', b.constant('dw/w', [16, 1, 3, 3]), ''],
    'dw',
  );
  b.op({ op: 'MaxPool', kernel: [3, 3], strides: [2, 2], padding: same, activation: 'none' }, ['dw'], 'pool');
  b.op({ op: 'Mean', axes: [2, 3], keepDims: false }, ['pool'], 'mean');
  b.op({ op: 'GlobalAveragePool' }, ['dw'], 'gap');
  b.op({ op: 'Flatten', axis: 1 }, ['gap'], 'flat');
  b.op({ op: 'Gemm', transA: false, transB: false, alpha: 1, beta: 1 }, ['flat', b.constant('g/w', [16, 12]), b.constant('g/b', [12])], 'gemm');
  b.op({ op: 'MatMul' }, ['mean', b.constant('mm/w', [16, 12])], 'mm');
  b.op({ op: 'Add', activation: 'relu6' }, ['gemm', 'mm'], 'sum');
  b.op({ op: 'Reshape', shape: [1, 3, 4] }, ['sum'], 'seq');
  b.op({ op: 'FullyConnected', outFeatures: 5, activation: 'tanh', keepDims: true }, ['seq', b.constant('fc/w', [5, 4]), b.constant('fc/b', [5])], 'fc');
  b.op({ op: 'Softmax', axis: 2, beta: 1 }, ['fc'], 'out');
  return b.build(['out']);
}

/**
 * BlazeFace's pattern: heads that flatten spatial NHWC tensors ([1, 4, 4, 2] -> [1, 16, 2]),
 * whose elements NHWC and NCHW order differently, plus the other ops that need the same care.
 */
export function nhwcOrderNetwork(): Graph {
  const b = new GraphBuilder('nhwc-order', 'NHWC');
  b.input('x', [1, 4, 4, 8]);
  b.op(
    { op: 'Conv', kernel: [1, 1], strides: [1, 1], dilations: [1, 1], padding: valid, groups: 1, outChannels: 2, weightLayout: 'OHWI', activation: 'none' },
    ['x', b.constant('head/w', [2, 1, 1, 8]), b.constant('head/b', [2])],
    'head',
  );
  b.op({ op: 'Reshape', shape: [1, -1, 2] }, ['head'], 'boxes');
  b.op({ op: 'Reshape', shape: [1, 2, 8, 2] }, ['boxes'], 'grid');
  b.op({ op: 'Flatten', axis: 1 }, ['grid'], 'flat');
  b.op({ op: 'FullyConnected', outFeatures: 3, activation: 'relu', keepDims: false }, ['head', b.constant('fc/w', [3, 32]), ''], 'fc');
  b.op({ op: 'Concat', axis: 1, activation: 'none' }, ['boxes', 'boxes'], 'all');
  return b.build(['all', 'flat', 'fc']);
}
