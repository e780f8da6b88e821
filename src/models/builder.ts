import type { DType } from '../graph/dtype.ts';
import { GraphError, type Activation, type Graph, type Node, type OpSpec, type Padding, type Tensor } from '../graph/ir.ts';
import { inferOutputShapes } from '../graph/shape-inference.ts';

type PaddingName = 'same' | 'valid';

export interface ConvOptions {
  readonly out: number;
  readonly kernel: number | readonly [number, number];
  readonly stride?: number;
  readonly dilation?: number;
  readonly padding?: PaddingName;
  readonly activation?: Activation;
  /** Grouped convolution: input and output channels split into this many groups (weights OHWI with I = input channels / groups). */
  readonly groups?: number;
}

export interface DepthwiseOptions {
  readonly kernel: number;
  readonly stride?: number;
  readonly dilation?: number;
  readonly padding?: PaddingName;
  readonly activation?: Activation;
  readonly multiplier?: number;
}

const pair = (value: number | readonly [number, number]): [number, number] => (typeof value === 'number' ? [value, value] : [value[0], value[1]]);
const padding = (name: PaddingName | undefined): Padding => ({ kind: name ?? 'same' });

/**
 * The small DSL the zoo networks are written in: NHWC, TFLite's conventions (weights
 * OHWI, depthwise 1HWO, activations fused into the op that produces them), shapes
 * inferred as each op is added, weights declared as constants without values (seeded
 * values are made when a network is exported or run). Every method returns the name of
 * the tensor it produces; `scope` names it.
 */
export class NetworkBuilder {
  private readonly tensors = new Map<string, Tensor>();
  private readonly nodes: Node[] = [];
  private readonly inputs: string[] = [];

  constructor(
    private readonly name: string,
    private readonly dtype: DType = 'float32',
  ) {}

  shapeOf(tensor: string): readonly number[] {
    const found = this.tensors.get(tensor);
    if (!found) throw new GraphError(`${this.name}: no tensor ${tensor}.`);
    return found.shape;
  }

  /** A graph input, of the network's element type unless `dtype` says (token ids: int32). */
  input(name: string, shape: readonly number[], dtype: DType = this.dtype): string {
    this.addTensor({ name, shape, dtype, constant: false });
    this.inputs.push(name);
    return name;
  }

  conv(scope: string, x: string, options: ConvOptions): string {
    const [kh, kw] = pair(options.kernel);
    const groups = options.groups ?? 1;
    const inChannels = this.shapeOf(x)[3];
    if (!Number.isInteger(groups) || groups < 1 || inChannels % groups !== 0 || options.out % groups !== 0) {
      throw new GraphError(`${this.name}: ${scope}: ${inChannels} -> ${options.out} channels do not split into ${groups} groups.`);
    }
    const weights = this.constant(`${scope}/weights`, [options.out, kh, kw, inChannels / groups]);
    const bias = this.constant(`${scope}/bias`, [options.out]);
    return this.op(scope, [x, weights, bias], {
      op: 'Conv',
      kernel: [kh, kw],
      strides: pair(options.stride ?? 1),
      dilations: pair(options.dilation ?? 1),
      padding: padding(options.padding),
      groups,
      outChannels: options.out,
      weightLayout: 'OHWI',
      activation: options.activation ?? 'none',
    });
  }

  depthwise(scope: string, x: string, options: DepthwiseOptions): string {
    const channels = this.shapeOf(x)[3];
    const out = channels * (options.multiplier ?? 1);
    const weights = this.constant(`${scope}/depthwise_weights`, [1, options.kernel, options.kernel, out]);
    const bias = this.constant(`${scope}/bias`, [out]);
    return this.op(scope, [x, weights, bias], {
      op: 'Conv',
      kernel: [options.kernel, options.kernel],
      strides: pair(options.stride ?? 1),
      dilations: pair(options.dilation ?? 1),
      padding: padding(options.padding),
      groups: channels,
      outChannels: out,
      weightLayout: '1HWO',
      activation: options.activation ?? 'none',
    });
  }

  add(scope: string, a: string, b: string, activation: Activation = 'none'): string {
    return this.op(scope, [a, b], { op: 'Add', activation });
  }

  concat(scope: string, inputs: readonly string[], axis = 3): string {
    return this.op(scope, inputs, { op: 'Concat', axis, activation: 'none' });
  }

  pool(scope: string, kind: 'AveragePool' | 'MaxPool', x: string, kernel: number | readonly [number, number], stride: number, name: PaddingName): string {
    return this.op(scope, [x], { op: kind, kernel: pair(kernel), strides: pair(stride), padding: padding(name), activation: 'none' });
  }

  mean(scope: string, x: string, axes: readonly number[], keepDims: boolean): string {
    return this.op(scope, [x], { op: 'Mean', axes, keepDims });
  }

  /**
   * TFLite's FullyConnected: weights [out, in], bias [out], the input taken as rows of `in`
   * values. Options: `keepDims` (a transformer's linear layer: [..., in] -> [..., out]), the
   * weights of another layer (`weights`: a tied tensor, one constant read twice) and no bias.
   */
  dense(scope: string, x: string, out: number, activation: Activation = 'none', options: { readonly keepDims?: boolean; readonly weights?: string; readonly bias?: boolean } = {}): string {
    const shape = this.shapeOf(x);
    const depth = shape[shape.length - 1];
    const weights = options.weights ?? this.constant(`${scope}/weights`, [out, depth]);
    const inputs = [x, weights, ...(options.bias === false ? [] : [this.constant(`${scope}/bias`, [out])])];
    return this.op(scope, inputs, { op: 'FullyConnected', outFeatures: out, activation, keepDims: options.keepDims ?? false });
  }

  /** A learned constant of the network (a class token, an embedding table), seeded like any weight. */
  parameter(name: string, shape: readonly number[]): string {
    return this.constant(name, shape);
  }

  /**
   * LayerNormalization over the last axis, with a scale (`gamma`) and a bias (`beta`) per
   * feature; epsilon rounded to float32, as ONNX (and a float32 runtime) holds it.
   */
  layerNorm(scope: string, x: string, epsilon: number): string {
    const shape = this.shapeOf(x);
    const width = shape[shape.length - 1];
    const scale = this.constant(`${scope}/gamma`, [width]);
    const bias = this.constant(`${scope}/beta`, [width]);
    return this.op(scope, [x, scale, bias], { op: 'LayerNormalization', axis: -1, epsilon: Math.fround(epsilon) });
  }

  gelu(scope: string, x: string, approximate: 'none' | 'tanh'): string {
    return this.op(scope, [x], { op: 'Gelu', approximate });
  }

  /** Rows of `table` (along axis 0) picked by `indices`: an embedding lookup. */
  gather(scope: string, table: string, indices: string): string {
    return this.op(scope, [table, indices], { op: 'Gather', axis: 0 });
  }

  transpose(scope: string, x: string, perm: readonly number[]): string {
    return this.op(scope, [x], { op: 'Transpose', perm });
  }

  /** Elements [start, end) along one axis. */
  slice(scope: string, x: string, axis: number, start: number, end: number): string {
    return this.op(scope, [x], { op: 'Slice', axes: [axis], starts: [start], ends: [end] });
  }

  matMul(scope: string, a: string, b: string): string {
    return this.op(scope, [a, b], { op: 'MatMul' });
  }

  causalMask(scope: string, scores: string): string {
    return this.op(scope, [scores], { op: 'CausalMask' });
  }

  /** [batch, ...] -> [batch, everything else] (a Reshape, as TFLite's converter writes it). */
  flatten(scope: string, x: string): string {
    const [batch, ...rest] = this.shapeOf(x);
    return this.reshape(scope, x, [batch, rest.reduce((p, d) => p * d, 1)]);
  }

  /** Average over height and width to [batch, channels] (Keras' GlobalAveragePooling2D, a Mean in TFLite). */
  globalAveragePool(scope: string, x: string): string {
    return this.mean(scope, x, [1, 2], false);
  }

  pad(scope: string, x: string, pads: readonly (readonly [number, number])[]): string {
    return this.op(scope, [x], { op: 'Pad', pads });
  }

  reshape(scope: string, x: string, shape: readonly number[]): string {
    return this.op(scope, [x], { op: 'Reshape', shape });
  }

  resizeBilinear(scope: string, x: string, size: readonly [number, number], alignCorners: boolean): string {
    return this.op(scope, [x], { op: 'Resize', mode: 'bilinear', size, alignCorners, halfPixelCenters: false });
  }

  unary(scope: string, op: 'Relu' | 'Relu6' | 'Sigmoid' | 'Tanh', x: string): string {
    return this.op(scope, [x], { op });
  }

  /** Softmax over the last axis of beta * x (beta: an attention's 1 / sqrt(head size)). */
  softmax(scope: string, x: string, beta = 1): string {
    return this.op(scope, [x], { op: 'Softmax', axis: -1, beta });
  }

  build(outputs: readonly string[]): Graph {
    for (const output of outputs) this.shapeOf(output);
    return { name: this.name, layout: 'NHWC', tensors: this.tensors, nodes: this.nodes, inputs: this.inputs, outputs };
  }

  private constant(name: string, shape: readonly number[]): string {
    this.addTensor({ name, shape, dtype: this.dtype, constant: true });
    return name;
  }

  private addTensor(tensor: Tensor): void {
    if (this.tensors.has(tensor.name)) throw new GraphError(`${this.name}: tensor ${tensor.name} is defined twice.`);
    this.tensors.set(tensor.name, tensor);
  }

  private op(scope: string, inputs: readonly string[], spec: OpSpec): string {
    const node = { ...spec, name: scope, inputs, outputs: [scope] } as Node;
    const [shape] = inferOutputShapes(
      node,
      inputs.map((i) => this.shapeOf(i)),
      'NHWC',
    );
    this.addTensor({ name: scope, shape, dtype: this.dtype, constant: false });
    this.nodes.push(node);
    return scope;
  }
}

/** slim's make_divisible: round to a multiple of 8, never below 8 nor 10% below the value. */
export function makeDivisible(value: number, divisor = 8): number {
  const rounded = Math.max(divisor, Math.floor((value + divisor / 2) / divisor) * divisor);
  return rounded < 0.9 * value ? rounded + divisor : rounded;
}
