import { ATTRIBUTE_TYPE, EXTERNAL, ONNX_TYPE, onnx, type AttributeProto, type NodeProto, type TensorProto, type ValueInfoProto } from '../../../src/io/onnx/proto.ts';

/** Hand-written ONNX models for the reader's tests (onnx-proto, no other tooling). */

export const attr = {
  int: (name: string, i: number): AttributeProto => ({ name, type: ATTRIBUTE_TYPE.INT, i }),
  ints: (name: string, ints: number[]): AttributeProto => ({ name, type: ATTRIBUTE_TYPE.INTS, ints }),
  float: (name: string, f: number): AttributeProto => ({ name, type: ATTRIBUTE_TYPE.FLOAT, f }),
  floats: (name: string, floats: number[]): AttributeProto => ({ name, type: ATTRIBUTE_TYPE.FLOATS, floats }),
  string: (name: string, s: string): AttributeProto => ({ name, type: ATTRIBUTE_TYPE.STRING, s: new TextEncoder().encode(s) }),
  tensor: (name: string, t: TensorProto): AttributeProto => ({ name, type: ATTRIBUTE_TYPE.TENSOR, t }),
};

export function node(opType: string, input: string[], output: string[], attribute: AttributeProto[] = [], name = ''): NodeProto {
  return { opType, input, output, attribute, name };
}

/** A value_info; a string dimension is a dim_param, undefined a dimension with nothing set. */
export function value(name: string, dims: (number | string | undefined)[] | undefined, elemType: number = ONNX_TYPE.FLOAT): ValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType,
        shape: dims === undefined ? undefined : { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : typeof d === 'string' ? { dimParam: d } : {})) },
      },
    },
  };
}

export const init = {
  floats: (name: string, dims: number[], values: number[]): TensorProto => ({ name, dims, dataType: ONNX_TYPE.FLOAT, floatData: values }),
  raw: (name: string, dims: number[], values: number[]): TensorProto => ({
    name,
    dims,
    dataType: ONNX_TYPE.FLOAT,
    rawData: new Uint8Array(Float32Array.from(values).buffer),
  }),
  int64: (name: string, values: number[], dims: number[] = [values.length]): TensorProto => ({ name, dims, dataType: ONNX_TYPE.INT64, int64Data: values }),
  int64Raw: (name: string, values: number[]): TensorProto => ({
    name,
    dims: [values.length],
    dataType: ONNX_TYPE.INT64,
    rawData: new Uint8Array(BigInt64Array.from(values.map(BigInt)).buffer),
  }),
  external: (name: string, dims: number[]): TensorProto => ({
    name,
    dims,
    dataType: ONNX_TYPE.FLOAT,
    dataLocation: EXTERNAL,
    externalData: [{ key: 'location', value: 'weights.bin' }],
  }),
};

export interface ModelParts {
  readonly opset: number;
  readonly nodes: NodeProto[];
  readonly inputs: ValueInfoProto[];
  readonly outputs: ValueInfoProto[];
  readonly initializers?: TensorProto[];
  readonly valueInfo?: ValueInfoProto[];
  readonly name?: string;
}

export function model(parts: ModelParts): Uint8Array {
  return onnx.ModelProto.encode({
    irVersion: 7,
    opsetImport: [{ domain: '', version: parts.opset }],
    graph: {
      name: parts.name ?? 'test',
      node: parts.nodes,
      input: parts.inputs,
      output: parts.outputs,
      initializer: parts.initializers ?? [],
      valueInfo: parts.valueInfo ?? [],
    },
  }).finish();
}

/** One op on a [1, 4, 8, 8] input `x` writing `y` (output shape left undeclared). */
export function singleOp(opset: number, op: NodeProto, initializers: TensorProto[] = [], inputShape: number[] = [1, 4, 8, 8]): Uint8Array {
  return model({ opset, nodes: [op], inputs: [value('x', inputShape)], outputs: [value('y', undefined)], initializers });
}
