import type { Argv } from 'yargs';
import { PLANNERS } from '../../planners/registry.ts';
import { alignedTable } from '../format.ts';

interface ListArgs {
  what: 'planners';
  json: boolean;
}

export function registerList(cli: Argv): Argv {
  return cli.command<ListArgs>(
    'list <what>',
    'List what this build knows: planners',
    (y) =>
      y
        .positional('what', { choices: ['planners'] as const, demandOption: true })
        .option('json', { type: 'boolean', default: false }) as unknown as Argv<ListArgs>,
    (args) => {
      const planners = PLANNERS.map(({ id, approach, title, citation, complexity }) => ({ id, approach, title, citation, complexity }));
      if (args.json) {
        process.stdout.write(`${JSON.stringify(planners, null, 2)}\n`);
        return;
      }
      const rows = planners.map((p) => [p.id, p.title, p.complexity, p.citation]);
      process.stdout.write(`${alignedTable(['id', 'title', 'time', 'source'], rows)}\n`);
    },
  );
}
