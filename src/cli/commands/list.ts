import type { Argv } from 'yargs';
import { ZOO } from '../../models/zoo.ts';
import { PLANNERS } from '../../planners/registry.ts';
import { alignedTable } from '../format.ts';

interface ListArgs {
  what: 'planners' | 'models';
  json: boolean;
}

export function registerList(cli: Argv): Argv {
  return cli.command<ListArgs>(
    'list <what>',
    'List what this build knows: planners, models',
    (y) =>
      y
        .positional('what', { choices: ['planners', 'models'] as const, demandOption: true })
        .option('json', { type: 'boolean', default: false }) as unknown as Argv<ListArgs>,
    (args) => {
      if (args.what === 'models') {
        listModels(args.json);
        return;
      }
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

function listModels(json: boolean): void {
  const models = ZOO.map(({ name, title, reference, defaults, tunable }) => ({ name, source: `zoo:${name}`, title, reference, defaults, tunable }));
  if (json) {
    process.stdout.write(`${JSON.stringify(models, null, 2)}\n`);
    return;
  }
  const rows = models.map((m) => [m.source, m.title, `${m.defaults.inputSize}x${m.defaults.inputSize}`, m.reference]);
  process.stdout.write(`${alignedTable(['source', 'title', 'input', 'reproduces'], rows)}\n`);
  process.stdout.write('parameters: zoo:<model>?input=160&width=0.5&batch=2&dtype=float16 (where the model allows them)\n');
}
