import * as z from 'zod';
import { type BackendKind, kindsWhere } from '../../backends/registry.ts';
import { parseSchedule, SCHEDULE_FORMS } from '../../graph/schedule.ts';
import { fields, flag, nonEmptyList, oneOf, say, text, whole } from '../experiment-schema.ts';
import { nonNegative, positive, resultsName, studyFields } from './study-file-schema.ts';

/**
 * The shape of the parallel-groups study's file (experiments/parallel-groups.json): what each
 * field may hold. What one field says about another (labels among the networks, the thesis'
 * figures for networks and rows the file runs, a time with its spread, no name twice), planner
 * ids in the registry, and the defaults are parallel-groups-config.ts's and
 * parallel-groups-thesis.ts's.
 */

/** What a row runs on: the sequential CPU, or a backend that runs a step's operators at once. */
export const ROW_BACKENDS: readonly [BackendKind, ...BackendKind[]] = ['cpu', ...kindsWhere('parallelSteps')];

/** A schedule of layer groups as records take it (graph/schedule.ts). */
const schedule = (description: string) => {
  const sentence = { error: (issue: { input?: unknown }) => `must be ${SCHEDULE_FORMS}; got ${JSON.stringify(issue.input)}.` };
  return z
    .string(sentence)
    .refine((v) => parseSchedule(v) !== undefined, sentence)
    .meta({ description });
};
const planner = (description: string) => text(`${description} (memplan list planners).`);
const labels = (description: string) => nonEmptyList(text()).meta({ description });

const network = fields({
  source: text('zoo:NAME[?params], or a path relative to this file.'),
  label: text('Names the network in tables, charts and the other fields of this file.'),
  quickSource: text('The source memplan run --quick runs (a smaller input); default the source.').optional(),
  thesis: text("Its name in the thesis' table, where the thesis has it.").optional(),
});

const row = fields({
  id: text("Names the row in thesis.values and the report's findings."),
  label: text('Names the row in tables.'),
  schedule: schedule('The schedule of layer groups the row runs.'),
  planner: planner('The planner of the row'),
  backend: oneOf(ROW_BACKENDS).meta({ description: "What the row runs on: the sequential cpu, or a backend that runs a step's operators at once." }),
  extra: flag.meta({ description: "A row of ours beside the thesis' (not in its table; default false)." }).optional(),
});

/** The thesis' figures for one (network, row): a time is the mean of its runs ± two standard deviations, so `ms` and `twoSigmaMs` come together. */
const thesisCell = fields({
  ms: positive().meta({ description: "Mean time of the thesis' runs (ms)." }).optional(),
  twoSigmaMs: nonNegative().meta({ description: 'Two standard deviations of those runs (ms): the ± of its table.' }).optional(),
  mb: positive().meta({ description: 'Memory (MB).' }).optional(),
});

const headline = fields({
  network: text('The network, by its thesis name.'),
  row: text('The row (an id of rows) the sentence is about.'),
  against: text('The row (another id of rows) it is compared with.'),
  fasterPercent: positive().meta({ description: 'How much faster, in percent.' }),
  lessMemoryPercent: positive().meta({ description: 'How much less memory, in percent.' }),
});

const thesis = fields({
  citation: text('Where the figures come from.'),
  device: text('What the thesis measured on.'),
  values: z
    .record(z.string(), z.record(z.string(), thesisCell, say('must be an object.')), say('must be an object.'))
    .meta({ description: 'Thesis network name -> row id -> its figures, as published.' }),
  headline: headline.meta({ description: 'The conclusion\'s one sentence of numbers: "ResNeXt: 6.85% faster with 72.4% less memory", row against another on one network.' }).optional(),
}).meta({ description: 'The thesis\' figures, as published (its table "Результаты (1)").' });

/** The parallel-groups study's file, as written (defaults are parallel-groups-config.ts's). */
export function parallelGroupsSchema() {
  return studyFields('parallel-groups', {
    name: resultsName(),
    title: text('Title of the report; default the name.').optional(),
    networks: nonEmptyList(network).meta({ description: 'The networks; every one runs every row.' }),
    rows: nonEmptyList(row).meta({ description: "The table's rows, in order." }),
    sweep: fields({
      networks: labels('Networks (labels) swept; default every network.').optional(),
      groups: nonEmptyList(whole(1)).meta({ description: 'The numbers of groups per layer.' }),
      planner: planner('The planner of every sweep point'),
    }).meta({ description: 'Memory and latency against the number of groups, network by network.' }),
    webgpu: fields({
      networks: labels('Networks (labels).'),
      schedules: nonEmptyList(schedule('A schedule run in one compute pass.')).meta({ description: 'The schedules, each in one compute pass.' }),
      planner: planner('The shared-objects planner'),
    })
      .meta({ description: "What a WebGPU adapter makes of a step's dispatches: schedules in one compute pass, shared-objects plans." })
      .optional(),
    workers: whole(1).meta({ description: 'Threads of the parallel rows, at most one per core; default the number of cores of the machine that runs them.' }).optional(),
    repetitions: whole(1).meta({ description: 'Timed runs per cell (default 10).' }).optional(),
    warmup: whole(0).meta({ description: 'Runs before timing (default 2).' }).optional(),
    seed: whole(0).meta({ description: 'Seed of the weights and every random choice (default 1).' }).optional(),
    alignment: whole(4).meta({ description: 'Offsets alignment in bytes (64: whole cache lines, so that two workers never write one line; default 64).' }).optional(),
    quick: fields({
      repetitions: whole(1).meta({ description: 'Timed runs per cell (default 3).' }).optional(),
      warmup: whole(0).meta({ description: 'Runs before timing (default 1).' }).optional(),
      sweepNetworks: labels('The networks of the quick sweep, some of sweep.networks; default all of them.').optional(),
      webgpuNetworks: labels('The networks of the quick WebGPU look; default webgpu.networks.').optional(),
    })
      .meta({ description: "What memplan run --quick changes: each network's quickSource, these counts, the networks of the sweep and of the WebGPU look." })
      .optional(),
    thesis,
  });
}

/** A parallel-groups study file as written, once its schema accepted it. */
export type ParallelGroupsFile = z.output<ReturnType<typeof parallelGroupsSchema>>;
/** The thesis' part of it. */
export type ThesisFile = ParallelGroupsFile['thesis'];
