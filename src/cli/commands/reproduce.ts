import type { Argv } from 'yargs';
import { reproducePaper } from '../../report/reproduce.ts';

interface ReproduceArgs {
  out: string;
  runs: string;
}

export function registerReproduce(cli: Argv): Argv {
  return cli.command<ReproduceArgs>(
    'reproduce',
    "Run Table 1 and Table 2, evaluate the paper's claims, render tables and charts",
    (y) =>
      y
        .option('out', { type: 'string', default: 'results/paper', describe: 'where the reproduction goes' })
        .option('runs', { type: 'string', default: 'results', describe: 'where the raw runs go' }) as unknown as Argv<ReproduceArgs>,
    async (args) => {
      const started = performance.now();
      const files = await reproducePaper({ out: args.out, runs: args.runs });
      process.stderr.write(`memplan: reproduced the paper in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
      process.stdout.write(`${files[0]}\n`);
    },
  );
}
