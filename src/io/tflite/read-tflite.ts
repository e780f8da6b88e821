import { basename } from 'node:path';
import { GraphError, type Graph, type Node, type Tensor } from '../../graph/ir.ts';
import { inferOutputShapes } from '../../graph/shape-inference.ts';
import { InputError } from '../input-error.ts';
import { BUILTIN, builtinOperatorName } from './builtin-operators.ts';
import { FlatBuffer, type Corrupt } from './flatbuffer-reader.ts';
import { opSpecOf, type OperatorSite } from './op-mapping.ts';
import { modelFields, operatorCodeFields, operatorFields, subGraphFields, type OperatorCodeFields } from './schema-fields.ts';
import { shapeProblem, TensorTable, type TensorEntry } from './tensor-table.ts';

export interface TfliteReadOptions {
  /**
   * Full shapes for graph inputs whose shape_signature has dynamic (-1) dimensions, by
   * tensor name. A given shape must agree with the signature's static dimensions.
   */
  readonly inputShapes?: ReadonlyMap<string, readonly number[]>;
}

/** The TFLite schema version this reader understands (schema.fbs "Version 3"). */
const SCHEMA_VERSION = 3;

function describeIdentifier(bytes: Uint8Array): string {
  const id = bytes.subarray(4, 8);
  return [...id].every((b) => b >= 0x20 && b < 0x7f) ? `"${String.fromCharCode(...id)}"` : `the bytes ${[...id].map((b) => b.toString(16).padStart(2, '0')).join(' ')}`;
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, k) => d === b[k]);
}

/** Whether a static shape fits a pattern with -1 for dynamic dimensions. */
function fitsPattern(shape: readonly number[], pattern: readonly number[]): boolean {
  return shape.length === pattern.length && shape.every((d, k) => pattern[k] < 0 || pattern[k] === d);
}

/**
 * Reads a .tflite model (a FlatBuffer with identifier "TFL3", schema version 3, one
 * subgraph) into the Graph IR, layout NHWC. Operators keep the file's order, which is
 * TFLite's execution order; a node is named after its first output tensor. Constant
 * tensors (those whose buffer holds data) keep their data as typed arrays over `bytes`.
 *
 * Every node's output shapes are checked against shape inference. Errors: a file that is
 * not a TFLite model, is truncated or corrupt, or has dynamic shapes nothing fixes is an
 * InputError; an operator the IR cannot hold, or shapes that do not add up, a GraphError
 * naming the file and the node.
 */
export function readTflite(bytes: Uint8Array, file: string, options: TfliteReadOptions = {}): Graph {
  const inputError = (problem: string): never => {
    throw new InputError(file, undefined, problem);
  };
  const corrupt: Corrupt = (problem) => inputError(`the file is truncated or corrupt: ${problem}.`);
  if (bytes.length === 0) inputError('the file is empty; expected a TFLite model.');
  if (bytes.length < 8) inputError(`the file is ${bytes.length} bytes long, too short for a TFLite model.`);
  const buffer = new FlatBuffer(bytes, corrupt);
  if (buffer.identifier() !== 'TFL3') {
    inputError(`the file is not a TFLite model: bytes 4 to 7 hold ${describeIdentifier(bytes)}, not the identifier "TFL3".`);
  }

  const model = modelFields(buffer);
  if (model.version !== SCHEMA_VERSION) {
    inputError(`the model uses TFLite schema version ${model.version}; memplan reads version ${SCHEMA_VERSION}.`);
  }
  if (model.subgraphs.length !== 1) {
    inputError(`the model has ${model.subgraphs.length} subgraphs; memplan reads models with exactly one.`);
  }
  const codes: OperatorCodeFields[] = [];
  for (let k = 0; k < model.operatorCodes.length; k++) codes.push(operatorCodeFields(model.operatorCodes.at(k)));
  const subgraph = subGraphFields(model.subgraphs.at(0), 0);
  const tensors = new TensorTable(bytes, buffer, subgraph.tensors, model.buffers, inputError);

  /** Shapes known so far, by tensor index: static shapes, input overrides, inferred outputs. */
  const shapes = new Map<number, readonly number[]>();
  const used = new Set<TensorEntry>();

  // Graph inputs, with the shapes given for dynamic ones.
  const graphInputs = subgraph.inputs.map((index) => tensors.at(index, "the subgraph's inputs"));
  const graphOutputs = subgraph.outputs.map((index) => tensors.at(index, "the subgraph's outputs"));
  const overrides = options.inputShapes ?? new Map<string, readonly number[]>();
  for (const [name, shape] of overrides) {
    const entry =
      graphInputs.find((t) => t.name === name) ?? inputError(`an input shape is given for "${name}", but the model's inputs are ${graphInputs.map((t) => `"${t.name}"`).join(', ') || 'none'}.`);
    const problem = shapeProblem(shape);
    if (problem !== undefined) inputError(`the input shape given for "${name}" ${problem}.`);
    if (!fitsPattern(shape, entry.pattern)) {
      inputError(`the input shape [${shape}] given for "${name}" does not fit its shape [${entry.pattern}] (-1: dynamic).`);
    }
    shapes.set(entry.index, [...shape]);
  }

  /** The shape of a tensor an operator reads or the graph exposes. */
  const shapeOf = (entry: TensorEntry): readonly number[] => {
    used.add(entry);
    const known = shapes.get(entry.index);
    if (known !== undefined) return known;
    if (entry.dynamic && !tensors.isConstant(entry)) {
      const how = graphInputs.includes(entry) ? 'give its full shape as an input shape' : 'no earlier operator or input shape fixes it';
      inputError(`tensor "${entry.name}" has dynamic dimensions [${entry.pattern}] (-1: dynamic); ${how}.`);
    }
    const shape = tensors.storedShape(entry);
    shapes.set(entry.index, shape);
    return shape;
  };

  const nodes: Node[] = [];
  const writer = new Map<number, string>();
  for (let k = 0; k < subgraph.operators.length; k++) {
    const where = `operator ${k} of subgraph 0`;
    const fields = operatorFields(subgraph.operators.at(k));
    // Mapping and shape inference cost several steps per tensor an operator touches.
    buffer.spend(8 * (fields.inputs.length + fields.outputs.length), `the tensor lists of ${where}`);
    const code = codes[fields.opcodeIndex] ?? corrupt(`${where} uses operator code ${fields.opcodeIndex}, but the model has ${codes.length}`);
    const inputs = fields.inputs.map((index) => (index === -1 ? undefined : tensors.at(index, where)));
    const outputs = fields.outputs.map((index) => tensors.at(index, where));
    const opName = code.builtinCode === BUILTIN.CUSTOM ? `CUSTOM "${code.customCode ?? ''}"` : builtinOperatorName(code.builtinCode);
    if (outputs.length === 0) throw new GraphError(`${file}: ${where} (${opName}) has no outputs.`);
    const name = outputs[0].name;
    const invalid = (problem: string): never => {
      throw new GraphError(`${file}: node ${name} (${opName}): ${problem}.`);
    };
    const inputNames = inputs.map((t) => t?.name ?? '');
    const input = (i: number): TensorEntry => inputs[i] ?? invalid(`it lacks input ${i}`);

    const site: OperatorSite = {
      optionsType: fields.optionsType,
      options: fields.options,
      inputs: inputNames,
      corrupt: (problem) => corrupt(`${where} (${opName}, node ${name}): ${problem}`),
      unsupported: invalid,
      invalid,
      inputShape(i, rank) {
        const shape = shapeOf(input(i));
        if (rank !== undefined && shape.length !== rank) invalid(`input ${i} has shape [${shape}], not ${rank}-D`);
        return shape;
      },
      outputPattern: () => (outputs[0].dynamic ? outputs[0].pattern : tensors.storedShape(outputs[0])),
      constantInts(i) {
        const entry = input(i);
        const values = tensors.integers(entry);
        if (values === undefined) return undefined;
        const count = shapeOf(entry).reduce((p, d) => p * d, 1);
        if (values.length !== count) invalid(`its constant input ${i} holds ${values.length} values for shape [${shapeOf(entry)}]`);
        return values;
      },
    };
    const spec = opSpecOf(code.builtinCode, site);
    if (spec === undefined) {
      throw new GraphError(`${file}: node ${name}: the TFLite operator ${opName} is not supported.`);
    }
    const node = { ...spec, name, inputs: inputNames, outputs: outputs.map((t) => t.name) } as Node;
    const inputShapes = inputs.map((t) => (t === undefined ? [] : shapeOf(t)));
    let inferred: number[][];
    try {
      inferred = inferOutputShapes(node, inputShapes, 'NHWC');
    } catch (error) {
      if (error instanceof GraphError) throw new GraphError(`${file}: ${error.message}`);
      throw error;
    }
    if (inferred.length !== outputs.length) invalid(`it has ${outputs.length} outputs, but the op computes ${inferred.length}`);
    outputs.forEach((out, j) => {
      const shape = inferred[j];
      const problem = shapeProblem(shape);
      if (problem !== undefined) invalid(`its output ${out.name} ${problem.replace(/^has/, 'would have')}`);
      const earlier = writer.get(out.index);
      if (earlier !== undefined) invalid(`it writes tensor ${out.name}, which node ${earlier} writes too`);
      if (graphInputs.includes(out)) invalid(`it writes tensor ${out.name}, which is a graph input`);
      if (tensors.isConstant(out)) invalid(`it writes tensor ${out.name}, which is a constant`);
      writer.set(out.index, name);
      used.add(out);
      if (out.dynamic) {
        if (!fitsPattern(shape, out.pattern)) {
          invalid(`the file gives output ${out.name} the shape [${out.pattern}] (-1: dynamic), but the op computes [${shape}]`);
        }
      } else {
        const stored = tensors.storedShape(out);
        if (!sameShape(stored, shape)) invalid(`the file gives output ${out.name} the shape [${stored}], but the op computes [${shape}]`);
      }
      shapes.set(out.index, shape);
    });
    nodes.push(node);
  }

  for (const entry of [...graphInputs, ...graphOutputs]) shapeOf(entry);
  const graphTensors = new Map<string, Tensor>();
  for (const entry of [...used].sort((a, b) => a.index - b.index)) {
    const dtype = tensors.dtype(entry);
    const shape = shapeOf(entry);
    const data = tensors.view(entry);
    graphTensors.set(entry.name, data === undefined ? { name: entry.name, shape, dtype, constant: false } : { name: entry.name, shape, dtype, constant: true, data });
  }
  const name = subgraph.name !== '' && subgraph.name !== 'main' ? subgraph.name : basename(file).replace(/\.tflite$/i, '');
  return {
    name,
    layout: 'NHWC',
    tensors: graphTensors,
    nodes,
    inputs: graphInputs.map((t) => t.name),
    outputs: graphOutputs.map((t) => t.name),
  };
}
