import type { Argv } from 'yargs';
import { loadExperiment } from '../../experiments/config.ts';
import { runExperiment } from '../../experiments/runner.ts';

interface RunArgs {
  experiment: string;
  out: string;
  resume: boolean;
}

export function registerRun(cli: Argv): Argv {
  return cli.command<RunArgs>(
    'run <experiment>',
    'Run an experiment file: every (model, planner, backend) cell, every plan verified',
    (y) =>
      y
        .positional('experiment', { type: 'string', demandOption: true, describe: 'experiments/<name>.json' })
        .option('out', { type: 'string', default: 'results', describe: 'results root; the run goes to <out>/<experiment>/<run-id>/' })
        .option('resume', { type: 'boolean', default: false, describe: 'continue the latest run of this experiment, skipping finished cells' }) as unknown as Argv<RunArgs>,
    async (args) => {
      const experiment = await loadExperiment(args.experiment);
      const outcome = await runExperiment(experiment, { root: args.out, resume: args.resume });
      for (const note of outcome.skipped) process.stderr.write(`memplan: skipped ${note}\n`);
      process.stdout.write(`${outcome.dir}\n`);
    },
  );
}
