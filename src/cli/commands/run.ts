import type { Argv } from 'yargs';
import type { CommandText } from '../command-text.ts';
import { loadExperiment } from '../../experiments/config.ts';
import { runExperiment } from '../../experiments/runner.ts';
import { chooseShard } from '../../experiments/shards.ts';
import { readStudyFile, runStudy } from '../../experiments/study.ts';
import '../../experiments/studies/index.ts';
import { UsageError } from '../errors.ts';

interface RunArgs {
  experiment: string;
  out: string;
  resume: boolean;
  quick: boolean;
  shard?: string;
  'shard-count'?: number;
}

export function registerRun(cli: Argv, text: CommandText): Argv {
  return cli.command<RunArgs>(
    text.usage,
    text.describe,
    (y) =>
      y
        .positional('experiment', { type: 'string', demandOption: true, describe: 'experiments/<name>.json' })
        .option('out', { type: 'string', default: 'results', describe: 'results root; the run goes to <out>/<experiment>/<run-id>/' })
        .option('resume', { type: 'boolean', default: false, describe: 'continue the latest run of this experiment, skipping finished cells' })
        .option('quick', { type: 'boolean', default: false, describe: 'studies: the smaller variant, for a look in seconds' })
        .option('shard', { type: 'string', describe: 'run shard I of N (I/N, from 0) of the cells; default from SLURM_ARRAY_TASK_ID/COUNT or JOB_COMPLETION_INDEX' })
        .option('shard-count', { type: 'number', describe: 'with JOB_COMPLETION_INDEX (Kubernetes): the number of shards (or MEMPLAN_SHARD_COUNT)' }) as unknown as Argv<RunArgs>,
    async (args) => {
      // A study (a "study" field) runs its own cells; every other file is a planning experiment.
      const study = await readStudyFile(args.experiment);
      const shard = chooseShard(args.shard, args['shard-count']);
      if (study !== undefined) {
        if (args.resume) throw new UsageError(`--resume continues planning experiments; ${args.experiment} is a ${study.study.kind} study, run it again.`);
        if (shard) throw new UsageError(`--shard splits planning experiments; ${args.experiment} is a ${study.study.kind} study, which runs on one machine.`);
        const outcome = await runStudy(study.study, study.data, args.experiment, args.out, { quick: args.quick });
        process.stdout.write(`${outcome.dir}\n`);
        return;
      }
      const experiment = await loadExperiment(args.experiment);
      const outcome = await runExperiment(experiment, { root: args.out, resume: args.resume, ...(shard ? { shard } : {}) });
      if (shard) process.stderr.write(`memplan: ran shard ${shard.index}/${shard.count}; join the shards with memplan merge ${args.out}/${experiment.name}/*-shard-*-of-${shard.count}\n`);
      for (const note of outcome.skipped) process.stderr.write(`memplan: skipped ${note}\n`);
      process.stdout.write(`${outcome.dir}\n`);
    },
  );
}
