import type { Argv } from 'yargs';
import type { CommandText } from '../command-text.ts';
import { DEFAULT_TIE_ORDERS } from '../../experiments/tie-orders.ts';

interface ReproduceArgs {
  out: string;
  runs: string;
  'tie-orders': number;
  latency: boolean;
}

export function registerReproduce(cli: Argv, text: CommandText): Argv {
  return cli.command<ReproduceArgs>(
    text.usage,
    text.describe,
    (y) =>
      y
        .option('out', { type: 'string', default: 'results/paper', describe: 'where the reproduction goes' })
        .option('runs', { type: 'string', default: 'results', describe: 'where the raw runs go (and where results/latency-cpu/claim-7-run.json names the latency run of claim 7)' })
        .option('tie-orders', { type: 'number', default: DEFAULT_TIE_ORDERS, describe: 'random tie orders per network in the tie-order study' })
        .option('latency', { type: 'boolean', default: false, describe: 'measure experiments/latency-cpu.json again (minutes) and name the new run for claim 7' })
        .check((args) => {
          const n = args['tie-orders'];
          if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--tie-orders must be a whole number >= 1, got ${n}.`);
          return true;
        }) as unknown as Argv<ReproduceArgs>,
    async (args) => {
      const started = performance.now();
      // The report layer loads vega: only the commands that draw load it (start-up stays fast).
      const { reproducePaper } = await import('../../report/reproduce.ts');
      const files = await reproducePaper({ out: args.out, runs: args.runs, tieOrders: args['tie-orders'], latencyRoot: args.runs, rerunLatency: args.latency });
      process.stderr.write(`memplan: reproduced the paper in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
      process.stdout.write(`${files[0]}\n`);
    },
  );
}
