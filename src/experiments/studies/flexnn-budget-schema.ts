import * as z from 'zod';
import { fields, flag, nonEmptyList, say, text, whole } from '../experiment-schema.ts';
import { positive, resultsName, studyFields } from './study-file-schema.ts';

/**
 * The shape of the FlexNN budget study's file (experiments/flexnn-budget.json): what each
 * field may hold. What one field says about another (labels among the study's networks, a
 * stated speed with its source, no label twice), speeds read, and the defaults are
 * flexnn-budget-config.ts's.
 */

const mib = () => positive('must be a number of MiB > 0.');
const budgets = (description: string) => nonEmptyList(mib()).meta({ description });
const labels = (description: string) => nonEmptyList(text()).meta({ description });

const network = fields({
  label: text('Names the network in tables, charts and the other fields of this file.'),
  source: text('zoo:NAME[?params], or a path relative to this file.'),
  budgetsMiB: budgets("Budgets in MiB (the whole run's: buffer, graph I/O and the runtime's reserve), as the issue lists FlexNN's."),
  repetitions: whole(1).meta({ description: "Timed runs of this network where they differ from the study's (a network whose inference takes seconds here)." }).optional(),
  warmup: whole(0).meta({ description: "Warm-up runs of this network where they differ from the study's." }).optional(),
});

const ablation = fields({
  networks: labels('Networks (labels) run without preloading and without memory planning.'),
  budgetsMiB: budgets('The budgets (MiB) they run at.'),
}).meta({ description: 'FlexNN without preloading and without memory planning, on these networks at these budgets.' });

const adaptive = fields({
  networks: labels('Networks (labels) whose budget changes while inference runs.'),
  budgetsMiB: budgets('The first budget, then each it changes to (MiB).').min(2, say('needs a first budget and at least one to change to.')),
  paper: fields({
    adaptSeconds: positive().meta({ description: "FlexNN's adaptation time (seconds)." }),
    citation: text('Where the figure comes from.'),
  })
    .meta({ description: "FlexNN's figure for the adaptation." })
    .optional(),
}).meta({ description: "FlexNN's adaptation: the budget changed between inferences (exec --budget B --adapt B1,B2,...)." });

const storage = fields({
  label: text('Names the storage in tables and charts.'),
  bandwidth: text('A stated read speed per second (e.g. "400MB"); absent: this machine\'s disk at its own speed.').optional(),
  source: text('Where a stated speed comes from (a stated speed needs it).').optional(),
  networks: labels('The networks (labels, the quick ones included) run from this storage; default every network.').optional(),
});

/** A fraction as the paper gives it: 0.9381 is 93.81%. */
const fraction = (description: string) => {
  const sentence = say('must be a fraction between -1 and 1 (0.9381 is 93.81%).');
  return z.number(sentence).gt(-1, sentence).lt(1, sentence).meta({ description });
};

/** The FlexNN budget study's file, as written (defaults are flexnn-budget-config.ts's). */
export function flexnnBudgetSchema() {
  return studyFields('flexnn-budget', {
    name: resultsName(),
    title: text('Title of the report.'),
    networks: nonEmptyList(network).meta({ description: "The networks and the budgets FlexNN's evaluation runs them at (its Figure 10)." }),
    ablation,
    fromMinimum: flag
      .meta({
        description: 'Sweep each network from its smallest feasible budget (memplan plan --find-min-budget), found when the study runs, then up through the listed budgets (default true).',
      })
      .optional(),
    storage: nonEmptyList(storage)
      .meta({ description: "The storages every streamed method reads weights from: this machine's disk, and stated slower ones (default this machine's disk)." })
      .optional(),
    adaptive: adaptive.optional(),
    repetitions: whole(1).meta({ description: 'Timed runs per cell (default 8).' }).optional(),
    warmup: whole(0).meta({ description: 'Runs before timing (default 4).' }).optional(),
    seed: whole(0).meta({ description: 'Seed of the weights and every random choice (default 1).' }).optional(),
    alignment: whole(16).meta({ description: "Offsets alignment in bytes, at least 16 (the SIMD kernels' vectors; default 64)." }).optional(),
    quick: fields({
      networks: nonEmptyList(network).meta({ description: 'The networks of the quick run (smaller inputs).' }),
      ablation,
      adaptive: adaptive.optional(),
      repetitions: whole(1).meta({ description: 'Timed runs per cell (default 2).' }).optional(),
      warmup: whole(0).meta({ description: 'Runs before timing (default 1).' }).optional(),
    }).meta({ description: 'The smaller variant memplan run --quick runs, on its own networks.' }),
    paper: fields({
      citation: text('Where the headline comes from.'),
      device: text('The device the paper measured on, as the source names it.'),
      network: text('The network, only where a source names one.').optional(),
      memorySaved: fraction("Memory saved against NCNN's default, a fraction."),
      latencyAdded: fraction('Latency added, a fraction.'),
    }).meta({ description: "FlexNN's headline as published: memory saved against NCNN's default and latency added." }),
  });
}

/** A FlexNN budget study file as written, once its schema accepted it. */
export type FlexnnBudgetFile = z.output<ReturnType<typeof flexnnBudgetSchema>>;
