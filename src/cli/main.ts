import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { InvalidProblemError } from '../core/problem.ts';
import { GraphError } from '../graph/ir.ts';
import { BackendError } from '../backends/backend-error.ts';
import { ExperimentError } from '../experiments/config.ts';
import { InputError } from '../io/input-error.ts';
import { ZooError } from '../models/zoo.ts';
import { UnknownPlannerError } from '../planners/registry.ts';
import { registerAgent } from './commands/agent.ts';
import { registerExec } from './commands/exec.ts';
import { registerExport } from './commands/export.ts';
import { registerList } from './commands/list.ts';
import { registerReport } from './commands/report.ts';
import { registerReproduce } from './commands/reproduce.ts';
import { registerRun } from './commands/run.ts';
import { registerPlan } from './commands/plan.ts';
import { UsageError } from './errors.ts';

/** Errors caused by what the user gave us: one sentence, exit code 2, no stack trace. */
const USER_ERRORS = [InputError, InvalidProblemError, GraphError, ZooError, UnknownPlannerError, ExperimentError, BackendError, UsageError];

export async function main(argv: string[]): Promise<void> {
  let cli = yargs(argv)
    .scriptName('memplan')
    .usage('$0 <command> [options]')
    .strict()
    .demandCommand(1, 'give a command; see memplan --help.')
    .help()
    .version(false)
    .fail((message, error) => {
      // yargs' own messages may span lines; the contract is one sentence.
      throw error ?? new UsageError(message.replace(/\s*\n\s*/g, ' '));
    });
  cli = registerPlan(cli);
  cli = registerList(cli);
  cli = registerExport(cli);
  cli = registerRun(cli);
  cli = registerReport(cli);
  cli = registerReproduce(cli);
  cli = registerExec(cli);
  cli = registerAgent(cli);
  try {
    await cli.parseAsync();
  } catch (error) {
    if (USER_ERRORS.some((kind) => error instanceof kind)) {
      process.stderr.write(`memplan: ${(error as Error).message}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
}

await main(hideBin(process.argv));
