import { DTYPE_BYTES, type DType } from '../../graph/dtype.ts';
import { GraphError, elementCount, type Activation, type Graph, type Node, type Tensor } from '../../graph/ir.ts';
import { inferOutputShapes } from '../../graph/shape-inference.ts';
import { InputError } from '../input-error.ts';
import {
  BETA_SUFFIX,
  EXTERNAL,
  FLAT_SUFFIX,
  ONNX_TYPE,
  ONNX_TYPE_NAME,
  PRE_SUFFIX,
  SCALED_SUFFIX,
  TWO_D_SUFFIX,
  onnx,
  type GraphProto,
  type ModelProto,
  type NodeProto,
  type TensorProto,
  type ValueInfoProto,
} from './proto.ts';
import { numbersOf, typedArrayOf } from './tensor-data.ts';
import { NodeView, type Int64 } from './node-view.ts';
import { entryInputs, entryOutputs, mapNode, type Entry } from './op-mapping.ts';

export interface ReadOnnxOptions {
  /** Shapes for graph inputs with dynamic dimensions (the command line's --input-shape). */
  readonly inputShapes?: ReadonlyMap<string, readonly number[]>;
}

/**
 * Reads an ONNX model (NCHW) into the IR.
 *
 * - Initializers (and Constant nodes) are constants; their values stay addressable as typed
 *   arrays (see tensor-data.ts). An initializer with data_location EXTERNAL is a constant
 *   without data (`writeOnnx`'s weights 'none' writes them so). A graph input that is also an
 *   initializer is a constant, not an input.
 * - Shapes: graph inputs from their declaration (a dynamic dimension needs --input-shape);
 *   every node output by shape inference, checked against value_info / graph outputs where
 *   the file declares them.
 * - Attributes that later opsets turned into inputs are read from either place (Pad pads,
 *   Squeeze/Unsqueeze axes, ReduceMean axes, Reshape shape, Resize scales/sizes, Clip
 *   min/max); those inputs must be constants. Structural inputs (pads, shapes, axes, sizes,
 *   scales, bounds) do not stay on the IR node: only the data inputs do.
 * - Identity and Dropout are dropped: their output is an alias of their input.
 * - Constants that no IR node reads afterwards (they became attributes, or nothing used
 *   them) are not in the Graph.
 * - Extra outputs (Dropout's mask, MaxPool's indices) are allowed while nothing reads them.
 * - Beyond the ops the IR names: Unsqueeze becomes a Reshape, GlobalMaxPool a MaxPool over
 *   the whole plane, Upsample a Resize, Cast to float32 of float16/float32 a Dequantize,
 *   ConstantOfShape of a constant shape a constant; pooling's ceil_mode becomes extra padding
 *   after (the same output size).
 *
 * Fusion: a standalone activation (Relu, Clip(0, 6), Clip(0, inf), Clip(-1, 1), Sigmoid,
 * Tanh) is fused into the op producing its input ONLY when that input is named
 * `<activation output>:pre` (the marker `writeOnnx` uses for a fused activation), nothing
 * else reads it, and the producer has no activation. Any other standalone activation stays a
 * node of its own, so the records of a foreign model are exactly its tensors. Likewise the
 * writer's `Y:flat` / `Y:2d` reshapes around a Gemm are folded back into one FullyConnected.
 * The writer's Mul by `Y:beta` before a Softmax `Y` comes back as the Softmax's beta, and its
 * Add of the causal mask `Y:mask` as a CausalMask. Every Transpose is a Transpose node, the
 * writer's around a Reshape of NHWC-ordered data too (`Y:nhwc` before, `Y:nhwc-out` after):
 * they decide the order of the elements the Reshape reads, so the graph read computes what
 * the file computes. So `readOnnx(writeOnnx(g))` has the records of `g`, plus those
 * Transposes' tensors where `g` is an NHWC graph that reshapes such data (BlazeFace's heads,
 * VGG-19's flatten, ViT's patches); laid out NHWC (`graph/to-nhwc.ts`, as the CPU executors
 * run it) each meets the Transpose the layout needs and both are dropped: `g`'s records.
 *
 * Errors: a file that does not decode is an InputError; a model the IR cannot express (an
 * unsupported op, a shape mismatch) is a GraphError naming the file and the node.
 */
export function readOnnx(bytes: Uint8Array, file: string, options: ReadOnnxOptions = {}): Graph {
  let model: ModelProto;
  try {
    model = onnx.ModelProto.decode(bytes);
  } catch {
    throw new InputError(file, undefined, 'is not a readable ONNX model: its protobuf data is corrupt or truncated.');
  }
  return new OnnxReader(model, file, options).read();
}

const DTYPE_OF_ONNX: Partial<Record<number, DType>> = {
  [ONNX_TYPE.FLOAT]: 'float32',
  [ONNX_TYPE.UINT8]: 'uint8',
  [ONNX_TYPE.INT8]: 'int8',
  [ONNX_TYPE.INT16]: 'int16',
  [ONNX_TYPE.INT32]: 'int32',
  [ONNX_TYPE.INT64]: 'int64',
  [ONNX_TYPE.BOOL]: 'bool',
  [ONNX_TYPE.FLOAT16]: 'float16',
  [ONNX_TYPE.DOUBLE]: 'float64',
};

/** Ops whose IR form carries a fused activation. */
const TAKES_ACTIVATION = new Set<Node['op']>(['Conv', 'FullyConnected', 'Add', 'Mul', 'Concat', 'AveragePool', 'MaxPool']);

/** A declared shape: undefined dims are dynamic; `dims` undefined is an unknown rank. */
interface Declared {
  readonly dims: readonly (number | undefined)[] | undefined;
  readonly elemType: number;
}

const MAX_BYTES = Number.MAX_SAFE_INTEGER;
const CONSTANT_OF_SHAPE_LIMIT = 1 << 16;

class OnnxReader {
  private readonly tensors = new Map<string, Tensor>();
  private readonly declared = new Map<string, Declared>();
  private readonly alias = new Map<string, string>();
  private readonly extraOutputs = new Map<string, string>();
  private readonly entries: (Entry | undefined)[] = [];
  private opset = 0;

  constructor(
    private readonly model: ModelProto,
    private readonly file: string,
    private readonly options: ReadOnnxOptions,
  ) {}

  private inputError(problem: string): never {
    throw new InputError(this.file, undefined, problem);
  }

  private graphError(problem: string): never {
    throw new GraphError(`${this.file}: ${problem}`);
  }

  private int(value: Int64, what: string): number {
    const n = typeof value === 'number' ? value : value == null ? 0 : value.toNumber();
    if (!Number.isSafeInteger(n)) this.inputError(`${what} ${value === null || value === undefined ? '' : value.toString()} is not a whole number below 2^53.`);
    return n;
  }

  read(): Graph {
    const graph = this.model.graph;
    if (!graph) this.inputError('contains no graph; it is not an ONNX model.');
    for (const entry of this.model.opsetImport ?? []) {
      if (entry.domain === '' || entry.domain === 'ai.onnx' || entry.domain == null) this.opset = this.int(entry.version, 'the opset version');
    }
    if (this.opset <= 0) this.inputError('declares no opset for the default ONNX domain (opset_import).');

    for (const info of [...(graph.valueInfo ?? []), ...(graph.output ?? [])]) {
      if (info.name) this.declared.set(info.name, this.declaredOf(info));
    }
    for (const initializer of graph.initializer ?? []) this.addConstant(initializer, initializer.name ?? '');
    const inputs = this.readInputs(graph);

    (graph.node ?? []).forEach((proto, index) => this.readNode(proto, index));

    const outputs = (graph.output ?? []).map((info) => {
      const name = this.resolve(info.name ?? '');
      const extra = this.extraOutputs.get(name);
      if (extra !== undefined) this.graphError(`graph output ${name} is an extra output of node ${extra}, which is not supported (only first outputs are).`);
      if (!this.tensors.has(name)) this.graphError(`graph output ${info.name} is not produced by any node.`);
      return name;
    });
    const nodes = this.foldExporterMarkers(outputs);
    // Constants no IR node reads (pads, shapes, axes, sizes now held as attributes; unused
    // initializers) are left out.
    const used = new Set([...nodes.flatMap((node) => node.inputs), ...outputs]);
    for (const [name, tensor] of this.tensors) if (tensor.constant && !used.has(name)) this.tensors.delete(name);
    return { name: graph.name || this.file.replace(/^.*[\\/]/, '').replace(/\.onnx$/i, ''), layout: 'NCHW', tensors: this.tensors, nodes, inputs, outputs };
  }

  // ----- declarations, constants, inputs -----

  private dtypeOf(elemType: number, what: string): DType {
    const dtype = DTYPE_OF_ONNX[elemType];
    if (dtype === undefined) this.graphError(`${what} has element type ${ONNX_TYPE_NAME[elemType] ?? elemType}, which is not supported.`);
    return dtype;
  }

  private declaredOf(info: ValueInfoProto): Declared {
    const tensorType = info.type?.tensorType;
    const elemType = tensorType?.elemType ?? 0;
    if (!tensorType?.shape) return { dims: undefined, elemType };
    const dims = (tensorType.shape.dim ?? []).map((dim) => {
      if (dim.dimValue === null || dim.dimValue === undefined || (dim as { value?: string }).value !== 'dimValue') return undefined;
      const value = this.int(dim.dimValue, `a dimension of ${info.name}`);
      return value >= 0 ? value : undefined;
    });
    return { dims, elemType };
  }

  private checkSize(name: string, shape: readonly number[], dtype: DType): void {
    for (const d of shape) if (!Number.isSafeInteger(d) || d < 0) this.graphError(`tensor ${name} has the dimension ${d} in [${shape}].`);
    if (elementCount(shape) * DTYPE_BYTES[dtype] > MAX_BYTES) this.graphError(`tensor ${name} [${shape}] has more than 2^53 bytes.`);
  }

  private addConstant(proto: TensorProto, name: string): void {
    if (name === '') this.inputError('has an initializer without a name.');
    const dtype = this.dtypeOf(proto.dataType ?? 0, `constant ${name}`);
    const shape = (proto.dims ?? []).map((d) => this.int(d, `a dimension of constant ${name}`));
    this.checkSize(name, shape, dtype);
    const count = elementCount(shape);
    this.tensors.set(name, { name, shape, dtype, constant: true, data: proto.dataLocation === EXTERNAL ? undefined : this.constantData(proto, name, dtype, count) });
  }

  constantData(proto: TensorProto, name: string, dtype: DType, count: number): ArrayBufferView {
    const width = DTYPE_BYTES[dtype];
    const raw = proto.rawData;
    if (raw && raw.length > 0) {
      if (raw.length !== count * width) this.inputError(`constant ${name} has ${raw.length} bytes of raw data, but ${count} ${dtype} elements need ${count * width}.`);
      return typedArrayOf(dtype, new Uint8Array(raw).buffer);
    }
    let values: readonly Int64[];
    switch (dtype) {
      case 'float32':
        values = proto.floatData ?? [];
        break;
      case 'float64':
        values = proto.doubleData ?? [];
        break;
      case 'int64':
        values = proto.int64Data ?? [];
        break;
      default:
        values = proto.int32Data ?? [];
    }
    if (values.length !== count) {
      this.inputError(`constant ${name} has ${values.length} values, but its shape [${proto.dims ?? []}] needs ${count}.`);
    }
    const out = typedArrayOf(dtype, new ArrayBuffer(count * width));
    if (out instanceof BigInt64Array) {
      values.forEach((v, k) => (out[k] = typeof v === 'number' ? (Number.isFinite(v) ? BigInt(Math.trunc(v)) : 0n) : BigInt(String(v ?? 0))));
    } else {
      const target = out as unknown as { [k: number]: number };
      values.forEach((v, k) => (target[k] = typeof v === 'number' ? v : Number(String(v ?? 0))));
    }
    return out;
  }

  private readInputs(graph: GraphProto): string[] {
    const overrides = new Map(this.options.inputShapes ?? []);
    const names = (graph.input ?? []).map((info) => info.name ?? '').filter((name) => !this.tensors.has(name));
    for (const name of overrides.keys()) {
      if (!names.includes(name)) this.inputError(`--input-shape names ${name}, which is not an input of the model (inputs: ${names.join(', ') || 'none'}).`);
    }
    const inputs: string[] = [];
    for (const info of graph.input ?? []) {
      const name = info.name ?? '';
      if (this.tensors.has(name)) continue; // an initializer: a constant
      if (name === '') this.inputError('has a graph input without a name.');
      const declared = this.declaredOf(info);
      const dtype = this.dtypeOf(declared.elemType, `graph input ${name}`);
      const override = overrides.get(name);
      let shape: number[];
      if (override !== undefined) {
        if (override.some((d) => !Number.isSafeInteger(d) || d <= 0)) this.inputError(`--input-shape ${name}=${override.join('x')} must give whole numbers above 0.`);
        if (declared.dims !== undefined && declared.dims.length !== override.length) {
          this.inputError(`--input-shape ${name}=${override.join('x')} has ${override.length} dimensions, but the model's input ${name} has ${declared.dims.length}.`);
        }
        shape = [...override];
      } else {
        const dims = declared.dims;
        if (dims === undefined || dims.some((d) => d === undefined)) {
          const example = dims === undefined ? '1x3x224x224' : dims.map((d, k) => d ?? (k === 0 ? 1 : 224)).join('x');
          const what = dims === undefined ? 'has no declared shape' : `has a dynamic dimension ([${dims.map((d, k) => d ?? (this.dimParam(info, k) || '?')).join(', ')}])`;
          this.inputError(`graph input ${name} ${what}; give it a fixed shape with --input-shape ${name}=${example}.`);
        }
        shape = dims as number[];
      }
      this.checkSize(name, shape, dtype);
      this.tensors.set(name, { name, shape, dtype, constant: false });
      inputs.push(name);
    }
    return inputs;
  }

  private dimParam(info: ValueInfoProto, k: number): string {
    return info.type?.tensorType?.shape?.dim?.[k]?.dimParam ?? '';
  }

  resolve(name: string): string {
    return this.alias.get(name) ?? name;
  }

  // ----- nodes -----

  private readNode(proto: NodeProto, index: number): void {
    const opType = proto.opType ?? '';
    const node = new NodeView(proto, proto.name || `${opType || 'node'}_${index}`, opType, this);
    const domain = proto.domain ?? '';
    if (domain !== '' && domain !== 'ai.onnx') node.fail(`op ${domain}.${opType} is not supported`);
    if (node.outputs.length === 0 || node.outputs[0] === '') node.fail('it has no output');
    for (const output of node.outputs) {
      if (output !== '' && (this.tensors.has(output) || this.alias.has(output))) node.fail(`its output ${output} is already defined`);
    }
    for (const input of node.inputs) {
      const extra = this.extraOutputs.get(input);
      if (extra !== undefined) node.fail(`it reads ${input}, an extra output of node ${extra}, which is not supported (only first outputs are)`);
      if (input !== '' && !this.tensors.has(input)) {
        node.fail(`its input ${input} is neither a graph input, an initializer nor the output of an earlier node (nodes must be stored in execution order)`);
      }
    }
    // Extra outputs (Dropout's mask, MaxPool's indices, ...) are fine while nothing reads them.
    for (const extra of node.outputs.slice(1)) if (extra !== '') this.extraOutputs.set(extra, `${node.name} (${opType})`);

    if (opType === 'Constant') {
      this.addConstant(node.constantValue(), node.outputs[0]);
      return;
    }
    if (opType === 'ConstantOfShape') {
      this.constantOfShape(node);
      return;
    }
    if (opType === 'Identity' || opType === 'Dropout') {
      if (!node.inputs[0]) node.fail('its input is missing');
      this.alias.set(node.outputs[0], node.inputs[0] ?? '');
      return;
    }
    const entry = mapNode(node);
    const inputShapes = entryInputs(entry).map((name) => (name === '' ? [] : this.shape(name)));
    let shapes: number[][];
    if (entry.kind === 'node') {
      try {
        shapes = inferOutputShapes(entry.node, inputShapes, 'NCHW');
      } catch (error) {
        if (error instanceof GraphError) this.graphError(error.message);
        throw error;
      }
    } else {
      shapes = [[...inputShapes[0]]];
    }
    const output = node.outputs[0];
    const shape = shapes[0];
    const declared = this.declared.get(output);
    const inputDtype = node.inputs[0] ? this.tensors.get(node.inputs[0])?.dtype : undefined;
    const dtype = declared?.elemType ? this.dtypeOf(declared.elemType, `tensor ${output}`) : entry.kind === 'node' && entry.node.op === 'Dequantize' ? 'float32' : (inputDtype ?? 'float32');
    this.checkSize(output, shape, dtype);
    const dims = declared?.dims;
    if (dims !== undefined && (dims.length !== shape.length || dims.some((d, k) => d !== undefined && d !== shape[k]))) {
      node.fail(`the file declares its output ${output} as [${dims.map((d) => d ?? '?')}], but it computes [${shape}]`);
    }
    this.tensors.set(output, { name: output, shape, dtype, constant: false });
    this.entries.push(entry);
  }

  shape(name: string): readonly number[] {
    return this.tensors.get(name)?.shape ?? [];
  }

  tensor(name: string): Tensor | undefined {
    return this.tensors.get(name);
  }

  get opsetVersion(): number {
    return this.opset;
  }

  get fileName(): string {
    return this.file;
  }

  /**
   * ConstantOfShape of a constant shape is a constant. Its values are materialized up to
   * CONSTANT_OF_SHAPE_LIMIT elements (enough for anything used as a shape or pads);
   * larger ones (e.g. weights of the test suite's "light" models) are constants without data.
   */
  private constantOfShape(node: NodeView): void {
    const shape = node.constInts(0, 'shape');
    if (shape === undefined) node.fail('it has no shape input');
    const value = (node.attributeTensor('value') ?? { dims: [1], dataType: ONNX_TYPE.FLOAT, floatData: [0] }) as TensorProto;
    const output = node.outputs[0];
    const dtype = this.dtypeOf(value.dataType ?? 0, `the value of node ${node.name}`);
    this.checkSize(output, shape, dtype);
    const count = elementCount(shape);
    let data: ArrayBufferView | undefined;
    if (count <= CONSTANT_OF_SHAPE_LIMIT) {
      const one = this.constantData(value, output, dtype, 1);
      const bytes = new Uint8Array(one.buffer, one.byteOffset, one.byteLength);
      const out = new Uint8Array(count * bytes.length);
      for (let k = 0; k < count; k++) out.set(bytes, k * bytes.length);
      data = typedArrayOf(dtype, out.buffer);
    }
    this.tensors.set(output, { name: output, shape, dtype, constant: true, data });
  }

  // ----- folding the writer's markers back -----

  private foldExporterMarkers(outputs: readonly string[]): Node[] {
    const entries = this.entries;
    const graphOutputs = new Set(outputs);
    const readers = new Map<string, number>();
    const producer = new Map<string, number>();
    entries.forEach((entry, index) => {
      for (const name of entryInputs(entry!)) readers.set(name, (readers.get(name) ?? 0) + 1);
      for (const name of entryOutputs(entry!)) producer.set(name, index);
    });
    /** The node writing `name` when it is the only reader's private intermediate. */
    const privateProducer = (name: string): { index: number; node: Node } | undefined => {
      if (readers.get(name) !== 1 || graphOutputs.has(name)) return undefined;
      const index = producer.get(name);
      const entry = index === undefined ? undefined : entries[index];
      return entry?.kind === 'node' ? { index: index as number, node: entry.node } : undefined;
    };
    const dropped = new Set<string>();
    const fcFromGemm = (node: Node, keepDims: boolean, input: string, output: string, activation: Activation): Node | undefined => {
      if (node.op !== 'Gemm' && node.op !== 'FullyConnected') return undefined;
      if (node.op === 'Gemm' && (node.transA || !node.transB || node.alpha !== 1 || node.beta !== 1)) return undefined;
      const weights = this.shape(node.inputs[1]);
      if (weights.length !== 2) return undefined;
      const fc: Node = { op: 'FullyConnected', outFeatures: weights[0], keepDims, activation, name: node.name, inputs: [input, ...node.inputs.slice(1)], outputs: [output] };
      try {
        const inferred = inferOutputShapes(
          fc,
          fc.inputs.map((n) => (n === '' ? [] : this.shape(n))),
          'NCHW',
        );
        return inferred[0].join() === this.shape(output).join() ? fc : undefined;
      } catch (error) {
        if (error instanceof GraphError) return undefined;
        throw error;
      }
    };

    entries.forEach((entry, index) => {
      if (entry?.kind !== 'node') return;
      let node = entry.node;
      // Y:flat -> Gemm: a FullyConnected of the unflattened input.
      const input = node.inputs[0];
      if (node.op === 'Gemm' && input.endsWith(FLAT_SUFFIX)) {
        const base = input.slice(0, -FLAT_SUFFIX.length);
        const flatten = privateProducer(input);
        const output = node.outputs[0];
        if (flatten && (flatten.node.op === 'Reshape' || flatten.node.op === 'Flatten') && [base, base + PRE_SUFFIX, base + TWO_D_SUFFIX].includes(output)) {
          const fc = fcFromGemm(node, false, flatten.node.inputs[0], output, 'none');
          if (fc) {
            node = fc;
            entries[flatten.index] = undefined;
            dropped.add(input);
          }
        }
      }
      // Gemm -> Y:2d -> Reshape: a FullyConnected that keeps the input's dimensions.
      const output = node.outputs[0];
      if (output.endsWith(TWO_D_SUFFIX) && readers.get(output) === 1 && !graphOutputs.has(output)) {
        const base = output.slice(0, -TWO_D_SUFFIX.length);
        const reshape = entries.findIndex((e, k) => k > index && e?.kind === 'node' && e.node.op === 'Reshape' && e.node.inputs[0] === output);
        const next = reshape >= 0 ? entries[reshape] : undefined;
        if (next?.kind === 'node' && [base, base + PRE_SUFFIX].includes(next.node.outputs[0])) {
          const fc = fcFromGemm(node, true, node.inputs[0], next.node.outputs[0], 'none');
          if (fc) {
            node = fc;
            entries[reshape] = undefined;
            dropped.add(output);
          }
        }
      }
      // Mul(x, Y:beta) -> Y:scaled -> Softmax: a Softmax with that beta.
      if (node.op === 'Softmax' && node.beta === 1 && node.inputs[0] === node.outputs[0] + SCALED_SUFFIX) {
        const scale = privateProducer(node.inputs[0]);
        const beta = scale?.node.op === 'Mul' ? this.tensors.get(scale.node.inputs[1]) : undefined;
        const value = beta?.data === undefined ? undefined : numbersOf(beta.data, beta.dtype, 1);
        if (scale && beta?.constant && beta.name === node.outputs[0] + BETA_SUFFIX && elementCount(beta.shape) === 1 && value?.length === 1) {
          node = { ...node, beta: value[0], inputs: [scale.node.inputs[0]] };
          entries[scale.index] = undefined;
          dropped.add(scale.node.outputs[0]);
        }
      }
      entry.node = node;
    });
    // Re-index producers after the folds above.
    producer.clear();
    entries.forEach((entry, index) => {
      if (entry?.kind === 'node') for (const name of entry.node.outputs) producer.set(name, index);
    });

    const nodes: Node[] = [];
    const pending = new Map<number, Node>();
    entries.forEach((entry, index) => {
      if (entry?.kind !== 'activation') return;
      if (entry.input !== entry.output + PRE_SUFFIX) return;
      const found = privateProducer(entry.input);
      if (!found) return;
      const current = pending.get(found.index) ?? found.node;
      let fused: Node | undefined;
      if (TAKES_ACTIVATION.has(current.op) && 'activation' in current && current.activation === 'none') {
        fused = { ...current, activation: entry.activation, outputs: [entry.output] } as Node;
      } else if (current.op === 'Gemm' && this.shape(current.inputs[0]).length === 2) {
        fused = fcFromGemm(current, false, current.inputs[0], entry.output, entry.activation);
      }
      if (fused === undefined) return;
      pending.set(found.index, fused);
      entries[index] = undefined;
      dropped.add(entry.input);
    });
    entries.forEach((entry, index) => {
      if (entry === undefined) return;
      if (entry.kind === 'node') {
        nodes.push(pending.get(index) ?? entry.node);
        return;
      }
      const op = ({ relu: 'Relu', relu6: 'Relu6', sigmoid: 'Sigmoid', tanh: 'Tanh' } as const)[entry.activation as 'relu'];
      if (op === undefined) this.graphError(`node ${entry.name} (Clip): Clip(-1, 1) is not supported as an op of its own; only Clip(0, 6) (ReLU6) and Clip(0, inf) (ReLU) are.`);
      nodes.push({ op, name: entry.name, inputs: [entry.input], outputs: [entry.output] });
    });
    for (const name of dropped) this.tensors.delete(name);
    return nodes;
  }
}
