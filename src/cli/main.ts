import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Argv } from 'yargs';
import type yargsFactory from 'yargs';
import { UserError } from '../core/user-error.ts';
import { InvalidPlanError } from '../planners/invalid-plan-error.ts';
import { withCommands } from './commands/index.ts';
import { UsageError } from './errors.ts';
import { fileSystemSentence } from '../io/file-system-error.ts';

/**
 * yargs 17 through its CommonJS build: 35-42 ms to load against 60-67 for its ES module
 * build, whose help printer also wraps text in the middle of words (a simpler line breaker
 * than the CommonJS build's). yargs 18 took 106-159 ms (docs/design.md, start-up).
 */
const yargs = createRequire(import.meta.url)('yargs') as typeof yargsFactory;

/**
 * yargs' messages as one sentence: "Not enough non-option arguments: got 0, need at least
 * 1" names what is missing instead (from the usage line, `memplan list <what>`); the rest
 * lose their line breaks.
 */
function usageSentence(message: string, usage: string | undefined): string {
  const line = usage?.split('\n')[0] ?? '';
  const wanted = [...line.matchAll(/<([^>]+)>/g)].map((m) => `<${m[1]}>`);
  const given = /got (\d+)/.exec(message);
  if (/^Not enough non-option arguments/.test(message) && wanted.length > 0 && given) {
    const command = line
      .slice(0, line.indexOf('<'))
      .trim()
      .replace(/^memplan /, '');
    return `${command} needs ${wanted.slice(Number(given[1])).join(' ')}; its usage is above.`;
  }
  return message.replace(/\s*\n\s*/g, ' ');
}

const NO_COMMAND = 'give one of the commands above.';

export interface MainOptions {
  /**
   * Whether main() may end the process (the program; the default): yargs exits after --help
   * and --version, and a failed command exits soon after (exitSoon). A caller that runs
   * command lines in its own process (the tests) says false.
   */
  readonly ownsProcess?: boolean;
}

/**
 * Runs one command line: its output goes to process.stdout and process.stderr, its exit
 * status into process.exitCode (0 left unset). The program (memplan.ts) is this and nothing more.
 */
export async function main(argv: string[], options: MainOptions = {}): Promise<void> {
  const ownsProcess = options.ownsProcess ?? true;
  let cli = yargs(argv)
    .scriptName('memplan')
    .exitProcess(ownsProcess)
    .usage('$0 <command> [options]')
    .strict()
    .demandCommand(1, NO_COMMAND)
    .help()
    .version(versionLine())
    .fail((message, error, context) => {
      if (error) throw error;
      // A command line yargs rejects: the usage of that command, then one sentence.
      // yargs hands its usage object here (not the Argv its types say): help() is the text.
      const help = (context as unknown as { help?: () => string }).help;
      const usage = typeof help === 'function' ? help.call(context) : undefined;
      // The usage goes with a command line that lacks something; a wrong value gets the sentence alone.
      const lacking = /^(Not enough non-option arguments|Missing required argument)/.test(message) || message === NO_COMMAND;
      throw new UsageError(usageSentence(message, usage), lacking ? usage : undefined);
    });
  cli = await withCommands(cli, argv);
  skipHelpCache(cli);
  try {
    await cli.parseAsync();
  } catch (error) {
    const failed = (code: number, text: string): void => {
      process.stderr.write(text);
      process.exitCode = code;
      if (ownsProcess) exitSoon();
    };
    // Caused by what the user gave us (core/user-error.ts): one sentence, exit code 2, no stack trace.
    if (error instanceof UserError) {
      return failed(2, `${error instanceof UsageError && error.usage ? `${error.usage}\n\n` : ''}memplan: ${(error as Error).message}\n`);
    }
    // A plan the verifier rejected: exit code 1 (README), the violation in one sentence.
    if (error instanceof InvalidPlanError) return failed(1, `memplan: ${error.message}\n`);
    const sentence = fileSystemSentence(error);
    if (sentence !== undefined) return failed(2, `memplan: ${sentence}\n`);
    throw error;
  }
}

/**
 * Once a command has failed and said why, nothing is left to do: whatever still holds the
 * event loop (a browser that never started, whose process group playwright-core waits on
 * for half a minute; a socket still closing) must not keep the user waiting. Clean-up that
 * runs on its own gets the grace period; then the process ends with its exit code.
 */
function exitSoon(graceMs = 2000): void {
  setTimeout(() => process.exit(), graceMs).unref();
}

/**
 * yargs formats the running command's whole help text as its handler starts (every option
 * measured and wrapped), to show it should the handler fail: 20-80 ms of every command's
 * start (`exec` 80 ms of 0.6 s). Here a handler's failure is never shown with help (the fail
 * handler above rethrows it), and help for a rejected command line is formatted in that
 * handler, before any command handler starts; so the cache is never read and is not filled.
 * Through yargs' internal methods: where a later yargs lacks them, it fills the cache as before.
 */
function skipHelpCache(cli: Argv): void {
  const internal = (cli as unknown as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } } }).getInternalMethods?.();
  const usage = internal?.getUsageInstance?.();
  if (typeof usage?.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => {};
}

/**
 * `memplan --version`: the package's version and the Node it runs on (results depend on
 * both). package.json lies two folders up from this module, in src/ and in dist/ alike.
 */
function versionLine(): string {
  const { name, version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
  return `${name} ${version} (node ${process.version})`;
}
