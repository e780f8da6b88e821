import * as z from 'zod';
import { DTYPE_BYTES, type DType } from '../graph/dtype.ts';
import type { Activation, Node } from '../graph/ir.ts';
import { OPERATOR_ORDERS } from '../graph/lifetimes.ts';
import { RECORD_OPTION_FIELDS, type RecordOptionKind } from '../graph/record-option-fields.ts';
import { parseSchedule, SCHEDULE_FORMS, type Schedule } from '../graph/schedule.ts';
import { OF_OWNER, short } from './wire-problem.ts';

/**
 * The agent's wire messages as zod schemas: the job (graph, record options, plan, run
 * options) and the agent's two answers. One definition of what each message may hold, with
 * the sentence a peer reads when it does not (wire-problem.ts names the field: `run.seed`,
 * `node conv1 (Conv).kernel`). A job's messages say the rest of a sentence (`must be ...,
 * got <value>.`); the answers', read in one place each, are whole sentences.
 *
 * What a schema cannot say stays in wire.ts: the protocol version (named before anything
 * else, so it is checked first), base64 decoding and the byte count of the decoded values;
 * check-job.ts has what depends on the agent (backends served, memory, the verifier).
 * A job's objects take no field they do not list (`__proto__` and `constructor` included),
 * and its numbers, strings and lists have their bounds here.
 */

/** Limits the agent puts on what a job may ask for. */
export const MAX_REPETITIONS = 1_000_000;
export const MAX_WORKERS = 1024;

/** The typed arrays a constant's values travel in (wire.ts makes each back). */
export const TYPED_ARRAY_KINDS = [
  'Float32Array',
  'Float64Array',
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'BigInt64Array',
  'BigUint64Array',
  'DataView',
] as const;
export type TypedArrayKind = (typeof TYPED_ARRAY_KINDS)[number];

// ---------------------------------------------------------------------------------------
// The pieces

type Message = string | ((issue: z.core.$ZodRawIssue) => string);
const said = (message: Message) => ({ error: message });
/** `<what is wanted>, got <the value>.` */
const gotten =
  (wanted: string): Message =>
  (issue) =>
    `${wanted}, got ${short(issue.input)}.`;
/** `must be <expected>, got <the value>.` */
const must = (expected: string) => said(gotten(`must be ${expected}`));

/** An object that takes only `shape`'s fields; an unknown one is named with `expected`, the fields in the order the format lists them. */
function wireObject<T extends z.core.$ZodLooseShape>(shape: T, expected: readonly string[] = Object.keys(shape)) {
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `has an unknown field "${issue.keys[0]}"; expected ${expected.join(', ')}.` : 'must be a JSON object.'),
  });
}

/** An array of `item`s (of `length` where given), judged whole: a wrong element makes a wrong list, named as the list (`got [3]`). */
function listOf<T extends z.ZodType>(item: T, message: Message, length?: number) {
  return z.custom<z.output<T>[]>((v) => Array.isArray(v) && (length === undefined || v.length === length) && v.every((x) => item.safeParse(x).success), { error: message, abort: true });
}

/** An array, taken as it is (zod's array of unknown would copy a list of millions to check nothing). */
const anArray = z.custom<unknown[]>((v) => Array.isArray(v), { error: 'must be an array.', abort: true });

/**
 * A list of `item`s, checked in order and no further than the first that is not one, whose
 * problems are then the list's (at its index). zod's array would check every item: a job of
 * millions of broken nodes would cost an issue each (gigabytes), where the hand checks stopped
 * at the first, and this does.
 */
function itemsOf<T extends z.ZodType>(item: T) {
  return anArray.transform((items, ctx) => {
    const checked: z.output<T>[] = [];
    for (const [index, value] of items.entries()) {
      const result = item.safeParse(value);
      if (!result.success) {
        for (const issue of result.error.issues) ctx.issues.push({ ...issue, input: undefined, path: [index, ...issue.path] } as z.core.$ZodRawIssue);
        return z.NEVER;
      }
      checked.push(result.data);
    }
    return checked;
  });
}

const int = z.number().int();
const wholeFrom = (min: number) => int.min(min);
/** A whole number from `min` to `max` (safe integers only), each failure in the one sentence. */
function wholeIn(min: number, max: number, expected = `a whole number from ${min} to ${max}`) {
  const message = must(expected);
  return z.number(message).int(message).min(min, message).max(max, message);
}
const nonEmpty = (message: string) => z.string(said(message)).min(1, said(message));
/** Tensor names: a node's inputs may be '' (an optional input left out), no other list's. */
const names = (allowEmpty: boolean) => listOf(allowEmpty ? z.string() : z.string().min(1), `must be an array of ${allowEmpty ? '' : 'non-empty '}tensor names.`).transform((v) => [...v]);

const ACTIVATIONS = ['none', 'relu', 'relu6', 'relu-n1-to-1', 'sigmoid', 'tanh'] as const satisfies readonly Activation[];

/** Padding: same, valid, or explicit with its four pads. */
const padding = z.discriminatedUnion(
  'kind',
  [
    wireObject({ kind: z.literal('same') }),
    wireObject({ kind: z.literal('valid') }),
    wireObject({
      kind: z.literal('explicit'),
      pads: listOf(wholeFrom(0), 'must be four whole numbers >= 0 [top, left, bottom, right].', 4).transform((p) => [p[0], p[1], p[2], p[3]] as [number, number, number, number]),
    }),
  ],
  { error: (issue) => (issue.code === 'invalid_union' ? `${OF_OWNER}must be { kind: same | valid | explicit }, got ${short(issue.input)}.` : 'must be a JSON object.') },
);

/** The kinds of value an op's fields and the record options take (the IR's, ir.ts OpSpec). */
const FIELD = {
  int: wholeIn(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 'a whole number'),
  positive: wholeIn(1, Number.MAX_SAFE_INTEGER, 'a whole number >= 1'),
  number: z.number(must('a number')),
  boolean: z.boolean(must('true or false')),
  activation: z.enum(ACTIVATIONS, must(`one of ${ACTIVATIONS.join(', ')}`)),
  weightLayout: z.enum(['OHWI', '1HWO', 'OIHW'], must('OHWI, 1HWO or OIHW')),
  resizeMode: z.enum(['bilinear', 'nearest'], must('bilinear or nearest')),
  gelu: z.enum(['none', 'tanh'], must('none or tanh')),
  order: z.enum(OPERATOR_ORDERS, must(OPERATOR_ORDERS.join(' or '))),
  schedule: z.custom<Schedule>((v) => parseSchedule(v) !== undefined, { ...must(SCHEDULE_FORMS), abort: true }).transform((v) => parseSchedule(v) as Schedule),
  pair: listOf(wholeFrom(1), gotten('must be two whole numbers >= 1'), 2).transform((v) => [v[0], v[1]] as [number, number]),
  ints: listOf(int, gotten('must be an array of whole numbers')).transform((v) => [...v]),
  pads: listOf(z.tuple([int, int]), gotten('must be an array of [before, after] pairs of whole numbers')).transform((v) => v.map((p) => [p[0], p[1]] as [number, number])),
  padding,
} as const;
type FieldKind = keyof typeof FIELD;

// ---------------------------------------------------------------------------------------
// Graphs

/** Every op's fields beside name, op, inputs and outputs (ir.ts OpSpec): nothing else is taken, and each is required. */
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
const OPS = Object.keys(OP_FIELDS) as Node['op'][];

const nodeName = nonEmpty('must be a non-empty string.');

/** One op's node: its name, its op, its op's fields, its inputs and outputs (at least one). */
function opNode(op: Node['op']) {
  const fields = OP_FIELDS[op];
  const shape = Object.fromEntries(Object.entries(fields).map(([field, kind]) => [field, FIELD[kind]]));
  return wireObject(
    {
      name: nodeName,
      op: z.literal(op),
      ...shape,
      inputs: names(true),
      outputs: names(false).refine((outputs) => outputs.length > 0, `${OF_OWNER}has no outputs.`),
    },
    ['name', 'op', 'inputs', 'outputs', ...Object.keys(fields)],
  );
}

/**
 * A node: its name first (the name names the node in every later sentence), then the branch
 * of its op (an unknown op is named with the ops this agent knows). The first check hands on
 * the node itself, so that the op's strict branch sees every field the node has (a loose
 * object's copy would leave `__proto__` out).
 */
const node = z
  .custom<Record<string, unknown>>((v) => v !== null && typeof v === 'object' && !Array.isArray(v), { error: 'must be a JSON object.', abort: true })
  .superRefine((n, ctx) => {
    if (!nodeName.safeParse(n.name).success) ctx.addIssue({ code: 'custom', path: ['name'], input: n.name, message: 'must be a non-empty string.' });
  })
  .pipe(
    z.discriminatedUnion('op', OPS.map(opNode) as unknown as [ReturnType<typeof opNode>, ...ReturnType<typeof opNode>[]], {
      error: (issue) =>
        issue.code === 'invalid_union' ? `${OF_OWNER}has op ${short((issue.input as { op?: unknown }).op)}, which this agent does not know; it knows ${OPS.join(', ')}.` : 'must be a JSON object.',
    }),
  );

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A constant's values: the typed array that held them and their bytes, little-endian, as base64 text. */
export const wireDataSchema = wireObject({
  array: z.enum(
    TYPED_ARRAY_KINDS,
    said((issue) => `is ${JSON.stringify(issue.input)}; expected one of ${TYPED_ARRAY_KINDS.join(', ')}.`),
  ),
  base64: z.string(said('is not base64 text.')).refine((text) => text.length % 4 === 0 && BASE64.test(text), 'is not base64 text.'),
});

const tensor = wireObject({
  name: nonEmpty('must be a non-empty string.'),
  shape: listOf(wholeFrom(0), (issue) => `${OF_OWNER}has shape ${short(issue.input)}; a shape is an array of whole numbers >= 0.`).transform((v) => [...v]),
  dtype: z.enum(
    Object.keys(DTYPE_BYTES) as [DType, ...DType[]],
    said((issue) => `${OF_OWNER}has element type ${short(issue.input)}, which the IR does not know.`),
  ),
  constant: z.boolean(said('must be true or false.')),
  data: wireDataSchema.optional(),
}).superRefine((t, ctx) => {
  if (t.data !== undefined && !t.constant) ctx.addIssue({ code: 'custom', message: 'carries values but is not a constant.' });
});

const graphOwn = { name: z.string(said('must be a string.')), layout: z.enum(['NHWC', 'NCHW'], must('NHWC or NCHW')) };

/**
 * A graph as the IR holds it, its tensors in its map's order, each name once; shapes and
 * references are check-job.ts's. Its own fields, and that its tensors and nodes are lists,
 * come before what the lists hold.
 */
export const wireGraphSchema = (wireObject({ ...graphOwn, tensors: anArray, nodes: anArray, inputs: z.unknown().optional(), outputs: z.unknown().optional() }) as z.ZodType<unknown>).pipe(
  wireObject({
    ...graphOwn,
    tensors: itemsOf(tensor).superRefine((tensors, ctx) => {
      const seen = new Set<string>();
      tensors.forEach((t, k) => {
        if (seen.has(t.name)) ctx.addIssue({ code: 'custom', path: [k], message: 'is listed twice.' });
        seen.add(t.name);
      });
    }),
    nodes: itemsOf(node),
    inputs: names(false),
    outputs: names(false),
  }),
);

// ---------------------------------------------------------------------------------------
// Jobs

/** How each record option is checked (graph/record-option-fields.ts's one table). */
const RECORD_FIELD: Readonly<Record<RecordOptionKind, FieldKind>> = { boolean: 'boolean', size: 'positive', order: 'order', schedule: 'schedule' };

/** The record options the plan was made with: every option of the one table, each optional. */
const records = wireObject(Object.fromEntries(Object.entries(RECORD_OPTION_FIELDS).map(([key, kind]) => [key, FIELD[RECORD_FIELD[kind]].optional()])));

const DEVICE_ID = /^[A-Za-z0-9_-]{1,40}$/;
const device = gotten('must name a device (letters, digits, - and _)');

const run = wireObject(
  {
    device: z.string(said(device)).regex(DEVICE_ID, said(device)).optional(),
    backend: nonEmpty('must name a backend.'),
    repetitions: wholeIn(1, MAX_REPETITIONS),
    warmup: wholeIn(0, MAX_REPETITIONS),
    seed: wholeIn(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
    verifyByExecution: FIELD.boolean,
    workers: wholeIn(1, MAX_WORKERS).optional(),
  },
  ['backend', 'repetitions', 'warmup', 'seed', 'verifyByExecution', 'workers', 'device'],
);

const byteCounts = listOf(wholeFrom(0), 'must be an array of whole numbers >= 0.');
const PLAN_FIELDS = ['planner', 'approach', 'alignment', 'footprint', 'records', 'offsets', 'objects'];
const planCommon = {
  planner: nonEmpty('must name the planner.'),
  alignment: wholeIn(1, Number.MAX_SAFE_INTEGER, 'a whole number of bytes >= 1'),
  footprint: wholeIn(0, Number.MAX_SAFE_INTEGER, 'a whole number of bytes >= 0'),
  records: names(false),
};
/** A field the other approach takes. */
const notHere = (message: string) => z.never(said(message)).optional();

/** A plan: its fields (none unknown) first, then what its approach takes (typed as what the second check gives). */
const plan = (wireObject({ ...planCommon, approach: z.unknown().optional(), offsets: z.unknown().optional(), objects: z.unknown().optional() }, PLAN_FIELDS) as z.ZodType<unknown>).pipe(
  z.discriminatedUnion(
    'approach',
    [
      wireObject({ ...planCommon, approach: z.literal('offsets'), objects: notHere('is for shared-objects plans; this plan computes offsets.'), offsets: byteCounts }, PLAN_FIELDS),
      wireObject(
        {
          ...planCommon,
          approach: z.literal('shared-objects'),
          offsets: notHere('is for offsets plans; a shared-objects plan gives plan.objects.'),
          objects: wireObject({ ids: byteCounts, sizes: byteCounts }),
        },
        PLAN_FIELDS,
      ),
    ],
    { error: (issue) => (issue.code === 'invalid_union' ? `must be offsets or shared-objects, got ${short((issue.input as { approach?: unknown }).approach)}.` : 'must be a JSON object.') },
  ),
);

/**
 * A job (JobRequest), its fields checked in the order they were always checked: record
 * options, run options, graph, plan. `protocol` is wire.ts's to check, before this schema.
 */
export const wireJobSchema = wireObject({ protocol: z.unknown(), records: records.optional(), run, graph: wireGraphSchema, plan }, ['protocol', 'graph', 'records', 'plan', 'run']);

export type WireGraphData = z.output<typeof wireGraphSchema>;

// ---------------------------------------------------------------------------------------
// The agent's answers (whole sentences: each is read in one place). They take fields they
// do not know, so that an agent may say more; the client reads only these.

/** An object in the sense the client has always taken: anything typeof 'object' but null. */
const anObject = (message: string) => z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null, { error: message, abort: true });

/** InfoResponse, its protocol checked (wire.ts): what the client reads of it. */
export const wireInfoSchema = z
  .looseObject({ device: z.looseObject({}, said('the agent info device must be a JSON object.')), limits: z.looseObject({}, said('the agent info limits must be a JSON object.')) })
  .pipe(
    z.looseObject({
      device: z.looseObject({ backends: z.array(z.unknown(), said('the agent info lists no backends.')) }),
      limits: z.looseObject({ maxJobBytes: z.number(said('the agent info has no limits.maxJobBytes.')), maxRunSeconds: z.number(said('the agent info has no limits.maxRunSeconds.')) }),
    }),
  );

const MEMORY_FIGURES = ['planned', 'intermediates', 'io', 'weights', 'scratch', 'baselineRss', 'peakRss', 'peakRssDelta', 'rest'] as const;
const hasNo = (key: string) => `the job response report has no ${key}.`;
const figure = (key: string) => `the job response report's memory has no ${key}.`;

/** A report's memory: every figure a number, or null where the device cannot measure it and `unavailable` lists it. */
const memory = z.looseObject(Object.fromEntries(MEMORY_FIGURES.map((key) => [key, z.number(said(figure(key))).nullable()])), said(hasNo('memory'))).superRefine((m, ctx) => {
  const unavailable: unknown[] = Array.isArray(m.unavailable) ? m.unavailable : [];
  const unlisted = MEMORY_FIGURES.find((key) => m[key] === null && !unavailable.includes(key));
  if (unlisted !== undefined) ctx.addIssue({ code: 'custom', path: [unlisted], message: figure(unlisted) });
});

/** JobResponse, its protocol checked (wire.ts): the report as execute gives it, and the agent's device. */
export const wireJobResponseSchema = z.looseObject({
  report: z.looseObject(
    {
      backend: z.string(said(hasNo('backend'))),
      planner: z.string(said(hasNo('planner'))),
      footprint: z.number(said(hasNo('footprint'))),
      latencyMs: anObject(hasNo('latencyMs')),
      memory,
      device: anObject(hasNo('device')),
      // The deprecated alias of memory.peakRss: null with it where the device cannot measure it.
      peakRssBytes: z.number(said(hasNo('peakRssBytes'))).nullable(),
      matchesNaive: z.boolean(said(hasNo('matchesNaive'))).nullable(),
      deviceMs: anObject('the job response report has a deviceMs that is not an object.').optional(),
    },
    said('the job response report must be a JSON object.'),
  ),
  device: z.looseObject({}, said('the job response device must be a JSON object.')),
});
