import * as z from 'zod';
import { servedKinds } from '../backends/registry.ts';
import { APPROACHES, type Approach } from '../core/plans.ts';
import { OPERATOR_ORDERS } from '../graph/lifetimes.ts';
import { RECORD_OPTION_FIELDS, type RecordOptionKind } from '../graph/record-option-fields.ts';
import { parseSchedule, SCHEDULE_FORMS } from '../graph/schedule.ts';

/**
 * The experiment file's schema (`experiments/*.json`): what each field may hold, with the
 * sentence a user reads when it does not. zod, because one definition gives three things
 * that must agree: the check (`parseExperiment`), the TypeScript type of what was read, and
 * the JSON Schema editors use (`experiments/schema.json`, file-schema.ts). What needs more than the file to decide (a planner id in
 * the registry, a backend this build serves, rows among the planners) is config.ts's.
 */

/** The charts `memplan report` can draw of an experiment, and the units its tables can use. */
export const CHART_KINDS = ['footprint', 'scaling', 'latency', 'quality', 'memory'] as const;
export const UNITS = ['MiB', 'MB', 'KiB', 'bytes'] as const;

export const say = (sentence: string) => ({ error: sentence });
export const text = (description?: string) => {
  const s = z
    .string(say('must be a non-empty string.'))
    .min(1, say('must be a non-empty string.'))
    .refine((v) => v.trim() !== '', say('must be a non-empty string.'));
  return description === undefined ? s : s.meta({ description });
};
export const whole = (min: number) =>
  z
    .number(say(`must be a whole number >= ${min}.`))
    .int(say(`must be a whole number >= ${min}.`))
    .min(min, say(`must be a whole number >= ${min}.`));
export const flag = z.boolean(say('must be true or false.'));
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values, say(`must be one of ${values.join(', ')}.`));
export const nonEmptyList = <T extends z.ZodType>(item: T) => z.array(item, say('must be a non-empty array.')).min(1, say('must be a non-empty array.'));

/** An object that takes only `shape`'s fields; an unknown one is named with the fields it takes. */
export function fields<T extends z.ZodRawShape>(shape: T) {
  const expected = Object.keys(shape).join(', ');
  return z.strictObject(shape, { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown field; expected one of ${expected}.` : 'must be an object.') });
}

const RECORD_VALUE: Readonly<Record<RecordOptionKind, z.ZodType>> = {
  boolean: flag,
  size: whole(1),
  order: oneOf(OPERATOR_ORDERS),
  schedule: z.unknown().refine((v) => parseSchedule(v) !== undefined, { error: (issue) => `must be ${SCHEDULE_FORMS}; got ${JSON.stringify(issue.input)}.` }),
};

/**
 * The record options an experiment sets: every option of the one table but `scratch`, which
 * the executing backend plans itself, and `threads`, the split of `exec --threads` (a sweep's
 * cells run one thread each, or a schedule's steps on cpu-parallel).
 */
const JOB_ONLY: readonly string[] = ['scratch', 'threads'];
const records = fields(
  Object.fromEntries(
    Object.entries(RECORD_OPTION_FIELDS)
      .filter(([key]) => !JOB_ONLY.includes(key))
      .map(([key, kind]) => [key, RECORD_VALUE[kind].optional()]),
  ),
).meta({ description: 'How graphs become usage records (graph/lifetimes.ts RecordOptions); default: each tensor its own element size, no graph I/O.' });

const model = z.union(
  [
    text('A source: zoo:NAME[?params], synthetic:..., or a path (.tflite, .onnx, .csv, .json) relative to this file.'),
    fields({
      source: text('zoo:NAME[?params], synthetic:..., or a path relative to this file.'),
      label: text('Column heading in tables; default: the source without its prefix and extension.').optional(),
      optional: flag.meta({ description: 'A file that may be absent (e.g. ../shared traces): its cells are skipped with a note.' }).optional(),
    }),
  ],
  say('must be a source (a string) or an object.'),
);

const settings = {
  repetitions: whole(1).meta({ description: 'Timed inferences per cell (default 20).' }).optional(),
  warmup: whole(0).meta({ description: 'Inferences before timing (default 3).' }).optional(),
  rounds: whole(1)
    .meta({
      description:
        "Turns the cells of one network take on this backend (default 1): each turn measures every cell's plan afresh (a process, page or agent job of its own) for `repetitions` timed inferences, the order reversed every other turn; a cell's latency is over all its turns. Against a machine that drifts between cells.",
    })
    .optional(),
  peer: flag.meta({ description: 'Also time onnxruntime-node on the same network (local backends).' }).optional(),
  verifyByExecution: flag.meta({ description: 'Run inside the naive plan too and require bit-identical outputs (default true).' }).optional(),
};

/** The backends a file may name: no execution, each kind an experiment cell runs here, an agent. */
function backendObject() {
  const local = servedKinds().map((kind) =>
    fields({ kind: z.literal(kind), ...settings, ...(kind === 'cpu' ? { pinCore: flag.meta({ description: 'Pin each measured process to one core (Linux, taskset).' }).optional() } : {}) }),
  );
  const remote = fields({
    kind: z.literal('remote'),
    ...settings,
    url: text('http://host:port of a memplan agent.'),
    token: text("The agent's token (16 characters or more), or env:NAME to read it from the environment."),
    backend: text('The backend the agent runs the cells with (default cpu).').optional(),
    label: text('Names the device in results; default remote:<backend>@<host:port>.').optional(),
    timeoutSeconds: whole(1).meta({ description: "Seconds to wait for each cell's answer." }).optional(),
    device: text('A browser that joined the agent as a device (memplan list devices).').optional(),
  });
  const kinds = ['plan-only', ...servedKinds(), 'remote'];
  return z.discriminatedUnion('kind', [fields({ kind: z.literal('plan-only') }), ...local, remote], {
    error: (issue) =>
      issue.code === 'invalid_union' ? `"${String((issue.input as { kind?: unknown } | undefined)?.kind)}" is not available in this version; use one of ${kinds.join(', ')}.` : 'must be an object.',
  });
}

const report = fields({
  unit: oneOf(UNITS).meta({ description: 'Unit of the tables (default MiB).' }).optional(),
  rows: nonEmptyList(text()).meta({ description: 'Planner ids in the order table rows list them; default: the planners, in order.' }).optional(),
  reference: z
    .record(z.string(), z.record(z.string(), z.number(say('must be a number >= 0.')).min(0, say('must be a number >= 0.')), say('must be an object.')), say('must be an object.'))
    .meta({ description: 'Published values (in unit) printed beside ours: planner id -> model source -> value.' })
    .optional(),
  charts: nonEmptyList(oneOf(CHART_KINDS)).meta({ description: 'Charts memplan report draws (default footprint).' }).optional(),
});

/** The whole file, as written (defaults are config.ts's). */
export function experimentSchema() {
  return fields({
    $schema: z.string(say('must be a string.')).meta({ description: 'This schema, for editors: ./schema.json.' }).optional(),
    $comment: z.string(say('must be a string.')).meta({ description: 'Words for the reader; memplan ignores them.' }).optional(),
    name: text('Names the results folder: letters, digits, dots, dashes or underscores.').refine(
      (v) => /^[a-z0-9][a-z0-9._-]*$/i.test(v),
      say('must be letters, digits, dots, dashes or underscores (it names a results folder).'),
    ),
    title: text('Title of the report; default the name.').optional(),
    approach: oneOf(APPROACHES as readonly Approach[] as readonly [Approach, ...Approach[]]).meta({
      description: 'shared-objects (buffers of the paper\u2019s Table 1) or offsets (one arena, Table 2).',
    }),
    models: nonEmptyList(model).meta({ description: 'The networks or problems, each a source or {source, label, optional}.' }),
    records: records.optional(),
    planners: nonEmptyList(text()).meta({ description: 'Planner ids (memplan list planners) or paths of modules that export a planner (.ts, .mts, .js, .mjs), relative to this file.' }),
    backends: nonEmptyList(z.union([text(), backendObject()], say('must be a backend kind (a string) or an object.')))
      .meta({ description: 'Where each plan runs: a kind, or {kind, ...settings}; default plan-only (plan and verify, no execution).' })
      .optional(),
    repetitions: whole(1).meta({ description: 'Planning runs per cell, for timing (default 5).' }).optional(),
    seed: whole(0).meta({ description: 'Seed of every random choice (default 1).' }).optional(),
    alignment: whole(1).meta({ description: 'Offsets and sizes are multiples of it (default 1).' }).optional(),
    timeLimitSeconds: z
      .number(say('must be a number > 0.'))
      .positive(say('must be a number > 0.'))
      .refine(Number.isFinite, say('must be a number > 0.'))
      .meta({ description: 'Seconds each search planner may run per cell (default 10).' })
      .optional(),
    report: report.optional(),
  });
}

/** An experiment file as written, once its schema accepted it. */
export type ExperimentFile = z.infer<ReturnType<typeof experimentSchema>>;
