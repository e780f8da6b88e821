import { elementCount, GraphError, type Padding, type Tensor } from '../../graph/ir.ts';
import { resolveReshape, samePadding } from '../../graph/shape-inference.ts';
import { ATTRIBUTE_TYPE, ONNX_TYPE, type AttributeProto, type NodeProto, type TensorProto } from './proto.ts';
import { numbersOf } from './tensor-data.ts';

/** A protobufjs int64 (Long) or number. */
export type Int64 = number | { toNumber(): number; toString(): string } | null | undefined;

/** What a node view asks of the reader it belongs to (read-onnx.ts). */
export interface NodeSource {
  resolve(name: string): string;
  readonly opsetVersion: number;
  readonly fileName: string;
  shape(name: string): readonly number[];
  tensor(name: string): Tensor | undefined;
}

/** One ONNX node with typed access to its attributes and constant inputs. */
export class NodeView {
  readonly inputs: string[];
  readonly outputs: string[];

  constructor(
    private readonly proto: NodeProto,
    readonly name: string,
    readonly opType: string,
    private readonly reader: NodeSource,
  ) {
    this.inputs = (proto.input ?? []).map((n) => reader.resolve(n ?? ''));
    this.outputs = (proto.output ?? []).map((n) => n ?? '');
  }

  get opset(): number {
    return this.reader.opsetVersion;
  }

  fail(problem: string): never {
    throw new GraphError(`${this.reader.fileName}: node ${this.name} (${this.opType}): ${problem}.`);
  }

  inputShape(k: number): readonly number[] {
    const name = this.inputs[k];
    return name ? this.reader.shape(name) : [];
  }

  /** A tensor the reader knows (its shape, type and, for a constant, its values). */
  tensorOf(name: string): Tensor | undefined {
    return this.reader.tensor(name);
  }

  private attribute(name: string, type: number): AttributeProto | undefined {
    const attribute = (this.proto.attribute ?? []).find((a) => a.name === name);
    if (attribute === undefined) return undefined;
    if (attribute.type !== type && attribute.type) this.fail(`attribute ${name} has the wrong type`);
    return attribute;
  }

  private whole(value: Int64, what: string): number {
    const n = typeof value === 'number' ? value : value == null ? 0 : value.toNumber();
    if (!Number.isSafeInteger(n)) this.fail(`${what} is not a whole number below 2^53`);
    return n;
  }

  int(name: string, fallback: number | undefined): number {
    const attribute = this.attribute(name, ATTRIBUTE_TYPE.INT);
    if (attribute === undefined) {
      if (fallback === undefined) this.fail(`attribute ${name} is missing`);
      return fallback;
    }
    return this.whole(attribute.i, `attribute ${name}`);
  }

  ints(name: string): number[] | undefined {
    const attribute = this.attribute(name, ATTRIBUTE_TYPE.INTS);
    return attribute === undefined ? undefined : (attribute.ints ?? []).map((v) => this.whole(v, `attribute ${name}`));
  }

  float(name: string, fallback: number): number {
    const attribute = this.attribute(name, ATTRIBUTE_TYPE.FLOAT);
    return attribute === undefined ? fallback : (attribute.f ?? 0);
  }

  floats(name: string): number[] | undefined {
    const attribute = this.attribute(name, ATTRIBUTE_TYPE.FLOATS);
    return attribute === undefined ? undefined : [...(attribute.floats ?? [])];
  }

  string(name: string, fallback: string): string {
    const attribute = this.attribute(name, ATTRIBUTE_TYPE.STRING);
    return attribute === undefined ? fallback : new TextDecoder().decode(attribute.s ?? new Uint8Array());
  }

  /** A two-element attribute (kernel, strides, dilations), each at least `min`. */
  pair(name: string, fallback: readonly [number, number] | undefined, min: number): [number, number] {
    const values = this.ints(name) ?? fallback;
    if (values === undefined) this.fail(`attribute ${name} is missing`);
    if (values.length !== 2 || values.some((v) => v < min)) this.fail(`attribute ${name} [${values}] must be two numbers of at least ${min}`);
    return [values[0], values[1]];
  }

  /** The values of constant input k, or undefined when the input is absent or empty. */
  private constNumbers(k: number, what: string): number[] | undefined {
    const name = this.inputs[k];
    if (!name) return undefined;
    const tensor = this.reader.tensor(name);
    if (!tensor?.constant) this.fail(`its ${what} input ${name} must be a constant`);
    if (tensor.data === undefined) this.fail(`its ${what} input ${name} has no data in the file`);
    const values = numbersOf(tensor.data, tensor.dtype, elementCount(tensor.shape));
    if (values === undefined) this.fail(`its ${what} input ${name} has data that does not fit its shape`);
    return values;
  }

  constInts(k: number, what: string): number[] | undefined {
    const values = this.constNumbers(k, what);
    return values?.map((v) => this.whole(v, `a value of its ${what} input`));
  }

  constFloats(k: number, what: string): number[] | undefined {
    return this.constNumbers(k, what);
  }

  attributeTensor(name: string): TensorProto | undefined {
    return this.attribute(name, ATTRIBUTE_TYPE.TENSOR)?.t ?? undefined;
  }

  /** The value of a Constant node as a tensor. */
  constantValue(): TensorProto {
    const attribute = (this.proto.attribute ?? []).find((a) => a.name?.startsWith('value'));
    switch (attribute?.name) {
      case 'value':
        if (!attribute.t) this.fail('attribute value holds no tensor');
        return attribute.t;
      case 'value_float':
        return { dims: [], dataType: ONNX_TYPE.FLOAT, floatData: [attribute.f ?? 0] };
      case 'value_floats':
        return { dims: [attribute.floats?.length ?? 0], dataType: ONNX_TYPE.FLOAT, floatData: attribute.floats ?? [] };
      case 'value_int':
        return { dims: [], dataType: ONNX_TYPE.INT64, int64Data: [attribute.i ?? 0] };
      case 'value_ints':
        return { dims: [attribute.ints?.length ?? 0], dataType: ONNX_TYPE.INT64, int64Data: attribute.ints ?? [] };
      default:
        return this.fail('only a tensor, float(s) or int(s) value is supported');
    }
  }

  resolveReshape(input: readonly number[], target: readonly number[]): number[] {
    try {
      return resolveReshape(input, target, { op: 'Reshape', shape: target, name: this.name, inputs: [], outputs: [] });
    } catch (error) {
      if (error instanceof GraphError) this.fail(`[${input}] cannot become [${target}]`);
      throw error;
    }
  }

  /**
   * A window op's padding: auto_pad SAME_UPPER is TF's SAME; SAME_LOWER is explicit with the
   * odd pixel before; VALID; NOTSET reads pads [top, left, bottom, right]. ceil_mode=1 is
   * expressed as extra padding after, which gives ceil_mode's output size (windows that
   * would start in the right padding are dropped, as onnxruntime and PyTorch do).
   */
  windowPadding(x: readonly number[], kernel: readonly number[], strides: readonly number[], dilations: readonly number[], ceil: boolean): Padding {
    const autoPad = this.string('auto_pad', 'NOTSET');
    if (autoPad === 'SAME_UPPER') return { kind: 'same' };
    if (autoPad === 'SAME_LOWER') {
      const [top, bottom] = samePadding(x[2], kernel[0], strides[0], dilations[0]);
      const [left, right] = samePadding(x[3], kernel[1], strides[1], dilations[1]);
      return { kind: 'explicit', pads: [bottom, right, top, left] };
    }
    let pads: number[];
    if (autoPad === 'VALID') {
      if (!ceil) return { kind: 'valid' };
      pads = [0, 0, 0, 0];
    } else if (autoPad === 'NOTSET' || autoPad === '') {
      pads = this.ints('pads') ?? [0, 0, 0, 0];
      if (pads.length !== 4 || pads.some((p) => p < 0)) this.fail(`pads [${pads}] must be four numbers of at least 0`);
    } else {
      return this.fail(`auto_pad ${autoPad} is not supported`);
    }
    if (ceil) {
      for (const axis of [0, 1] as const) {
        const input = x[2 + axis];
        const span = (kernel[axis] - 1) * dilations[axis] + 1;
        const room = input + pads[axis] + pads[axis + 2] - span;
        if (room < 0) continue;
        let out = Math.ceil(room / strides[axis]) + 1;
        if ((out - 1) * strides[axis] >= input + pads[axis]) out -= 1;
        pads[axis + 2] += Math.max(0, (out - 1) * strides[axis] - room);
      }
    }
    return { kind: 'explicit', pads: [pads[0], pads[1], pads[2], pads[3]] };
  }

  /** Resize (opset 10: X, scales; 11+: X, roi, scales, sizes) and Upsample. */
  resize(x: readonly number[]): Record<string, unknown> {
    if (x.length !== 4) this.fail(`only 4-D resizing is supported (input [${x}])`);
    const upsample = this.opType === 'Upsample';
    const modeName = this.string('mode', 'nearest');
    if (modeName !== 'nearest' && modeName !== 'linear' && modeName !== 'bilinear') this.fail(`mode ${modeName} is not supported (only nearest and linear)`);
    const mode = modeName === 'nearest' ? 'nearest' : 'bilinear';
    const transform = upsample || this.opset < 11 ? 'asymmetric' : this.string('coordinate_transformation_mode', 'half_pixel');
    let alignCorners = false;
    let halfPixelCenters = false;
    if (transform === 'align_corners') alignCorners = true;
    else if (transform === 'half_pixel' || transform === 'pytorch_half_pixel' || transform === 'tf_half_pixel_for_nn') halfPixelCenters = true;
    else if (transform !== 'asymmetric') this.fail(`coordinate_transformation_mode ${transform} is not supported`);
    const policy = this.string('keep_aspect_ratio_policy', 'stretch');
    if (policy !== 'stretch') this.fail(`keep_aspect_ratio_policy ${policy} is not supported`);

    const axes = (this.ints('axes') ?? [0, 1, 2, 3]).map((a) => (a < 0 ? a + 4 : a));
    if (axes.some((a) => a < 0 || a > 3)) this.fail(`axes [${axes}] are out of range for rank 4`);
    const sizes = upsample || this.opset < 11 ? undefined : this.constInts(3, 'sizes');
    const scales = upsample ? (this.opset >= 9 ? this.constFloats(1, 'scales') : this.floats('scales')) : this.constFloats(this.opset < 11 ? 1 : 2, 'scales');
    const out = [...x];
    if (sizes !== undefined && sizes.length > 0) {
      if (sizes.length !== axes.length) this.fail(`${sizes.length} sizes for ${axes.length} axes`);
      axes.forEach((a, k) => (out[a] = sizes[k]));
    } else if (scales !== undefined && scales.length > 0) {
      if (scales.length !== axes.length) this.fail(`${scales.length} scales for ${axes.length} axes`);
      axes.forEach((a, k) => (out[a] = Math.floor(x[a] * scales[k])));
    } else {
      this.fail('it has neither scales nor sizes');
    }
    if (out[0] !== x[0] || out[1] !== x[1]) this.fail(`resizing [${x}] to [${out}] changes the batch or channels, which is not supported`);
    if (!out.every((d) => Number.isSafeInteger(d) && d > 0)) this.fail(`the output size [${out}] is not valid`);
    return { op: 'Resize', mode, size: [out[2], out[3]], alignCorners, halfPixelCenters };
  }
}
