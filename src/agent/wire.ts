import type { Plan } from '../core/plans.ts';
import type { Problem } from '../core/problem.ts';
import type { VerifiedResult } from '../planners/plan-and-verify.ts';
import { isDType } from '../graph/dtype.ts';
import type { Activation, Graph, Layout, Node, Padding, Tensor } from '../graph/ir.ts';
import { OPERATOR_ORDERS, type OperatorOrder, type RecordOptions } from '../graph/lifetimes.ts';
import { parseSchedule, SCHEDULE_FORMS } from '../graph/schedule.ts';
import { RECORD_OPTION_FIELDS, type RecordOptionKind } from '../graph/record-option-fields.ts';
import type { ExecuteReport } from '../backends/execution-report.ts';
import type { DeviceInfo } from '../backends/backend.ts';
import { BackendError } from '../backends/backend-error.ts';
import { base64ToBytes, BIG_ENDIAN, bytesToBase64 } from './base64.ts';

/**
 * The wire format between the harness (remote-executor.ts) and `memplan agent`
 * (agent.ts): JSON bodies over HTTP, every body carrying `protocol`.
 *
 *   GET  /v1/info  -> InfoResponse
 *   POST /v1/jobs  JobRequest -> JobResponse (200) or ErrorResponse (4xx, 5xx)
 *
 * A job carries the graph exactly as it runs (constants with their values), the verified
 * plan, the record options the plan was made with, and how to measure. Constant values
 * travel as base64 of their bytes, little-endian, tagged with the typed array that held
 * them, so every typed array comes back as the same kind with the same bits.
 *
 * Bump PROTOCOL_VERSION on any change a peer of the previous version would misread.
 */
export const PROTOCOL_VERSION = 1;

/** Why a body cannot be taken: one sentence, sent back as a 400. */
export class WireError extends BackendError {
  constructor(message: string) {
    super(message);
    this.name = 'WireError';
  }
}

// ---------------------------------------------------------------------------------------
// Bodies

export type TypedArrayKind =
  | 'Float32Array'
  | 'Float64Array'
  | 'Int8Array'
  | 'Uint8Array'
  | 'Uint8ClampedArray'
  | 'Int16Array'
  | 'Uint16Array'
  | 'Int32Array'
  | 'Uint32Array'
  | 'BigInt64Array'
  | 'BigUint64Array'
  | 'DataView';

export interface WireData {
  readonly array: TypedArrayKind;
  /** The view's bytes, little-endian, base64. */
  readonly base64: string;
}

export interface WireTensor {
  readonly name: string;
  readonly shape: readonly number[];
  readonly dtype: string;
  readonly constant: boolean;
  readonly data?: WireData;
}

export interface WireGraph {
  readonly name: string;
  readonly layout: Layout;
  /** In the graph's map order. */
  readonly tensors: readonly WireTensor[];
  /** Nodes as the IR holds them (op specs are plain JSON). */
  readonly nodes: readonly Node[];
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
}

/** A plan that passed the harness's verifier, for the records of `graphToProblem(graph, records)`. */
export interface WirePlan {
  readonly planner: string;
  readonly approach: 'offsets' | 'shared-objects';
  /** Bytes; the plan was made and verified with it. */
  readonly alignment: number;
  /** What the plan claims (bytes); the agent's verifier recomputes it. */
  readonly footprint: number;
  /** Record ids in the problem's order: the agent checks it derives the same records. */
  readonly records: readonly string[];
  /** Offsets approach: one per record. */
  readonly offsets?: readonly number[];
  /** Shared-objects approach: object per record and object sizes. */
  readonly objects?: { readonly ids: readonly number[]; readonly sizes: readonly number[] };
}

/** The wire form of a verified plan for `problem`, made with `alignment`. */
export function wirePlan(verified: VerifiedResult, problem: Problem, alignment: number): WirePlan {
  return {
    planner: verified.planner,
    approach: verified.approach,
    alignment,
    footprint: verified.footprint,
    records: problem.records.map((r) => r.id),
    ...(verified.objects === undefined ? { offsets: verified.offsets } : { objects: verified.objects }),
  };
}

export interface WireRunOptions {
  /** Backend kind on the agent (`cpu`, `webgpu`, ...). */
  readonly backend: string;
  readonly repetitions: number;
  readonly warmup: number;
  /** Seed of the inputs and of the latency bootstrap (the weights travel in the graph). */
  readonly seed: number;
  /** Also run inside the naive plan and compare outputs bit for bit. */
  readonly verifyByExecution: boolean;
  /** Threads of a pool backend (cpu-parallel); absent: the agent's number of cores. */
  readonly workers?: number;
  /** A browser that joined the agent as a device (backend `browser`): the job runs there. */
  readonly device?: string;
}

export interface JobRequest {
  readonly protocol: number;
  readonly graph: WireGraph;
  readonly records: RecordOptions;
  readonly plan: WirePlan;
  readonly run: WireRunOptions;
}

/** What the agent's machine is, beside what its backend says. */
export interface AgentDevice {
  readonly hostname: string;
  readonly os: { readonly platform: string; readonly type: string; readonly release: string; readonly version: string; readonly arch: string };
  readonly cpu: { readonly model: string; readonly cores: number };
  readonly memoryBytes: number;
  readonly node: string;
  readonly endianness: 'LE' | 'BE';
  /** Each backend the agent serves, with the alignment its plans need and what its device() says. */
  readonly backends: readonly { readonly kind: string; readonly requiredAlignment: number; readonly device: DeviceInfo }[];
  /** The WebGPU backend's device() (adapter info) when the agent serves it. */
  readonly gpu?: DeviceInfo;
}

export interface AgentLimits {
  readonly maxJobBytes: number;
  readonly maxRunSeconds: number;
}

export interface AgentCounters {
  /** Jobs handed to a job process. */
  readonly started: number;
  readonly completed: number;
  /** Abandoned at the run-time cap (504). */
  readonly timedOut: number;
  /** Abandoned because the client went away. */
  readonly abandoned: number;
  /** Failed inside the job process (500). */
  readonly failed: number;
}

/** A browser connected to the agent's device page (`memplan agent --devices`). */
export interface WireDevice {
  readonly id: string;
  readonly name: string;
  /** Its WebGPU adapter, or `no WebGPU` (then `error` says why; it takes no jobs). */
  readonly adapter: string;
  readonly software: boolean | null;
  /** Plans for it are made with this offset alignment; null without WebGPU. */
  readonly requiredAlignment: number | null;
  readonly userAgent: string;
  readonly address: string;
  /** ISO time. */
  readonly joinedAt: string;
  readonly busy: boolean;
  /** Jobs it finished. */
  readonly jobs: number;
  readonly info?: DeviceInfo;
  readonly error?: string;
}

export interface InfoResponse {
  readonly protocol: number;
  readonly agent: string;
  readonly device: AgentDevice;
  readonly limits: AgentLimits;
  readonly jobs: AgentCounters;
  /** With --devices: the browsers connected now. */
  readonly devices?: readonly WireDevice[];
}

export interface JobResponse {
  readonly protocol: number;
  /** execute's report, as measured on the agent (device: the backend's device()). */
  readonly report: ExecuteReport;
  readonly device: AgentDevice;
}

export interface ErrorResponse {
  readonly protocol: number;
  /** One sentence. */
  readonly error: string;
}

// ---------------------------------------------------------------------------------------
// Typed arrays

const ARRAY_KINDS: readonly { kind: TypedArrayKind; width: number; make: (buffer: ArrayBuffer) => ArrayBufferView; is: (v: ArrayBufferView) => boolean }[] = [
  { kind: 'Float32Array', width: 4, make: (b) => new Float32Array(b), is: (v) => v instanceof Float32Array },
  { kind: 'Float64Array', width: 8, make: (b) => new Float64Array(b), is: (v) => v instanceof Float64Array },
  { kind: 'Int8Array', width: 1, make: (b) => new Int8Array(b), is: (v) => v instanceof Int8Array },
  { kind: 'Uint8Array', width: 1, make: (b) => new Uint8Array(b), is: (v) => v instanceof Uint8Array },
  { kind: 'Uint8ClampedArray', width: 1, make: (b) => new Uint8ClampedArray(b), is: (v) => v instanceof Uint8ClampedArray },
  { kind: 'Int16Array', width: 2, make: (b) => new Int16Array(b), is: (v) => v instanceof Int16Array },
  { kind: 'Uint16Array', width: 2, make: (b) => new Uint16Array(b), is: (v) => v instanceof Uint16Array },
  { kind: 'Int32Array', width: 4, make: (b) => new Int32Array(b), is: (v) => v instanceof Int32Array },
  { kind: 'Uint32Array', width: 4, make: (b) => new Uint32Array(b), is: (v) => v instanceof Uint32Array },
  { kind: 'BigInt64Array', width: 8, make: (b) => new BigInt64Array(b), is: (v) => v instanceof BigInt64Array },
  { kind: 'BigUint64Array', width: 8, make: (b) => new BigUint64Array(b), is: (v) => v instanceof BigUint64Array },
  // A DataView has no element order of its own: its bytes travel as they are.
  { kind: 'DataView', width: 1, make: (b) => new DataView(b), is: (v) => v instanceof DataView },
];

/** Reverses the bytes of every `width`-byte element in place. */
function swapBytes(bytes: Uint8Array, width: number): void {
  for (let at = 0; at + width <= bytes.length; at += width) {
    for (let a = at, b = at + width - 1; a < b; a++, b--) {
      const t = bytes[a];
      bytes[a] = bytes[b];
      bytes[b] = t;
    }
  }
}

export function encodeTypedArray(view: ArrayBufferView, what: string): WireData {
  const entry = ARRAY_KINDS.find((k) => k.is(view));
  if (entry === undefined) throw new WireError(`${what} is held in a ${view.constructor.name}, which the wire format does not carry.`);
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  if (BIG_ENDIAN && entry.width > 1) {
    const copy = bytes.slice();
    swapBytes(copy, entry.width);
    return { array: entry.kind, base64: bytesToBase64(copy) };
  }
  return { array: entry.kind, base64: bytesToBase64(bytes) };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function decodeTypedArray(value: unknown, what: string): ArrayBufferView {
  const data = object(value, what);
  noStrangers(data, ['array', 'base64'], what);
  const entry = ARRAY_KINDS.find((k) => k.kind === data.array);
  if (entry === undefined) throw new WireError(`${what}.array is ${JSON.stringify(data.array)}; expected one of ${ARRAY_KINDS.map((k) => k.kind).join(', ')}.`);
  if (typeof data.base64 !== 'string' || data.base64.length % 4 !== 0 || !BASE64.test(data.base64)) {
    throw new WireError(`${what}.base64 is not base64 text.`);
  }
  const bytes = base64ToBytes(data.base64);
  if (bytes.length % entry.width !== 0) throw new WireError(`${what} has ${bytes.length} bytes, not a whole number of ${entry.kind} elements.`);
  if (BIG_ENDIAN && entry.width > 1) swapBytes(bytes, entry.width);
  return entry.make(bytes.buffer);
}

// ---------------------------------------------------------------------------------------
// Graphs

export function encodeGraph(graph: Graph): WireGraph {
  return {
    name: graph.name,
    layout: graph.layout,
    tensors: [...graph.tensors.values()].map((t) => ({
      name: t.name,
      shape: [...t.shape],
      dtype: t.dtype,
      constant: t.constant,
      ...(t.data === undefined ? {} : { data: encodeTypedArray(t.data, `constant ${t.name}`) }),
    })),
    nodes: graph.nodes,
    inputs: graph.inputs,
    outputs: graph.outputs,
  };
}

type FieldKind = 'int' | 'positive' | 'number' | 'boolean' | 'activation' | 'padding' | 'pair' | 'ints' | 'pads' | 'weightLayout' | 'resizeMode' | 'gelu' | 'order' | 'schedule';

/** Every op's fields beside name, op, inputs and outputs (ir.ts OpSpec): nothing else is taken. */
const OP_FIELDS: Readonly<Record<Node['op'], Readonly<Record<string, FieldKind>>>> = {
  Conv: {
    kernel: 'pair',
    strides: 'pair',
    dilations: 'pair',
    padding: 'padding',
    groups: 'positive',
    outChannels: 'positive',
    weightLayout: 'weightLayout',
    activation: 'activation',
  },
  FullyConnected: { outFeatures: 'positive', activation: 'activation', keepDims: 'boolean' },
  MatMul: {},
  Gemm: { transA: 'boolean', transB: 'boolean', alpha: 'number', beta: 'number' },
  Add: { activation: 'activation' },
  Mul: { activation: 'activation' },
  Concat: { axis: 'int', activation: 'activation' },
  AveragePool: { kernel: 'pair', strides: 'pair', padding: 'padding', activation: 'activation' },
  MaxPool: { kernel: 'pair', strides: 'pair', padding: 'padding', activation: 'activation' },
  GlobalAveragePool: {},
  Mean: { axes: 'ints', keepDims: 'boolean' },
  Pad: { pads: 'pads' },
  Reshape: { shape: 'ints' },
  Flatten: { axis: 'int' },
  Squeeze: { axes: 'ints' },
  Softmax: { axis: 'int', beta: 'number' },
  Resize: { mode: 'resizeMode', size: 'pair', alignCorners: 'boolean', halfPixelCenters: 'boolean' },
  Relu: {},
  Relu6: {},
  Sigmoid: {},
  Tanh: {},
  Dequantize: {},
  // A Gather of a table slice (`rows`) is made by weight slicing inside a budgeted run and never crosses the wire.
  Gather: { axis: 'int' },
  LayerNormalization: { axis: 'int', epsilon: 'number' },
  Gelu: { approximate: 'gelu' },
  Transpose: { perm: 'ints' },
  Slice: { axes: 'ints', starts: 'ints', ends: 'ints' },
  CausalMask: {},
};

const ACTIVATIONS: readonly Activation[] = ['none', 'relu', 'relu6', 'relu-n1-to-1', 'sigmoid', 'tanh'];

function decodeField(kind: FieldKind, value: unknown, what: string): unknown {
  const fail = (expected: string): never => {
    throw new WireError(`${what} must be ${expected}, got ${short(value)}.`);
  };
  const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
  switch (kind) {
    case 'int':
      return isInt(value) ? value : fail('a whole number');
    case 'positive':
      return isInt(value) && value >= 1 ? value : fail('a whole number >= 1');
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : fail('a number');
    case 'boolean':
      return typeof value === 'boolean' ? value : fail('true or false');
    case 'activation':
      return ACTIVATIONS.includes(value as Activation) ? value : fail(`one of ${ACTIVATIONS.join(', ')}`);
    case 'weightLayout':
      return value === 'OHWI' || value === '1HWO' || value === 'OIHW' ? value : fail('OHWI, 1HWO or OIHW');
    case 'resizeMode':
      return value === 'bilinear' || value === 'nearest' ? value : fail('bilinear or nearest');
    case 'gelu':
      return value === 'none' || value === 'tanh' ? value : fail('none or tanh');
    case 'order':
      return OPERATOR_ORDERS.includes(value as OperatorOrder) ? value : fail(OPERATOR_ORDERS.join(' or '));
    case 'schedule':
      return parseSchedule(value) ?? fail(SCHEDULE_FORMS);
    case 'pair':
      return Array.isArray(value) && value.length === 2 && value.every((v) => isInt(v) && v >= 1) ? [value[0], value[1]] : fail('two whole numbers >= 1');
    case 'ints':
      return Array.isArray(value) && value.every(isInt) ? [...value] : fail('an array of whole numbers');
    case 'pads':
      return Array.isArray(value) && value.every((p) => Array.isArray(p) && p.length === 2 && p.every(isInt))
        ? value.map((p: number[]) => [p[0], p[1]])
        : fail('an array of [before, after] pairs of whole numbers');
    case 'padding': {
      const padding = object(value, what);
      if (padding.kind === 'same' || padding.kind === 'valid') {
        noStrangers(padding, ['kind'], what);
        return { kind: padding.kind } satisfies Padding;
      }
      if (padding.kind !== 'explicit') fail('{ kind: same | valid | explicit }');
      noStrangers(padding, ['kind', 'pads'], what);
      const pads = padding.pads;
      if (!Array.isArray(pads) || pads.length !== 4 || !pads.every((p) => isInt(p) && p >= 0)) {
        throw new WireError(`${what}.pads must be four whole numbers >= 0 [top, left, bottom, right].`);
      }
      return { kind: 'explicit', pads: [pads[0], pads[1], pads[2], pads[3]] } satisfies Padding;
    }
  }
}

function decodeNode(value: unknown, index: number): Node {
  const raw = object(value, `graph.nodes[${index}]`);
  const name = typeof raw.name === 'string' && raw.name !== '' ? raw.name : undefined;
  const where = name === undefined ? `graph.nodes[${index}]` : `node ${name}`;
  if (name === undefined) throw new WireError(`${where}.name must be a non-empty string.`);
  const op = raw.op as Node['op'];
  if (typeof op !== 'string' || !Object.hasOwn(OP_FIELDS, op)) {
    throw new WireError(`${where} has op ${short(raw.op)}, which this agent does not know; it knows ${Object.keys(OP_FIELDS).join(', ')}.`);
  }
  const fields = OP_FIELDS[op];
  noStrangers(raw, ['name', 'op', 'inputs', 'outputs', ...Object.keys(fields)], where);
  const node: Record<string, unknown> = { name, op };
  for (const [field, kind] of Object.entries(fields)) node[field] = decodeField(kind, raw[field], `${where} (${op}).${field}`);
  node.inputs = strings(raw.inputs, `${where}.inputs`, true);
  node.outputs = strings(raw.outputs, `${where}.outputs`, false);
  if ((node.outputs as string[]).length === 0) throw new WireError(`${where} has no outputs.`);
  return node as Node;
}

/**
 * The structure of a graph from the wire: every field typed and checked, nothing taken
 * that the IR does not have. Shapes and references are checked by checkGraph (check-job.ts).
 */
export function decodeGraph(value: unknown): Graph {
  const raw = object(value, 'graph');
  noStrangers(raw, ['name', 'layout', 'tensors', 'nodes', 'inputs', 'outputs'], 'graph');
  if (typeof raw.name !== 'string') throw new WireError('graph.name must be a string.');
  if (raw.layout !== 'NHWC' && raw.layout !== 'NCHW') throw new WireError(`graph.layout must be NHWC or NCHW, got ${short(raw.layout)}.`);
  if (!Array.isArray(raw.tensors)) throw new WireError('graph.tensors must be an array.');
  if (!Array.isArray(raw.nodes)) throw new WireError('graph.nodes must be an array.');
  const tensors = new Map<string, Tensor>();
  raw.tensors.forEach((entry: unknown, index: number) => {
    const t = object(entry, `graph.tensors[${index}]`);
    noStrangers(t, ['name', 'shape', 'dtype', 'constant', 'data'], `graph.tensors[${index}]`);
    if (typeof t.name !== 'string' || t.name === '') throw new WireError(`graph.tensors[${index}].name must be a non-empty string.`);
    const where = `tensor ${t.name}`;
    if (tensors.has(t.name)) throw new WireError(`${where} is listed twice.`);
    if (!Array.isArray(t.shape) || !t.shape.every((d) => typeof d === 'number' && Number.isSafeInteger(d) && d >= 0)) {
      throw new WireError(`${where} has shape ${short(t.shape)}; a shape is an array of whole numbers >= 0.`);
    }
    if (typeof t.dtype !== 'string' || !isDType(t.dtype)) throw new WireError(`${where} has element type ${short(t.dtype)}, which the IR does not know.`);
    if (typeof t.constant !== 'boolean') throw new WireError(`${where}.constant must be true or false.`);
    if (t.data !== undefined && !t.constant) throw new WireError(`${where} carries values but is not a constant.`);
    const tensor: Tensor = {
      name: t.name,
      shape: [...t.shape],
      dtype: t.dtype,
      constant: t.constant,
      ...(t.data === undefined ? {} : { data: decodeTypedArray(t.data, `${where}.data`) }),
    };
    tensors.set(t.name, tensor);
  });
  return {
    name: raw.name,
    layout: raw.layout,
    tensors,
    nodes: raw.nodes.map(decodeNode),
    inputs: strings(raw.inputs, 'graph.inputs', false),
    outputs: strings(raw.outputs, 'graph.outputs', false),
  };
}

// ---------------------------------------------------------------------------------------
// Jobs

export interface Job {
  readonly graph: Graph;
  readonly records: RecordOptions;
  readonly plan: DecodedPlan;
  readonly run: WireRunOptions;
}

export interface DecodedPlan {
  readonly planner: string;
  readonly alignment: number;
  readonly records: readonly string[];
  readonly plan: Plan;
}

export function encodeJob(job: { graph: Graph; records: RecordOptions; plan: WirePlan; run: WireRunOptions }): string {
  const request: JobRequest = { protocol: PROTOCOL_VERSION, graph: encodeGraph(job.graph), records: job.records, plan: job.plan, run: job.run };
  return JSON.stringify(request);
}

/** How the job decoder checks each record option (graph/record-option-fields.ts's one table). */
const RECORD_FIELD_CHECK: Readonly<Record<RecordOptionKind, FieldKind>> = { boolean: 'boolean', size: 'positive', order: 'order', schedule: 'schedule' };
const RECORD_FIELDS = Object.keys(RECORD_OPTION_FIELDS) as (keyof RecordOptions)[];

/**
 * The record options a job carries: only RecordOptions' own fields (callers may pass a wider
 * object, as the CLI's source options), without the element size, which execution fixes at 4.
 */
export function jobRecordOptions(options: RecordOptions = {}): RecordOptions {
  const picked: Record<string, unknown> = {};
  for (const key of RECORD_FIELDS) {
    if (key !== 'elementSize' && options[key] !== undefined) picked[key] = options[key];
  }
  // The default schedule is left out: an agent from before schedules (same protocol) takes
  // the job as it always did, and refuses only a job that needs one (an unknown field).
  if (picked.schedule === 'sequential') delete picked.schedule;
  return picked as RecordOptions;
}

/** Limits the agent puts on what a job may ask for. */
export const MAX_REPETITIONS = 1_000_000;
export const MAX_WORKERS = 1024;

/** Parses and structurally checks a job body (a protocol mismatch is named before anything else). */
export function decodeJob(text: string): Job {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new WireError(`the job is not valid JSON (${(error as Error).message.replace(/\.$/, '')}).`);
  }
  const root = object(data, 'the job');
  checkProtocol(root.protocol, 'the job');
  noStrangers(root, ['protocol', 'graph', 'records', 'plan', 'run'], 'the job');

  const records: Record<string, unknown> = {};
  if (root.records !== undefined) {
    const given = object(root.records, 'records');
    noStrangers(given, RECORD_FIELDS, 'records');
    for (const [key, value] of Object.entries(given)) records[key] = decodeField(RECORD_FIELD_CHECK[RECORD_OPTION_FIELDS[key as keyof RecordOptions]], value, `records.${key}`);
  }

  const run = object(root.run, 'run');
  noStrangers(run, ['backend', 'repetitions', 'warmup', 'seed', 'verifyByExecution', 'workers', 'device'], 'run');
  if (run.device !== undefined && (typeof run.device !== 'string' || !/^[A-Za-z0-9_-]{1,40}$/.test(run.device)))
    throw new WireError(`run.device must name a device (letters, digits, - and _), got ${short(run.device)}.`);
  if (typeof run.backend !== 'string' || run.backend === '') throw new WireError('run.backend must name a backend.');
  const whole = (value: unknown, what: string, min: number, max: number): number => {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) throw new WireError(`${what} must be a whole number from ${min} to ${max}, got ${short(value)}.`);
    return value;
  };
  const runOptions: WireRunOptions = {
    backend: run.backend,
    repetitions: whole(run.repetitions, 'run.repetitions', 1, MAX_REPETITIONS),
    warmup: whole(run.warmup, 'run.warmup', 0, MAX_REPETITIONS),
    seed: whole(run.seed, 'run.seed', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
    verifyByExecution: decodeField('boolean', run.verifyByExecution, 'run.verifyByExecution') as boolean,
    ...(run.workers === undefined ? {} : { workers: whole(run.workers, 'run.workers', 1, MAX_WORKERS) }),
    ...(run.device === undefined ? {} : { device: run.device as string }),
  };

  return { graph: decodeGraph(root.graph), records: records as RecordOptions, plan: decodePlan(root.plan), run: runOptions };
}

function byteCounts(value: unknown, what: string): number[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0)) {
    throw new WireError(`${what} must be an array of whole numbers >= 0.`);
  }
  return value as number[];
}

function decodePlan(value: unknown): DecodedPlan {
  const raw = object(value, 'plan');
  noStrangers(raw, ['planner', 'approach', 'alignment', 'footprint', 'records', 'offsets', 'objects'], 'plan');
  if (typeof raw.planner !== 'string' || raw.planner === '') throw new WireError('plan.planner must name the planner.');
  const alignment = raw.alignment;
  if (typeof alignment !== 'number' || !Number.isSafeInteger(alignment) || alignment < 1) throw new WireError(`plan.alignment must be a whole number of bytes >= 1, got ${short(alignment)}.`);
  const footprint = raw.footprint;
  if (typeof footprint !== 'number' || !Number.isSafeInteger(footprint) || footprint < 0) throw new WireError(`plan.footprint must be a whole number of bytes >= 0, got ${short(footprint)}.`);
  const records = strings(raw.records, 'plan.records', false);
  let plan: Plan;
  if (raw.approach === 'offsets') {
    if (raw.objects !== undefined) throw new WireError('plan.objects is for shared-objects plans; this plan computes offsets.');
    plan = { approach: 'offsets', offsets: byteCounts(raw.offsets, 'plan.offsets'), footprint };
  } else if (raw.approach === 'shared-objects') {
    if (raw.offsets !== undefined) throw new WireError('plan.offsets is for offsets plans; a shared-objects plan gives plan.objects.');
    const objects = object(raw.objects, 'plan.objects');
    noStrangers(objects, ['ids', 'sizes'], 'plan.objects');
    plan = { approach: 'shared-objects', objectIds: byteCounts(objects.ids, 'plan.objects.ids'), objectSizes: byteCounts(objects.sizes, 'plan.objects.sizes'), footprint };
  } else {
    throw new WireError(`plan.approach must be offsets or shared-objects, got ${short(raw.approach)}.`);
  }
  return { planner: raw.planner, alignment, records, plan };
}

// ---------------------------------------------------------------------------------------
// Responses (read by the client; the agent writes them with JSON.stringify)

/** A response body from the agent: its protocol checked, its shape checked. */
export function decodeInfo(text: string): InfoResponse {
  const root = parseResponse(text);
  const device = object(root.device, 'the agent info device');
  const limits = object(root.limits, 'the agent info limits');
  if (!Array.isArray(device.backends)) throw new WireError('the agent info lists no backends.');
  for (const key of ['maxJobBytes', 'maxRunSeconds']) {
    if (typeof limits[key] !== 'number') throw new WireError(`the agent info has no limits.${key}.`);
  }
  return root as unknown as InfoResponse;
}

export function decodeJobResponse(text: string): JobResponse {
  const root = parseResponse(text);
  const report = object(root.report, 'the job response report');
  const shape: Record<string, string> = { backend: 'string', planner: 'string', footprint: 'number', latencyMs: 'object', memory: 'object', device: 'object' };
  for (const [key, type] of Object.entries(shape)) {
    if (typeof report[key] !== type || report[key] === null) throw new WireError(`the job response report has no ${key}.`);
  }
  // The deprecated alias of memory.peakRss: null with it where the device cannot measure it.
  if (typeof report.peakRssBytes !== 'number' && report.peakRssBytes !== null) throw new WireError('the job response report has no peakRssBytes.');
  const memory = report.memory as Record<string, unknown>;
  // Figures a device cannot measure (a browser page has no RSS) are null, and listed as unavailable.
  const unavailable = Array.isArray(memory.unavailable) ? (memory.unavailable as unknown[]) : [];
  for (const key of ['planned', 'intermediates', 'io', 'weights', 'scratch', 'baselineRss', 'peakRss', 'peakRssDelta', 'rest']) {
    if (typeof memory[key] !== 'number' && !(memory[key] === null && unavailable.includes(key))) throw new WireError(`the job response report's memory has no ${key}.`);
  }
  if (report.matchesNaive !== null && typeof report.matchesNaive !== 'boolean') throw new WireError('the job response report has no matchesNaive.');
  if (report.deviceMs !== undefined && (typeof report.deviceMs !== 'object' || report.deviceMs === null)) throw new WireError('the job response report has a deviceMs that is not an object.');
  object(root.device, 'the job response device');
  return root as unknown as JobResponse;
}

/** The sentence of an error body, when the body is one. */
export function errorSentence(text: string): string | undefined {
  try {
    const data = JSON.parse(text) as unknown;
    if (data !== null && typeof data === 'object' && typeof (data as ErrorResponse).error === 'string') return (data as ErrorResponse).error;
  } catch {
    // not JSON: no sentence
  }
  return undefined;
}

function parseResponse(text: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new WireError('the agent answered with something that is not JSON; is that address a memplan agent?');
  }
  const root = object(data, 'the agent answer');
  checkProtocol(root.protocol, 'the agent answer');
  return root;
}

function checkProtocol(protocol: unknown, what: string): void {
  if (protocol !== PROTOCOL_VERSION) {
    throw new WireError(
      protocol === undefined
        ? `${what} gives no protocol version; this side speaks protocol ${PROTOCOL_VERSION}.`
        : `${what} is protocol ${short(protocol)} but this side speaks protocol ${PROTOCOL_VERSION}; run the same memplan version on both sides.`,
    );
  }
}

// ---------------------------------------------------------------------------------------
// Helpers

function object(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new WireError(`${what} must be a JSON object.`);
  return value as Record<string, unknown>;
}

function noStrangers(value: Record<string, unknown>, allowed: readonly string[], what: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw new WireError(`${what} has an unknown field "${key}"; expected ${allowed.join(', ')}.`);
  }
}

function strings(value: unknown, what: string, allowEmpty: boolean): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && (allowEmpty || v !== ''))) {
    throw new WireError(`${what} must be an array of ${allowEmpty ? '' : 'non-empty '}tensor names.`);
  }
  return [...value];
}

function short(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
