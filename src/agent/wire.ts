import type { Plan } from '../core/plans.ts';
import type { Problem } from '../core/problem.ts';
import type { VerifiedResult } from '../planners/plan-and-verify.ts';
import type * as z from 'zod';
import type { Graph, Layout, Node, Tensor } from '../graph/ir.ts';
import type { RecordOptions } from '../graph/lifetimes.ts';
import { RECORD_OPTION_FIELDS } from '../graph/record-option-fields.ts';
import type { ExecuteReport } from '../backends/execution-report.ts';
import type { DeviceInfo } from '../backends/backend.ts';
import { BackendError } from '../backends/backend-error.ts';
import { base64ToBytes, BIG_ENDIAN, bytesToBase64 } from './base64.ts';
import { short, wholeSentence, wireProblem, type WireRoot } from './wire-problem.ts';
import { type TypedArrayKind, type WireGraphData, wireDataSchema, wireGraphSchema, wireInfoSchema, wireJobResponseSchema, wireJobSchema } from './wire-schema.ts';

export { MAX_REPETITIONS, MAX_WORKERS, type TypedArrayKind } from './wire-schema.ts';

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
 * What each message may hold is its schema (wire-schema.ts); this file checks the protocol
 * first, makes the values (typed arrays from base64) and writes the messages.
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

export function decodeTypedArray(value: unknown, what: string): ArrayBufferView {
  const data = checked(wireDataSchema, value, { name: what });
  return typedArray(data.array, data.base64, what);
}

/** The values of base64 text the schema took, as the typed array `kind` (one of ARRAY_KINDS). */
function typedArray(kind: TypedArrayKind, base64: string, what: string): ArrayBufferView {
  const entry = ARRAY_KINDS.find((k) => k.kind === kind) as (typeof ARRAY_KINDS)[number];
  const bytes = base64ToBytes(base64);
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

/**
 * The structure of a graph from the wire: every field typed and checked, nothing taken
 * that the IR does not have (wire-schema.ts). Shapes and references are checked by
 * checkGraph (check-job.ts).
 */
export function decodeGraph(value: unknown): Graph {
  return graphFrom(checked(wireGraphSchema, value, 'graph'));
}

/** The graph a checked wire graph holds: tensors in a map in their order, constants' values decoded. */
function graphFrom(raw: WireGraphData): Graph {
  const tensors = new Map<string, Tensor>();
  for (const t of raw.tensors) {
    const tensor: Tensor = {
      name: t.name,
      shape: t.shape,
      dtype: t.dtype,
      constant: t.constant,
      ...(t.data === undefined ? {} : { data: typedArray(t.data.array, t.data.base64, `tensor ${t.name}.data`) }),
    };
    tensors.set(t.name, tensor);
  }
  return { name: raw.name, layout: raw.layout, tensors, nodes: raw.nodes as Node[], inputs: raw.inputs, outputs: raw.outputs };
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
  const job = checked(wireJobSchema, root, 'job');

  // The record options in the order the job gives them.
  const records: Record<string, unknown> = {};
  const given = job.records as Record<string, unknown> | undefined;
  if (given !== undefined) for (const key of Object.keys(root.records as object)) records[key] = given[key];

  const run = job.run;
  const runOptions: WireRunOptions = {
    backend: run.backend,
    repetitions: run.repetitions,
    warmup: run.warmup,
    seed: run.seed,
    verifyByExecution: run.verifyByExecution,
    ...(run.workers === undefined ? {} : { workers: run.workers }),
    ...(run.device === undefined ? {} : { device: run.device }),
  };

  const raw = job.plan;
  const plan: Plan =
    raw.approach === 'offsets'
      ? { approach: 'offsets', offsets: raw.offsets, footprint: raw.footprint }
      : { approach: 'shared-objects', objectIds: raw.objects.ids, objectSizes: raw.objects.sizes, footprint: raw.footprint };
  return { graph: graphFrom(job.graph), records: records as RecordOptions, plan: { planner: raw.planner, alignment: raw.alignment, records: raw.records, plan }, run: runOptions };
}

// ---------------------------------------------------------------------------------------
// Responses (read by the client; the agent writes them with JSON.stringify)

/** A response body from the agent: its protocol checked, its shape checked. */
export function decodeInfo(text: string): InfoResponse {
  const root = parseResponse(text);
  answer(wireInfoSchema, root);
  return root as unknown as InfoResponse;
}

export function decodeJobResponse(text: string): JobResponse {
  const root = parseResponse(text);
  answer(wireJobResponseSchema, root);
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

/** `value` as `schema` gives it, or the WireError of its first problem. */
function checked<T extends z.ZodType>(schema: T, value: unknown, where: WireRoot): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new WireError(wireProblem(result.error, value, where));
  return result.data;
}

/** Checks an answer of the agent against its schema, whose messages are whole sentences. */
function answer(schema: z.ZodType, value: unknown): void {
  const result = schema.safeParse(value);
  if (!result.success) throw new WireError(wholeSentence(result.error));
}
