import { describe, expect, it } from 'vitest';
import { decodeGraph, decodeInfo, decodeJob, decodeJobResponse, decodeTypedArray, PROTOCOL_VERSION, WireError } from '../../src/agent/wire.ts';
import { wireJobSchema } from '../../src/agent/wire-schema.ts';
import { jobRequest, tinyGraph } from './helpers.ts';

/**
 * The sentences broken wire messages get, now that a schema checks them (wire-schema.ts):
 * the same as the hand checks before it gave (compared case by case when the schema came),
 * but for an unknown field of a named tensor, which now names the tensor as its other
 * sentences do (`tensor x has an unknown field ...`, was `graph.tensors[0] has ...`).
 */

const DROP = Symbol('drop');
type Path = readonly (string | number)[];

/** A copy of `value` with `to` at `path` (DROP: without it). */
function edit(value: unknown, path: Path, to: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(value));
  if (path.length === 0) return to;
  let holder = copy;
  for (const step of path.slice(0, -1)) holder = holder[step];
  if (to === DROP) delete holder[path[path.length - 1]];
  else holder[path[path.length - 1]] = to;
  return copy;
}

/** A copy of `value` whose object at `path` has its own field `key` (`__proto__` too, as JSON.parse makes it). */
function withField(value: unknown, path: Path, key: string): unknown {
  const copy = JSON.parse(JSON.stringify(value));
  let holder = copy;
  for (const step of path) holder = holder[step];
  Object.defineProperty(holder, key, { value: { polluted: true }, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** The sentence decoding `text` throws (a WireError), or 'accepted'. */
function refusal(decode: (text: string) => unknown, text: string): string {
  try {
    decode(text);
  } catch (error) {
    expect(error).toBeInstanceOf(WireError);
    return (error as Error).message;
  }
  return 'accepted';
}

const job = jobRequest(tinyGraph());
const shared = jobRequest(tinyGraph(), 'shared-objects/greedy-by-size-improved');
/** A node of each kind of op field (the decoder checks structure, not shapes). */
const NODE_OF: Record<string, Record<string, unknown>> = {
  FullyConnected: { outFeatures: 8, activation: 'none', keepDims: false },
  Gemm: { transA: false, transB: true, alpha: 1, beta: 1 },
  Concat: { axis: 1, activation: 'none' },
  Mean: { axes: [1, 2], keepDims: true },
  Pad: {
    pads: [
      [0, 0],
      [1, 1],
    ],
  },
  Resize: { mode: 'bilinear', size: [4, 4], alignCorners: false, halfPixelCenters: true },
  Softmax: { axis: -1, beta: 1 },
  Reshape: { shape: [1, -1] },
  Gelu: { approximate: 'none' },
  MaxPool: { kernel: [2, 2], strides: [2, 2], padding: { kind: 'valid' }, activation: 'none' },
};
const ops = edit(
  job,
  ['graph', 'nodes'],
  Object.entries(NODE_OF).map(([op, fields]) => ({ name: op.toLowerCase(), op, ...fields, inputs: ['x'], outputs: ['y'] })),
);

const JOBS: readonly [string, () => unknown, string][] = [
  // The job and its protocol: a mismatch is named before anything else.
  ['an array', () => '[1]', 'the job must be a JSON object.'],
  ['null', () => 'null', 'the job must be a JSON object.'],
  ['no protocol', () => ({}), 'the job gives no protocol version; this side speaks protocol 1.'],
  [
    'another protocol, and broken besides',
    () => edit(edit(edit(job, ['run'], 5), ['protocol'], 2), ['zz'], 1),
    'the job is protocol 2 but this side speaks protocol 1; run the same memplan version on both sides.',
  ],
  ['a protocol as text', () => edit(job, ['protocol'], '1'), 'the job is protocol "1" but this side speaks protocol 1; run the same memplan version on both sides.'],
  ['no protocol, and broken besides', () => edit(edit(job, ['protocol'], DROP), ['run'], 5), 'the job gives no protocol version; this side speaks protocol 1.'],
  ['an unknown field', () => withField(job, [], 'zz'), 'the job has an unknown field "zz"; expected protocol, graph, records, plan, run.'],
  ['__proto__ as a field', () => withField(job, [], '__proto__'), 'the job has an unknown field "__proto__"; expected protocol, graph, records, plan, run.'],
  ['constructor as a field', () => withField(job, [], 'constructor'), 'the job has an unknown field "constructor"; expected protocol, graph, records, plan, run.'],
  ['an unknown field and a broken run', () => withField(edit(job, ['run', 'seed'], 'x'), [], 'zz'), 'the job has an unknown field "zz"; expected protocol, graph, records, plan, run.'],
  // Record options (graph/record-option-fields.ts's table).
  ['records not an object', () => edit(job, ['records'], 5), 'records must be a JSON object.'],
  ['records an array', () => edit(job, ['records'], []), 'records must be a JSON object.'],
  ['records.elementSize 0', () => edit(job, ['records'], { elementSize: 0 }), 'records.elementSize must be a whole number >= 1, got 0.'],
  ['records.elementSize 1.5', () => edit(job, ['records'], { elementSize: 1.5 }), 'records.elementSize must be a whole number >= 1, got 1.5.'],
  ['records.includeGraphIO as text', () => edit(job, ['records'], { includeGraphIO: 'yes' }), 'records.includeGraphIO must be true or false, got "yes".'],
  ['records.scratch 1', () => edit(job, ['records'], { scratch: 1 }), 'records.scratch must be true or false, got 1.'],
  ['records.order unknown', () => edit(job, ['records'], { order: 'random' }), 'records.order must be given or memory-aware, got "random".'],
  ['records.schedule groups:0', () => edit(job, ['records'], { schedule: 'groups:0' }), 'records.schedule must be sequential, levels or groups:K (K a whole number >= 1), got "groups:0".'],
  ['records.schedule a number', () => edit(job, ['records'], { schedule: 3 }), 'records.schedule must be sequential, levels or groups:K (K a whole number >= 1), got 3.'],
  [
    'records with an option the job does not carry',
    () => edit(job, ['records'], { inputShapes: {} }),
    'records has an unknown field "inputShapes"; expected includeGraphIO, elementSize, roundChannelsTo4, nhwc, fuseActivations, dropIdentityOps, order, schedule, scratch, threads.',
  ],
  [
    'records with __proto__',
    () => withField(job, ['records'], '__proto__'),
    'records has an unknown field "__proto__"; expected includeGraphIO, elementSize, roundChannelsTo4, nhwc, fuseActivations, dropIdentityOps, order, schedule, scratch, threads.',
  ],
  // Run options and their limits.
  ['no run', () => edit(job, ['run'], DROP), 'run must be a JSON object.'],
  ['run an array', () => edit(job, ['run'], []), 'run must be a JSON object.'],
  ['run with an unknown field', () => withField(job, ['run'], 'zz'), 'run has an unknown field "zz"; expected backend, repetitions, warmup, seed, verifyByExecution, workers, device.'],
  ['run with __proto__', () => withField(job, ['run'], '__proto__'), 'run has an unknown field "__proto__"; expected backend, repetitions, warmup, seed, verifyByExecution, workers, device.'],
  ['run.backend empty', () => edit(job, ['run', 'backend'], ''), 'run.backend must name a backend.'],
  ['run.backend missing', () => edit(job, ['run', 'backend'], DROP), 'run.backend must name a backend.'],
  ['run.repetitions 0', () => edit(job, ['run', 'repetitions'], 0), 'run.repetitions must be a whole number from 1 to 1000000, got 0.'],
  ['run.repetitions past the limit', () => edit(job, ['run', 'repetitions'], 1_000_001), 'run.repetitions must be a whole number from 1 to 1000000, got 1000001.'],
  ['run.repetitions 1.5', () => edit(job, ['run', 'repetitions'], 1.5), 'run.repetitions must be a whole number from 1 to 1000000, got 1.5.'],
  ['run.repetitions as text', () => edit(job, ['run', 'repetitions'], '3'), 'run.repetitions must be a whole number from 1 to 1000000, got "3".'],
  ['run.repetitions missing', () => edit(job, ['run', 'repetitions'], DROP), 'run.repetitions must be a whole number from 1 to 1000000, got nothing.'],
  ['run.warmup -1', () => edit(job, ['run', 'warmup'], -1), 'run.warmup must be a whole number from 0 to 1000000, got -1.'],
  ['run.warmup past the limit', () => edit(job, ['run', 'warmup'], 1_000_001), 'run.warmup must be a whole number from 0 to 1000000, got 1000001.'],
  ['run.seed past a safe integer', () => edit(job, ['run', 'seed'], 2 ** 53), 'run.seed must be a whole number from -9007199254740991 to 9007199254740991, got 9007199254740992.'],
  ['run.seed null', () => edit(job, ['run', 'seed'], null), 'run.seed must be a whole number from -9007199254740991 to 9007199254740991, got null.'],
  ['run.verifyByExecution as text', () => edit(job, ['run', 'verifyByExecution'], 'yes'), 'run.verifyByExecution must be true or false, got "yes".'],
  ['run.workers 0', () => edit(job, ['run', 'workers'], 0), 'run.workers must be a whole number from 1 to 1024, got 0.'],
  ['run.workers past the limit', () => edit(job, ['run', 'workers'], 1025), 'run.workers must be a whole number from 1 to 1024, got 1025.'],
  ['run.device with a shell command', () => edit(job, ['run', 'device'], 'd1; rm -rf'), 'run.device must name a device (letters, digits, - and _), got "d1; rm -rf".'],
  ['run.device a number', () => edit(job, ['run', 'device'], 7), 'run.device must name a device (letters, digits, - and _), got 7.'],
  ['run.device of 41 characters', () => edit(job, ['run', 'device'], 'd'.repeat(41)), 'run.device must name a device (letters, digits, - and _), got "dddddddddddddddddddddddddddddddddddd....'],
  ['run.device empty', () => edit(job, ['run', 'device'], ''), 'run.device must name a device (letters, digits, - and _), got "".'],
  // The graph.
  ['no graph', () => edit(job, ['graph'], DROP), 'graph must be a JSON object.'],
  ['graph an array', () => edit(job, ['graph'], []), 'graph must be a JSON object.'],
  ['graph with an unknown field', () => withField(job, ['graph'], 'zz'), 'graph has an unknown field "zz"; expected name, layout, tensors, nodes, inputs, outputs.'],
  ['graph.name a number', () => edit(job, ['graph', 'name'], 5), 'graph.name must be a string.'],
  ['graph.layout unknown', () => edit(job, ['graph', 'layout'], 'NWHC'), 'graph.layout must be NHWC or NCHW, got "NWHC".'],
  ['graph.tensors not an array', () => edit(job, ['graph', 'tensors'], {}), 'graph.tensors must be an array.'],
  ['graph.nodes missing', () => edit(job, ['graph', 'nodes'], DROP), 'graph.nodes must be an array.'],
  ['graph.nodes not an array before a broken tensor', () => edit(edit(job, ['graph', 'nodes'], 5), ['graph', 'tensors', 0, 'shape'], [-1]), 'graph.nodes must be an array.'],
  ['graph.inputs with an empty name', () => edit(job, ['graph', 'inputs'], ['']), 'graph.inputs must be an array of non-empty tensor names.'],
  ['graph.outputs a string', () => edit(job, ['graph', 'outputs'], 'y'), 'graph.outputs must be an array of non-empty tensor names.'],
  // Tensors and their values.
  ['a tensor not an object', () => edit(job, ['graph', 'tensors', 0], 3), 'graph.tensors[0] must be a JSON object.'],
  ['a tensor without a name', () => edit(job, ['graph', 'tensors', 0, 'name'], ''), 'graph.tensors[0].name must be a non-empty string.'],
  ['a tensor listed twice', () => edit(job, ['graph', 'tensors', 3, 'name'], 'x'), 'tensor x is listed twice.'],
  ['a shape with a negative dimension', () => edit(job, ['graph', 'tensors', 0, 'shape'], [1, -8]), 'tensor x has shape [1,-8]; a shape is an array of whole numbers >= 0.'],
  ['a shape with a fraction', () => edit(job, ['graph', 'tensors', 0, 'shape'], [1.5]), 'tensor x has shape [1.5]; a shape is an array of whole numbers >= 0.'],
  ['a shape as text', () => edit(job, ['graph', 'tensors', 0, 'shape'], '1x8'), 'tensor x has shape "1x8"; a shape is an array of whole numbers >= 0.'],
  ['a shape missing', () => edit(job, ['graph', 'tensors', 0, 'shape'], DROP), 'tensor x has shape nothing; a shape is an array of whole numbers >= 0.'],
  ['an element type the IR does not know', () => edit(job, ['graph', 'tensors', 0, 'dtype'], 'float8'), 'tensor x has element type "float8", which the IR does not know.'],
  ['an element type missing', () => edit(job, ['graph', 'tensors', 0, 'dtype'], DROP), 'tensor x has element type nothing, which the IR does not know.'],
  ['constant as text', () => edit(job, ['graph', 'tensors', 0, 'constant'], 'yes'), 'tensor x.constant must be true or false.'],
  ['values on a tensor that is not a constant', () => edit(job, ['graph', 'tensors', 1, 'constant'], false), 'tensor w1 carries values but is not a constant.'],
  ['a tensor with an unknown field', () => withField(job, ['graph', 'tensors', 0], 'zz'), 'tensor x has an unknown field "zz"; expected name, shape, dtype, constant, data.'],
  ['a tensor with __proto__', () => withField(job, ['graph', 'tensors', 1], '__proto__'), 'tensor w1 has an unknown field "__proto__"; expected name, shape, dtype, constant, data.'],
  ['data not an object', () => edit(job, ['graph', 'tensors', 1, 'data'], 5), 'tensor w1.data must be a JSON object.'],
  ['data with an unknown field', () => withField(job, ['graph', 'tensors', 1, 'data'], 'zz'), 'tensor w1.data has an unknown field "zz"; expected array, base64.'],
  [
    'data of an array kind the wire does not carry',
    () => edit(job, ['graph', 'tensors', 1, 'data', 'array'], 'Float33Array'),
    'tensor w1.data.array is "Float33Array"; expected one of Float32Array, Float64Array, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array, DataView.',
  ],
  [
    'data without its array kind',
    () => edit(job, ['graph', 'tensors', 1, 'data', 'array'], DROP),
    'tensor w1.data.array is undefined; expected one of Float32Array, Float64Array, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array, DataView.',
  ],
  ['data that is not base64', () => edit(job, ['graph', 'tensors', 1, 'data', 'base64'], 'not base64!'), 'tensor w1.data.base64 is not base64 text.'],
  ['data base64 not a multiple of four', () => edit(job, ['graph', 'tensors', 1, 'data', 'base64'], 'AAA'), 'tensor w1.data.base64 is not base64 text.'],
  ['data base64 a number', () => edit(job, ['graph', 'tensors', 1, 'data', 'base64'], 5), 'tensor w1.data.base64 is not base64 text.'],
  ['data bytes not whole float32 elements', () => edit(job, ['graph', 'tensors', 1, 'data', 'base64'], 'AAA='), 'tensor w1.data has 2 bytes, not a whole number of Float32Array elements.'],
  // Nodes: the name, the op, each kind of op field.
  ['a node not an object', () => edit(job, ['graph', 'nodes', 0], 'conv'), 'graph.nodes[0] must be a JSON object.'],
  ['an empty node', () => edit(job, ['graph', 'nodes', 0], {}), 'graph.nodes[0].name must be a non-empty string.'],
  ['a node without a name', () => edit(job, ['graph', 'nodes', 0, 'name'], DROP), 'graph.nodes[0].name must be a non-empty string.'],
  [
    'an op the agent does not know',
    () => edit(job, ['graph', 'nodes', 0, 'op'], 'LSTM'),
    'node conv1 has op "LSTM", which this agent does not know; it knows Conv, FullyConnected, MatMul, Gemm, Add, Mul, Concat, AveragePool, MaxPool, GlobalAveragePool, Mean, Pad, Reshape, Flatten, Squeeze, Softmax, Resize, Relu, Relu6, Sigmoid, Tanh, Dequantize, Gather, LayerNormalization, Gelu, Transpose, Slice, CausalMask.',
  ],
  [
    'no op',
    () => edit(job, ['graph', 'nodes', 0, 'op'], DROP),
    'node conv1 has op nothing, which this agent does not know; it knows Conv, FullyConnected, MatMul, Gemm, Add, Mul, Concat, AveragePool, MaxPool, GlobalAveragePool, Mean, Pad, Reshape, Flatten, Squeeze, Softmax, Resize, Relu, Relu6, Sigmoid, Tanh, Dequantize, Gather, LayerNormalization, Gelu, Transpose, Slice, CausalMask.',
  ],
  [
    'constructor as an op',
    () => edit(job, ['graph', 'nodes', 0, 'op'], 'constructor'),
    'node conv1 has op "constructor", which this agent does not know; it knows Conv, FullyConnected, MatMul, Gemm, Add, Mul, Concat, AveragePool, MaxPool, GlobalAveragePool, Mean, Pad, Reshape, Flatten, Squeeze, Softmax, Resize, Relu, Relu6, Sigmoid, Tanh, Dequantize, Gather, LayerNormalization, Gelu, Transpose, Slice, CausalMask.',
  ],
  [
    '__proto__ as an op',
    () => edit(job, ['graph', 'nodes', 0, 'op'], '__proto__'),
    'node conv1 has op "__proto__", which this agent does not know; it knows Conv, FullyConnected, MatMul, Gemm, Add, Mul, Concat, AveragePool, MaxPool, GlobalAveragePool, Mean, Pad, Reshape, Flatten, Squeeze, Softmax, Resize, Relu, Relu6, Sigmoid, Tanh, Dequantize, Gather, LayerNormalization, Gelu, Transpose, Slice, CausalMask.',
  ],
  ['a node with an unknown field', () => withField(job, ['graph', 'nodes', 1], 'zz'), 'node relu has an unknown field "zz"; expected name, op, inputs, outputs.'],
  ['a node with a field of another op', () => withField(job, ['graph', 'nodes', 1], 'kernel'), 'node relu has an unknown field "kernel"; expected name, op, inputs, outputs.'],
  [
    'a node with __proto__',
    () => withField(job, ['graph', 'nodes', 0], '__proto__'),
    'node conv1 has an unknown field "__proto__"; expected name, op, inputs, outputs, kernel, strides, dilations, padding, groups, outChannels, weightLayout, activation.',
  ],
  [
    'a node with constructor',
    () => withField(job, ['graph', 'nodes', 0], 'constructor'),
    'node conv1 has an unknown field "constructor"; expected name, op, inputs, outputs, kernel, strides, dilations, padding, groups, outChannels, weightLayout, activation.',
  ],
  ['a kernel of one number', () => edit(job, ['graph', 'nodes', 0, 'kernel'], [3]), 'node conv1 (Conv).kernel must be two whole numbers >= 1, got [3].'],
  ['a kernel of 0', () => edit(job, ['graph', 'nodes', 0, 'kernel'], [0, 1]), 'node conv1 (Conv).kernel must be two whole numbers >= 1, got [0,1].'],
  ['a kernel missing', () => edit(job, ['graph', 'nodes', 0, 'kernel'], DROP), 'node conv1 (Conv).kernel must be two whole numbers >= 1, got nothing.'],
  ['a stride as text', () => edit(job, ['graph', 'nodes', 0, 'strides'], '1,1'), 'node conv1 (Conv).strides must be two whole numbers >= 1, got "1,1".'],
  ['padding as text', () => edit(job, ['graph', 'nodes', 0, 'padding'], 'same'), 'node conv1 (Conv).padding must be a JSON object.'],
  ['padding of an unknown kind', () => edit(job, ['graph', 'nodes', 0, 'padding'], { kind: 'bogus' }), 'node conv1 (Conv).padding must be { kind: same | valid | explicit }, got {"kind":"bogus"}.'],
  ['padding without a kind', () => edit(job, ['graph', 'nodes', 0, 'padding'], {}), 'node conv1 (Conv).padding must be { kind: same | valid | explicit }, got {}.'],
  [
    'explicit padding of two pads',
    () => edit(job, ['graph', 'nodes', 0, 'padding'], { kind: 'explicit', pads: [1, 1] }),
    'node conv1 (Conv).padding.pads must be four whole numbers >= 0 [top, left, bottom, right].',
  ],
  [
    'explicit padding with a negative pad',
    () => edit(job, ['graph', 'nodes', 0, 'padding'], { kind: 'explicit', pads: [1, 1, -1, 1] }),
    'node conv1 (Conv).padding.pads must be four whole numbers >= 0 [top, left, bottom, right].',
  ],
  ['same padding with pads', () => edit(job, ['graph', 'nodes', 0, 'padding'], { kind: 'same', pads: [1, 1, 1, 1] }), 'node conv1 (Conv).padding has an unknown field "pads"; expected kind.'],
  [
    'explicit padding with an unknown field',
    () => edit(job, ['graph', 'nodes', 0, 'padding'], { kind: 'explicit', pads: [1, 1, 1, 1], zz: 1 }),
    'node conv1 (Conv).padding has an unknown field "zz"; expected kind, pads.',
  ],
  ['groups 0', () => edit(job, ['graph', 'nodes', 0, 'groups'], 0), 'node conv1 (Conv).groups must be a whole number >= 1, got 0.'],
  ['outChannels as text', () => edit(job, ['graph', 'nodes', 0, 'outChannels'], '8'), 'node conv1 (Conv).outChannels must be a whole number >= 1, got "8".'],
  ['a weight layout the IR does not have', () => edit(job, ['graph', 'nodes', 0, 'weightLayout'], 'HWIO'), 'node conv1 (Conv).weightLayout must be OHWI, 1HWO or OIHW, got "HWIO".'],
  [
    'an activation the IR does not have',
    () => edit(job, ['graph', 'nodes', 0, 'activation'], 'gelu'),
    'node conv1 (Conv).activation must be one of none, relu, relu6, relu-n1-to-1, sigmoid, tanh, got "gelu".',
  ],
  ['inputs that are not names', () => edit(job, ['graph', 'nodes', 0, 'inputs'], [1]), 'node conv1.inputs must be an array of tensor names.'],
  ['inputs missing', () => edit(job, ['graph', 'nodes', 0, 'inputs'], DROP), 'node conv1.inputs must be an array of tensor names.'],
  ['no outputs', () => edit(job, ['graph', 'nodes', 0, 'outputs'], []), 'node conv1 has no outputs.'],
  ['an empty output name', () => edit(job, ['graph', 'nodes', 0, 'outputs'], ['']), 'node conv1.outputs must be an array of non-empty tensor names.'],
  ['keepDims as text (FullyConnected)', () => edit(ops, ['graph', 'nodes', 0, 'keepDims'], 'no'), 'node fullyconnected (FullyConnected).keepDims must be true or false, got "no".'],
  ['alpha as text (Gemm)', () => edit(ops, ['graph', 'nodes', 1, 'alpha'], 'x'), 'node gemm (Gemm).alpha must be a number, got "x".'],
  ['an axis of 1.5 (Concat)', () => edit(ops, ['graph', 'nodes', 2, 'axis'], 1.5), 'node concat (Concat).axis must be a whole number, got 1.5.'],
  ['axes with a fraction (Mean)', () => edit(ops, ['graph', 'nodes', 3, 'axes'], [1.5]), 'node mean (Mean).axes must be an array of whole numbers, got [1.5].'],
  ['pads of one number (Pad)', () => edit(ops, ['graph', 'nodes', 4, 'pads'], [[1]]), 'node pad (Pad).pads must be an array of [before, after] pairs of whole numbers, got [[1]].'],
  ['a resize mode the IR does not have (Resize)', () => edit(ops, ['graph', 'nodes', 5, 'mode'], 'cubic'), 'node resize (Resize).mode must be bilinear or nearest, got "cubic".'],
  ['a size of one number (Resize)', () => edit(ops, ['graph', 'nodes', 5, 'size'], [4]), 'node resize (Resize).size must be two whole numbers >= 1, got [4].'],
  ['beta null (Softmax)', () => edit(ops, ['graph', 'nodes', 6, 'beta'], null), 'node softmax (Softmax).beta must be a number, got null.'],
  ['a shape as text (Reshape)', () => edit(ops, ['graph', 'nodes', 7, 'shape'], 'x'), 'node reshape (Reshape).shape must be an array of whole numbers, got "x".'],
  ['an approximation the IR does not have (Gelu)', () => edit(ops, ['graph', 'nodes', 8, 'approximate'], 'erf'), 'node gelu (Gelu).approximate must be none or tanh, got "erf".'],
  [
    'a pool with a field of Conv (MaxPool)',
    () => withField(ops, ['graph', 'nodes', 9], 'dilations'),
    'node maxpool has an unknown field "dilations"; expected name, op, inputs, outputs, kernel, strides, padding, activation.',
  ],
  // The plan.
  ['no plan', () => edit(job, ['plan'], DROP), 'plan must be a JSON object.'],
  ['a plan with an unknown field', () => withField(job, ['plan'], 'zz'), 'plan has an unknown field "zz"; expected planner, approach, alignment, footprint, records, offsets, objects.'],
  ['a plan with __proto__', () => withField(job, ['plan'], '__proto__'), 'plan has an unknown field "__proto__"; expected planner, approach, alignment, footprint, records, offsets, objects.'],
  ['plan.planner empty', () => edit(job, ['plan', 'planner'], ''), 'plan.planner must name the planner.'],
  ['plan.alignment 0', () => edit(job, ['plan', 'alignment'], 0), 'plan.alignment must be a whole number of bytes >= 1, got 0.'],
  ['plan.alignment as text', () => edit(job, ['plan', 'alignment'], '64'), 'plan.alignment must be a whole number of bytes >= 1, got "64".'],
  ['plan.footprint -1', () => edit(job, ['plan', 'footprint'], -1), 'plan.footprint must be a whole number of bytes >= 0, got -1.'],
  ['plan.records with an empty id', () => edit(job, ['plan', 'records'], ['']), 'plan.records must be an array of non-empty tensor names.'],
  ['plan.approach unknown', () => edit(job, ['plan', 'approach'], 'arena'), 'plan.approach must be offsets or shared-objects, got "arena".'],
  ['plan.approach missing', () => edit(job, ['plan', 'approach'], DROP), 'plan.approach must be offsets or shared-objects, got nothing.'],
  ['plan.offsets with a negative offset', () => edit(job, ['plan', 'offsets'], [-1]), 'plan.offsets must be an array of whole numbers >= 0.'],
  ['plan.offsets missing', () => edit(job, ['plan', 'offsets'], DROP), 'plan.offsets must be an array of whole numbers >= 0.'],
  ['objects in an offsets plan', () => edit(job, ['plan', 'objects'], { ids: [], sizes: [] }), 'plan.objects is for shared-objects plans; this plan computes offsets.'],
  ['offsets in a shared-objects plan', () => edit(shared, ['plan', 'offsets'], [0]), 'plan.offsets is for offsets plans; a shared-objects plan gives plan.objects.'],
  ['plan.objects missing', () => edit(shared, ['plan', 'objects'], DROP), 'plan.objects must be a JSON object.'],
  ['plan.objects with an unknown field', () => withField(shared, ['plan', 'objects'], 'zz'), 'plan.objects has an unknown field "zz"; expected ids, sizes.'],
  ['plan.objects.ids with a fraction', () => edit(shared, ['plan', 'objects', 'ids'], [1.5]), 'plan.objects.ids must be an array of whole numbers >= 0.'],
  ['plan.objects.sizes missing', () => edit(shared, ['plan', 'objects', 'sizes'], DROP), 'plan.objects.sizes must be an array of whole numbers >= 0.'],
];

describe('the wire schema: the sentence each broken job gets', () => {
  it('takes the valid jobs these cases break', () => {
    for (const valid of [job, shared, ops]) expect(refusal(decodeJob, JSON.stringify(valid))).toBe('accepted');
  });

  it.each(JOBS)('%s', (_case, make, sentence) => {
    const value = make();
    expect(refusal(decodeJob, typeof value === 'string' ? value : JSON.stringify(value))).toBe(sentence);
  });
});

describe('the wire schema: what it keeps from the hand checks', () => {
  it('refuses __proto__ and constructor as a field of every object of a job, and pollutes no prototype', () => {
    // Every object of a job of each approach, and of a node of each kind of op field.
    const objects: [unknown, Path][] = [];
    const visit = (base: unknown, value: unknown, path: Path): void => {
      if (Array.isArray(value)) value.forEach((item, k) => visit(base, item, [...path, k]));
      else if (value !== null && typeof value === 'object') {
        objects.push([base, path]);
        for (const [key, item] of Object.entries(value)) visit(base, item, [...path, key]);
      }
    };
    visit(job, job, []);
    visit(shared, shared.plan, ['plan']);
    visit(ops, (ops as typeof job).graph.nodes, ['graph', 'nodes']);
    expect(objects.length).toBeGreaterThan(30);
    for (const [base, path] of objects) {
      for (const key of ['__proto__', 'constructor']) {
        expect(refusal(decodeJob, JSON.stringify(withField(base, path, key))), `${key} at ${path.join('.')}`).toMatch(new RegExp(`has an unknown field "${key}"; expected `));
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('stops at the first broken node or tensor, as the hand checks did: a long list of them costs one issue, not one each', () => {
    const nodes = edit(job, ['graph', 'nodes'], new Array(100_000).fill(1));
    const result = wireJobSchema.safeParse(nodes);
    expect(result.error?.issues.length).toBe(1);
    expect(refusal(decodeJob, JSON.stringify(nodes))).toBe('graph.nodes[0] must be a JSON object.');
    const tensors = edit(job, ['graph', 'tensors'], new Array(100_000).fill({ name: 't', shape: 'x' }));
    // The first tensor's own problems (its shape, dtype, constant), none of the others'.
    expect(wireJobSchema.safeParse(tensors).error?.issues.map((issue) => issue.path.slice(0, 3))).toEqual([
      ['graph', 'tensors', 0],
      ['graph', 'tensors', 0],
      ['graph', 'tensors', 0],
    ]);
    expect(refusal(decodeJob, JSON.stringify(tensors))).toBe('tensor t has shape "x"; a shape is an array of whole numbers >= 0.');
  });

  it('names a protocol mismatch before anything else is read', () => {
    const broken = edit(edit(edit(job, ['graph'], 5), ['plan', 'planner'], ''), ['run'], []);
    expect(refusal(decodeJob, JSON.stringify(edit(broken, ['protocol'], 2)))).toBe(
      `the job is protocol 2 but this side speaks protocol ${PROTOCOL_VERSION}; run the same memplan version on both sides.`,
    );
    expect(refusal(decodeJob, JSON.stringify(withField(edit(broken, ['protocol'], DROP), [], '__proto__')))).toBe(`the job gives no protocol version; this side speaks protocol ${PROTOCOL_VERSION}.`);
  });

  it('decodes a job as before: run options in their order, record options in the order the job gives them', () => {
    const records = { schedule: 'groups:2', order: 'memory-aware', scratch: true, elementSize: 4 };
    const decoded = decodeJob(JSON.stringify({ ...job, records, run: { device: 'd-1', workers: 2, ...job.run } }));
    expect(Object.keys(decoded.records)).toEqual(['schedule', 'order', 'scratch', 'elementSize']);
    expect(decoded.records).toEqual(records);
    expect(Object.keys(decoded.run)).toEqual(['backend', 'repetitions', 'warmup', 'seed', 'verifyByExecution', 'workers', 'device']);
    expect(decoded.plan).toEqual({
      planner: job.plan.planner,
      alignment: job.plan.alignment,
      records: job.plan.records,
      plan: { approach: 'offsets', offsets: job.plan.offsets, footprint: job.plan.footprint },
    });
    expect(Object.keys(decoded.graph.nodes[0])).toEqual(['name', 'op', 'kernel', 'strides', 'dilations', 'padding', 'groups', 'outChannels', 'weightLayout', 'activation', 'inputs', 'outputs']);
  });
});

describe("the wire schema: a graph alone, a typed array alone, and the agent's answers", () => {
  it.each([
    ['a graph that is not an object', [], 'graph must be a JSON object.'],
    ['a graph with an unknown field', { ...(job.graph as object), zz: 1 }, 'graph has an unknown field "zz"; expected name, layout, tensors, nodes, inputs, outputs.'],
    ['a graph whose node has no name', edit(job.graph, ['nodes', 1, 'name'], ''), 'graph.nodes[1].name must be a non-empty string.'],
    ['a graph whose tensor has a bad shape', edit(job.graph, ['tensors', 2, 'shape'], [8, -1]), 'tensor b1 has shape [8,-1]; a shape is an array of whole numbers >= 0.'],
  ])('%s', (_case, graph, sentence) => {
    expect(refusal(() => decodeGraph(graph), '')).toBe(sentence);
  });

  it.each([
    ['not an object', 'AAAA', 'weights must be a JSON object.'],
    ['an unknown field', { array: 'Float32Array', base64: 'AAAAAA==', zz: 1 }, 'weights has an unknown field "zz"; expected array, base64.'],
    [
      'an unknown array kind',
      { array: 'Array', base64: '' },
      'weights.array is "Array"; expected one of Float32Array, Float64Array, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array, DataView.',
    ],
    ['text that is not base64', { array: 'Uint8Array', base64: 'AA=A' }, 'weights.base64 is not base64 text.'],
    ['bytes that are not whole elements', { array: 'Float64Array', base64: 'AAAAAA==' }, 'weights has 4 bytes, not a whole number of Float64Array elements.'],
  ])('typed array: %s', (_case, data, sentence) => {
    expect(refusal(() => decodeTypedArray(data, 'weights'), '')).toBe(sentence);
  });

  const info = {
    protocol: PROTOCOL_VERSION,
    agent: 'memplan',
    device: { hostname: 'h', backends: [{ kind: 'cpu', requiredAlignment: 4, device: {} }] },
    limits: { maxJobBytes: 1, maxRunSeconds: 2 },
    jobs: {},
  };
  const MEASURED = { planned: 1, intermediates: 1, io: 1, weights: 1, scratch: 0, baselineRss: 1, peakRss: 2, peakRssDelta: 1, rest: 0 };
  const response = {
    protocol: PROTOCOL_VERSION,
    report: { backend: 'cpu', planner: 'p', footprint: 1, peakRssBytes: 2, latencyMs: {}, memory: MEASURED, device: {}, matchesNaive: null },
    device: {},
  };
  it.each([
    ['not JSON', 'not json', 'the agent answered with something that is not JSON; is that address a memplan agent?'],
    ['not an object', '[]', 'the agent answer must be a JSON object.'],
    ['another protocol', JSON.stringify({ ...info, protocol: 2 }), 'the agent answer is protocol 2 but this side speaks protocol 1; run the same memplan version on both sides.'],
    ['no device', JSON.stringify(edit(info, ['device'], DROP)), 'the agent info device must be a JSON object.'],
    ['limits not an object', JSON.stringify(edit(info, ['limits'], 5)), 'the agent info limits must be a JSON object.'],
    ['no backends', JSON.stringify(edit(info, ['device', 'backends'], DROP)), 'the agent info lists no backends.'],
    ['a limit as text', JSON.stringify(edit(info, ['limits', 'maxJobBytes'], '1')), 'the agent info has no limits.maxJobBytes.'],
    ['no maxRunSeconds', JSON.stringify(edit(info, ['limits', 'maxRunSeconds'], DROP)), 'the agent info has no limits.maxRunSeconds.'],
    ['an answer the client reads', JSON.stringify(info), 'accepted'],
  ])('info: %s', (_case, text, sentence) => {
    expect(refusal(decodeInfo, text)).toBe(sentence);
  });

  it.each([
    ['no report', edit(response, ['report'], DROP), 'the job response report must be a JSON object.'],
    ['no backend', edit(response, ['report', 'backend'], DROP), 'the job response report has no backend.'],
    ['a footprint as text', edit(response, ['report', 'footprint'], '1'), 'the job response report has no footprint.'],
    ['latencyMs null', edit(response, ['report', 'latencyMs'], null), 'the job response report has no latencyMs.'],
    ['no device in the report', edit(response, ['report', 'device'], DROP), 'the job response report has no device.'],
    ['peakRssBytes as text', edit(response, ['report', 'peakRssBytes'], 'x'), 'the job response report has no peakRssBytes.'],
    ['a memory figure as text', edit(response, ['report', 'memory', 'planned'], 'x'), "the job response report's memory has no planned."],
    ['a memory figure null, not listed as unavailable', edit(response, ['report', 'memory', 'peakRss'], null), "the job response report's memory has no peakRss."],
    ['a memory figure null, listed as unavailable', edit(edit(response, ['report', 'memory', 'peakRss'], null), ['report', 'memory', 'unavailable'], ['peakRss']), 'accepted'],
    // Was "the job response report's memory has no planned.": an array is no memory report.
    ['memory an array', edit(response, ['report', 'memory'], []), 'the job response report has no memory.'],
    ['matchesNaive as text', edit(response, ['report', 'matchesNaive'], 'yes'), 'the job response report has no matchesNaive.'],
    ['deviceMs a number', edit(response, ['report', 'deviceMs'], 5), 'the job response report has a deviceMs that is not an object.'],
    ['no device', edit(response, ['device'], DROP), 'the job response device must be a JSON object.'],
  ])('job response: %s', (_case, value, sentence) => {
    expect(refusal(decodeJobResponse, JSON.stringify(value))).toBe(sentence);
  });
});
