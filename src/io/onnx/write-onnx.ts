import { executionOrder } from '../../graph/execution-order.ts';
import { GraphError, elementCount, type Activation, type Graph, type Node, type Padding } from '../../graph/ir.ts';
import { resolveReshape, samePadding } from '../../graph/shape-inference.ts';
import { withSeededWeights } from '../../graph/seeded-weights.ts';
import { convertToNchw, type NhwcOrderNodes } from '../../graph/to-nchw.ts';
import {
  ATTRIBUTE_TYPE,
  BETA_SUFFIX,
  EXTERNAL,
  FLAT_SUFFIX,
  MASK_SUFFIX,
  NHWC_OUT_SUFFIX,
  NHWC_SUFFIX,
  NOT_EXPORTED_LOCATION,
  ONNX_TYPE,
  PRE_SUFFIX,
  SCALED_SUFFIX,
  TO_NCHW,
  TO_NHWC,
  TWO_D_SUFFIX,
  onnx,
  type AttributeProto,
  type NodeProto,
  type TensorProto,
  type ValueInfoProto,
} from './proto.ts';
import { numbersOf } from './tensor-data.ts';

export interface WriteOnnxOptions {
  /**
   * 'random': constants without data get seeded random float32 values (uniform in
   * [-0.1, 0.1], biases in [-0.01, 0.01]); constants with data keep their values (as
   * float32). 'none' (--no-weights): every constant of the graph is an initializer with
   * data_location EXTERNAL, external_data {location: "weights-not-exported"} and no values.
   */
  readonly weights: 'random' | 'none';
  /** Seed of the random weights (default 1). */
  readonly seed?: number;
  /** The default-domain opset, 11 to 21 (default 13, or the lowest that has every op of the graph: LayerNormalization 17, Gelu 20). */
  readonly opset?: number;
}

/**
 * Writes a Graph as an ONNX model that onnxruntime can run (an NHWC graph is converted with
 * `toNchw` first). Nodes are written in execution order, one IR node as one ONNX node,
 * except where ONNX needs more; what the writer adds (each named after the IR output `Y` it
 * belongs to; see proto.ts):
 *
 * - a fused activation: the op writes `Y:pre`, then Relu / Clip(0, 6) (relu6) /
 *   Clip(-1, 1) (relu-n1-to-1) / Sigmoid / Tanh reads `Y:pre` and writes `Y`;
 * - FullyConnected: Gemm(transB=1) of the input, first reshaped to [rows, depth] as `Y:flat`
 *   unless it already is; with keepDims and an output that is not 2-D, the Gemm writes
 *   `Y:2d` and a Reshape makes `Y` (or `Y:pre`);
 * - Reshape / Flatten / FullyConnected of an NHWC graph that flatten a 4-D tensor whose
 *   elements NHWC and NCHW order differently (BlazeFace): Transpose(perm [0, 2, 3, 1]) of the
 *   input to `Y:nhwc` first (a Flatten is then written as a Reshape); a Reshape to such a 4-D
 *   result writes `Y:nhwc-out` in NHWC order and a Transpose(perm [0, 3, 1, 2]) makes `Y`;
 * - constants the ONNX ops take as inputs: `Y:pads` (Pad), `Y:shape` and `Y:flat:shape`
 *   (Reshape), `Y:axes` (Squeeze from opset 13, ReduceMean from 18), `Y:sizes` (Resize;
 *   before opset 13 also empty `Y:roi` and `Y:scales`), `Y:min` and `Y:max` (Clip). These
 *   always carry their values, even with weights 'none'.
 *
 * The extra `Y:pre`, `Y:flat` and `Y:2d` tensors would be usage records of their own;
 * `readOnnx` folds exactly these markers back (it fuses an activation only when its input is
 * named `<its output>:pre`), so `graphToProblem(readOnnx(writeOnnx(g)))` has the records of
 * `graphToProblem(g)`: same ids, sizes and intervals. `Y:nhwc` and `Y:nhwc-out` are Transposes
 * that order the elements, and read back as Transposes; laid out NHWC (`graph/to-nhwc.ts`) the
 * graph read has `g`'s records again.
 *
 * Other choices:
 * - Every activation tensor is written as float32, whatever its IR type: ONNX's Conv, Gemm,
 *   pooling and Resize take no uint8/int8 data (the paper's reproduction counts 4 bytes per
 *   element anyway). Records of a quantized graph therefore read back 4 bytes per element.
 *   Constants with data are converted to float32 values (quantized weights as their stored
 *   integers; the IR keeps no quantization parameters).
 * - Dequantize is written as Cast(to=FLOAT), which `readOnnx` reads back as Dequantize.
 * - Convolution and pooling padding is always explicit pads (TF SAME as computed by
 *   `samePadding`, asymmetric where TF puts the odd pixel after).
 * - Resize uses its sizes input; bilinear maps to mode linear, and align_corners /
 *   half_pixel / asymmetric coordinates; nearest uses TF's rounding (align_corners with
 *   round_prefer_ceil, tf_half_pixel_for_nn or asymmetric with floor).
 * - Only the data inputs of an IR node are written (a TFLite Reshape's shape tensor or a
 *   Mean's axis tensor are not); the node's attributes say the same.
 * - Softmax with beta != 1 (an attention's scale) is Mul(x, `Y:beta`) to `Y:scaled`, then
 *   Softmax; CausalMask is Add(x, `Y:mask`), a constant [T, S] of 0 and -inf. The reader
 *   folds both back.
 * - A Gather's indices (token ids) keep their integer type; every other tensor is float32.
 *   LayerNormalization needs opset 17 and Gelu opset 20: without `opset` the writer takes the
 *   lowest that has every op of the graph; a lower one given is a GraphError. A Gather of a
 *   table slice (weight slicing's) has no ONNX form.
 */
export function writeOnnx(input: Graph, options: WriteOnnxOptions): Uint8Array {
  const needed = Math.max(13, ...input.nodes.map((node) => MIN_OPSET[node.op] ?? 0));
  const opset = options.opset ?? needed;
  if (!Number.isInteger(opset) || opset < 11 || opset > 21) throw new RangeError(`writeOnnx: opset ${opset} is not supported (11 to 21).`);
  const late = input.nodes.find((node) => (MIN_OPSET[node.op] ?? 0) > opset);
  if (late !== undefined) throw new GraphError(`node ${late.name} (${late.op}): cannot be written as ONNX opset ${opset}: ${late.op} needs opset ${MIN_OPSET[late.op]}.`);
  // Random weights come from the graph layer, in the graph's own layout, so that a backend
  // running the same graph with the same seed computes the same function.
  const seeded = options.weights === 'random' ? withSeededWeights(input, options.seed ?? 1) : input;
  const { graph, nhwcOrder } = convertToNchw(seeded, { keepNhwcOrder: true });
  return new OnnxWriter(graph, nhwcOrder, options, opset).write();
}

/** The first default-domain opset with the op (those not listed are in every opset the writer takes). */
const MIN_OPSET: Partial<Record<Node['op'], number>> = { LayerNormalization: 17, Gelu: 20 };

/** A protobuf message (the whole ONNX file) cannot exceed 2 GiB. */
const MAX_WEIGHT_BYTES = 2 ** 31 - 1;

const IR_VERSION_OF_OPSET = (opset: number): number => (opset <= 11 ? 6 : opset <= 14 ? 7 : opset <= 18 ? 8 : opset <= 20 ? 9 : 10);

const attrInt = (name: string, i: number): AttributeProto => ({ name, type: ATTRIBUTE_TYPE.INT, i });
const attrInts = (name: string, ints: readonly number[]): AttributeProto => ({ name, type: ATTRIBUTE_TYPE.INTS, ints: [...ints] });
const attrFloat = (name: string, f: number): AttributeProto => ({ name, type: ATTRIBUTE_TYPE.FLOAT, f });
const attrString = (name: string, s: string): AttributeProto => ({ name, type: ATTRIBUTE_TYPE.STRING, s: new TextEncoder().encode(s) });

class OnnxWriter {
  private readonly nodes: NodeProto[] = [];
  private readonly initializers: TensorProto[] = [];
  private readonly initialized = new Set<string>();
  /** Tensors the writer adds, with their shapes (value_info). */
  private readonly extra = new Map<string, readonly number[]>();
  private weightBytes = 0;

  constructor(
    private readonly graph: Graph,
    private readonly nhwcOrder: NhwcOrderNodes,
    private readonly options: WriteOnnxOptions,
    private readonly opset: number,
  ) {}

  private fail(node: Node, problem: string): never {
    throw new GraphError(`node ${node.name} (${node.op}): cannot be written as ONNX: ${problem}.`);
  }

  private shapeOf(name: string): readonly number[] {
    return this.graph.tensors.get(name)?.shape ?? this.extra.get(name) ?? [];
  }

  /** A name the writer adds; it must not clash with a tensor of the graph. */
  private fresh(name: string, shape: readonly number[] | undefined, node: Node): string {
    if (this.graph.tensors.has(name) || this.extra.has(name) || this.initialized.has(name)) this.fail(node, `the graph already has a tensor named ${name}`);
    if (shape) this.extra.set(name, shape);
    return name;
  }

  /** A name for a constant the writer adds: `wanted`, or `wanted:1`, `wanted:2`, ... if taken. */
  private constantName(wanted: string): string {
    const taken = (name: string): boolean => this.graph.tensors.has(name) || this.extra.has(name) || this.initialized.has(name);
    let name = wanted;
    for (let k = 1; taken(name); k++) name = `${wanted}:${k}`;
    this.initialized.add(name);
    return name;
  }

  private int64Constant(wanted: string, values: readonly number[]): string {
    const name = this.constantName(wanted);
    this.initializers.push({ name, dims: [values.length], dataType: ONNX_TYPE.INT64, int64Data: [...values] });
    return name;
  }

  private floatConstant(wanted: string, values: ArrayLike<number>, dims: readonly number[]): string {
    const name = this.constantName(wanted);
    this.initializers.push({ name, dims: [...dims], dataType: ONNX_TYPE.FLOAT, rawData: new Uint8Array(Float32Array.from(values).buffer) });
    return name;
  }

  /** A data input: a graph constant becomes an initializer the first time it is used. */
  private input(name: string): string {
    const tensor = this.graph.tensors.get(name);
    if (tensor === undefined || !tensor.constant || this.initialized.has(name)) return name;
    this.initialized.add(name);
    const dims = [...tensor.shape];
    if (this.options.weights === 'none') {
      this.initializers.push({
        name,
        dims,
        dataType: ONNX_TYPE.FLOAT,
        dataLocation: EXTERNAL,
        externalData: [{ key: 'location', value: NOT_EXPORTED_LOCATION }],
      });
      return name;
    }
    const count = elementCount(tensor.shape);
    this.weightBytes += count * 4;
    if (this.weightBytes > MAX_WEIGHT_BYTES) {
      throw new GraphError(`${this.graph.name}: its constants take more than 2 GiB as float32, more than an ONNX file can hold; write it without weights.`);
    }
    if (tensor.data === undefined) throw new GraphError(`constant ${name} has no values to write.`);
    const numbers = numbersOf(tensor.data, tensor.dtype, count);
    if (numbers === undefined) throw new GraphError(`constant ${name} has ${tensor.data.byteLength} bytes of data, which do not fit [${tensor.shape}] ${tensor.dtype}.`);
    const values = Float32Array.from(numbers);
    this.initializers.push({ name, dims, dataType: ONNX_TYPE.FLOAT, rawData: new Uint8Array(values.buffer, values.byteOffset, values.byteLength) });
    return name;
  }

  private emit(opType: string, node: Node, inputs: readonly string[], output: string, attribute: AttributeProto[] = [], suffix = ''): void {
    this.nodes.push({ name: node.name + suffix, opType, input: [...inputs], output: [output], attribute });
  }

  /** Where the op itself writes: `Y`, or `Y:pre` when an activation node follows. */
  private preActivation(node: Node, activation: Activation): string {
    const output = node.outputs[0];
    return activation === 'none' ? output : this.fresh(output + PRE_SUFFIX, this.shapeOf(output), node);
  }

  private activationNode(node: Node, activation: Activation, from: string): void {
    const output = node.outputs[0];
    switch (activation) {
      case 'none':
        return;
      case 'relu':
        return this.emit('Relu', node, [from], output, [], ':relu');
      case 'sigmoid':
        return this.emit('Sigmoid', node, [from], output, [], ':sigmoid');
      case 'tanh':
        return this.emit('Tanh', node, [from], output, [], ':tanh');
      case 'relu6':
      case 'relu-n1-to-1': {
        const [min, max] = activation === 'relu6' ? [0, 6] : [-1, 1];
        const bounds = [this.floatConstant(`${output}:min`, [min], []), this.floatConstant(`${output}:max`, [max], [])];
        return this.emit('Clip', node, [from, ...bounds], output, [], ':clip');
      }
    }
  }

  /** ONNX pads [top, left, bottom, right] of a window op on an NCHW input. */
  private pads(node: Node, padding: Padding, kernel: readonly number[], strides: readonly number[], dilations: readonly number[]): number[] {
    const x = this.shapeOf(node.inputs[0]);
    switch (padding.kind) {
      case 'valid':
        return [0, 0, 0, 0];
      case 'explicit':
        return [...padding.pads];
      case 'same': {
        const [top, bottom] = samePadding(x[2], kernel[0], strides[0], dilations[0]);
        const [left, right] = samePadding(x[3], kernel[1], strides[1], dilations[1]);
        return [top, left, bottom, right];
      }
    }
  }

  private writeNode(node: Node): void {
    const output = node.outputs[0];
    const data = node.inputs.filter((name, k) => name !== '' || k === 0);
    switch (node.op) {
      case 'Conv': {
        if (node.weightLayout !== 'OIHW') this.fail(node, `weights in ${node.weightLayout} layout (ONNX needs OIHW)`);
        const to = this.preActivation(node, node.activation);
        const inputs = [node.inputs[0], this.input(node.inputs[1])];
        if (node.inputs[2]) inputs.push(this.input(node.inputs[2]));
        this.emit('Conv', node, inputs, to, [
          attrInts('kernel_shape', node.kernel),
          attrInts('strides', node.strides),
          attrInts('dilations', node.dilations),
          attrInt('group', node.groups),
          attrInts('pads', this.pads(node, node.padding, node.kernel, node.strides, node.dilations)),
        ]);
        return this.activationNode(node, node.activation, to);
      }
      case 'AveragePool':
      case 'MaxPool': {
        const to = this.preActivation(node, node.activation);
        this.emit(node.op, node, [this.input(node.inputs[0])], to, [
          attrInts('kernel_shape', node.kernel),
          attrInts('strides', node.strides),
          attrInts('pads', this.pads(node, node.padding, node.kernel, node.strides, [1, 1])),
        ]);
        return this.activationNode(node, node.activation, to);
      }
      case 'GlobalAveragePool':
        return this.emit('GlobalAveragePool', node, [this.input(node.inputs[0])], output);
      case 'FullyConnected':
        return this.fullyConnected(node);
      case 'MatMul':
        return this.emit('MatMul', node, [this.input(node.inputs[0]), this.input(node.inputs[1])], output);
      case 'Gemm': {
        const inputs = [this.input(node.inputs[0]), this.input(node.inputs[1])];
        if (node.inputs[2]) inputs.push(this.input(node.inputs[2]));
        return this.emit('Gemm', node, inputs, output, [attrInt('transA', node.transA ? 1 : 0), attrInt('transB', node.transB ? 1 : 0), attrFloat('alpha', node.alpha), attrFloat('beta', node.beta)]);
      }
      case 'Add':
      case 'Mul':
      case 'Concat': {
        const to = this.preActivation(node, node.activation);
        const attributes = node.op === 'Concat' ? [attrInt('axis', node.axis)] : [];
        this.emit(
          node.op,
          node,
          data.map((name) => this.input(name)),
          to,
          attributes,
        );
        return this.activationNode(node, node.activation, to);
      }
      case 'Mean': {
        const x = this.input(node.inputs[0]);
        const keep = attrInt('keepdims', node.keepDims ? 1 : 0);
        if (this.opset >= 18) return this.emit('ReduceMean', node, [x, this.int64Constant(`${output}:axes`, node.axes)], output, [keep]);
        return this.emit('ReduceMean', node, [x], output, [attrInts('axes', node.axes), keep]);
      }
      case 'Pad': {
        const pads = [...node.pads.map((p) => p[0]), ...node.pads.map((p) => p[1])];
        return this.emit('Pad', node, [this.input(node.inputs[0]), this.int64Constant(`${output}:pads`, pads)], output, [attrString('mode', 'constant')]);
      }
      case 'Reshape':
      case 'Flatten': {
        const order = this.nhwcOrder.get(output);
        if (node.op === 'Flatten' && !order?.input) return this.emit('Flatten', node, [this.input(node.inputs[0])], output, [attrInt('axis', node.axis)]);
        const x = order?.input ? this.toNhwcOrder(node) : this.input(node.inputs[0]);
        const shape = node.op === 'Reshape' ? resolveReshape(this.shapeOf(node.inputs[0]), node.shape, node) : [...this.shapeOf(output)];
        if (!order?.output) return this.emit('Reshape', node, [x, this.int64Constant(`${output}:shape`, shape)], output);
        const nhwc = TO_NHWC.map((k) => shape[k]);
        const reshaped = this.fresh(output + NHWC_OUT_SUFFIX, nhwc, node);
        this.emit('Reshape', node, [x, this.int64Constant(`${output}:shape`, nhwc)], reshaped);
        return this.emit('Transpose', node, [reshaped], output, [attrInts('perm', TO_NCHW)], ':to-nchw');
      }
      case 'Squeeze': {
        const x = this.input(node.inputs[0]);
        if (node.axes.length === 0) return this.emit('Squeeze', node, [x], output);
        if (this.opset >= 13) return this.emit('Squeeze', node, [x, this.int64Constant(`${output}:axes`, node.axes)], output);
        return this.emit('Squeeze', node, [x], output, [attrInts('axes', node.axes)]);
      }
      case 'Softmax': {
        let x = this.input(node.inputs[0]);
        if (node.beta !== 1) {
          const scaled = this.fresh(output + SCALED_SUFFIX, this.shapeOf(output), node);
          this.emit('Mul', node, [x, this.floatConstant(`${output}${BETA_SUFFIX}`, [node.beta], [])], scaled, [], ':beta');
          x = scaled;
        }
        return this.emit('Softmax', node, [x], output, [attrInt('axis', node.axis)]);
      }
      case 'Gather':
        if (node.rows !== undefined) this.fail(node, 'a Gather of a slice of a table (weight slicing) has no ONNX op');
        return this.emit('Gather', node, [this.input(node.inputs[0]), this.input(node.inputs[1])], output, [attrInt('axis', node.axis)]);
      case 'LayerNormalization':
        return this.emit(
          'LayerNormalization',
          node,
          data.map((name) => this.input(name)),
          output,
          [attrInt('axis', node.axis), attrFloat('epsilon', node.epsilon)],
        );
      case 'Gelu':
        return this.emit('Gelu', node, [this.input(node.inputs[0])], output, [attrString('approximate', node.approximate)]);
      case 'Transpose':
        return this.emit('Transpose', node, [this.input(node.inputs[0])], output, [attrInts('perm', node.perm)]);
      case 'Slice': {
        const bounds = [this.int64Constant(`${output}:starts`, node.starts), this.int64Constant(`${output}:ends`, node.ends), this.int64Constant(`${output}:axes`, node.axes)];
        return this.emit('Slice', node, [this.input(node.inputs[0]), ...bounds], output);
      }
      case 'CausalMask': {
        const shape = this.shapeOf(output);
        const [queries, keys] = shape.slice(-2);
        const mask = new Float32Array(queries * keys);
        for (let i = 0; i < queries; i++) mask.fill(-Infinity, i * keys + i + keys - queries + 1, (i + 1) * keys);
        return this.emit('Add', node, [this.input(node.inputs[0]), this.floatConstant(`${output}${MASK_SUFFIX}`, mask, [queries, keys])], output);
      }
      case 'Resize':
        return this.resize(node);
      case 'Relu':
        return this.emit('Relu', node, [this.input(node.inputs[0])], output);
      case 'Sigmoid':
        return this.emit('Sigmoid', node, [this.input(node.inputs[0])], output);
      case 'Tanh':
        return this.emit('Tanh', node, [this.input(node.inputs[0])], output);
      case 'Relu6': {
        const bounds = [this.floatConstant(`${output}:min`, [0], []), this.floatConstant(`${output}:max`, [6], [])];
        return this.emit('Clip', node, [this.input(node.inputs[0]), ...bounds], output);
      }
      case 'Dequantize':
        return this.emit('Cast', node, [this.input(node.inputs[0])], output, [attrInt('to', ONNX_TYPE.FLOAT)]);
    }
  }

  private fullyConnected(node: Node & { op: 'FullyConnected' }): void {
    const output = node.outputs[0];
    const x = node.inputs[0];
    const xs = this.shapeOf(x);
    const ws = this.shapeOf(node.inputs[1]);
    if (ws.length !== 2) this.fail(node, `weights [${ws}] are not 2-D`);
    const depth = ws[1];
    const rows = elementCount(xs) / depth;
    if (!Number.isInteger(rows)) this.fail(node, `input [${xs}] does not split into rows of ${depth}`);
    let a = this.input(x);
    if (!(xs.length === 2 && xs[1] === depth)) {
      const source = this.nhwcOrder.get(output)?.input ? this.toNhwcOrder(node) : a;
      a = this.fresh(output + FLAT_SUFFIX, [rows, depth], node);
      this.emit('Reshape', node, [source, this.int64Constant(`${output}${FLAT_SUFFIX}:shape`, [rows, depth])], a, [], ':flatten');
    }
    const to = this.preActivation(node, node.activation);
    const outShape = this.shapeOf(output);
    const twoD = outShape.length === 2 && outShape[0] === rows ? to : this.fresh(output + TWO_D_SUFFIX, [rows, node.outFeatures], node);
    const inputs = [a, this.input(node.inputs[1])];
    if (node.inputs[2]) inputs.push(this.input(node.inputs[2]));
    this.emit('Gemm', node, inputs, twoD, [attrInt('transB', 1)]);
    if (twoD !== to) this.emit('Reshape', node, [twoD, this.int64Constant(`${output}:shape`, outShape)], to, [], ':reshape');
    this.activationNode(node, node.activation, to);
  }

  /** Transpose of the node's 4-D NCHW input to NHWC order, as `Y:nhwc`. */
  private toNhwcOrder(node: Node): string {
    const x = this.input(node.inputs[0]);
    const xs = this.shapeOf(x);
    const transposed = this.fresh(
      node.outputs[0] + NHWC_SUFFIX,
      TO_NHWC.map((k) => xs[k]),
      node,
    );
    this.emit('Transpose', node, [x], transposed, [attrInts('perm', TO_NHWC)], ':to-nhwc');
    return transposed;
  }

  private resize(node: Node & { op: 'Resize' }): void {
    const output = node.outputs[0];
    const sizes = this.int64Constant(`${output}:sizes`, this.shapeOf(output));
    const inputs =
      this.opset >= 13
        ? [this.input(node.inputs[0]), '', '', sizes]
        : [this.input(node.inputs[0]), this.floatConstant(`${output}:roi`, [], [0]), this.floatConstant(`${output}:scales`, [], [0]), sizes];
    const attributes: AttributeProto[] = [attrString('mode', node.mode === 'bilinear' ? 'linear' : 'nearest')];
    if (node.mode === 'bilinear') {
      attributes.push(attrString('coordinate_transformation_mode', node.alignCorners ? 'align_corners' : node.halfPixelCenters ? 'half_pixel' : 'asymmetric'));
    } else if (node.alignCorners) {
      attributes.push(attrString('coordinate_transformation_mode', 'align_corners'), attrString('nearest_mode', 'round_prefer_ceil'));
    } else {
      attributes.push(attrString('coordinate_transformation_mode', node.halfPixelCenters ? 'tf_half_pixel_for_nn' : 'asymmetric'), attrString('nearest_mode', 'floor'));
    }
    this.emit('Resize', node, inputs, output, attributes);
  }

  private valueInfo(name: string, shape: readonly number[]): ValueInfoProto {
    return { name, type: { tensorType: { elemType: this.elementType(name), shape: { dim: shape.map((d) => ({ dimValue: d })) } } } };
  }

  /** float32, but for a Gather's integer indices (ONNX takes no float indices). */
  private elementType(name: string): number {
    const dtype = this.graph.tensors.get(name)?.dtype;
    if ((dtype !== 'int32' && dtype !== 'int64') || !this.graph.nodes.some((node) => node.op === 'Gather' && node.inputs[1] === name)) return ONNX_TYPE.FLOAT;
    return dtype === 'int32' ? ONNX_TYPE.INT32 : ONNX_TYPE.INT64;
  }

  write(): Uint8Array {
    const graph = this.graph;
    for (const node of executionOrder(graph)) {
      const from = this.nodes.length;
      this.writeNode(node);
      // An input the ONNX form has no place for (a TFLite shape tensor, quantization
      // parameters) may be left out only when it is a constant: a computed one is a record.
      const written = new Set(this.nodes.slice(from).flatMap((n) => n.input ?? []));
      for (const name of node.inputs) {
        if (name !== '' && !written.has(name) && !graph.tensors.get(name)?.constant) this.fail(node, `its ONNX form has no place for its computed input ${name}`);
      }
    }
    const io = new Set([...graph.inputs, ...graph.outputs]);
    const intermediate = new Set<string>();
    for (const node of this.nodes) {
      for (const name of [...(node.input ?? []), ...(node.output ?? [])]) {
        if (name && !io.has(name) && !this.initialized.has(name)) intermediate.add(name);
      }
    }
    const model = {
      irVersion: IR_VERSION_OF_OPSET(this.opset),
      producerName: 'memplan-bench',
      opsetImport: [{ domain: '', version: this.opset }],
      graph: {
        name: graph.name,
        node: this.nodes,
        initializer: this.initializers,
        input: graph.inputs.map((name) => this.valueInfo(name, this.shapeOf(name))),
        output: graph.outputs.map((name) => this.valueInfo(name, this.shapeOf(name))),
        valueInfo: [...intermediate].map((name) => this.valueInfo(name, this.shapeOf(name))),
      },
    };
    return onnx.ModelProto.encode(model).finish();
  }
}
