import { describe, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.ts';
import { memplanHere } from './run-memplan.ts';

const words = (text: string): string => text.replace(/\s+/g, ' ');

describe('the command line (main)', () => {
  // yargs 17's ES module build breaks help lines inside words ("every pl" / "an is"); main.ts loads its CommonJS build.
  it('--help lists every command with its description whole: lines break between words', async ({ expect }) => {
    const run = await memplanHere('--help');
    expect(run.status).toBe(0);
    for (const command of COMMANDS) expect(words(run.stdout)).toContain(words(command.describe));
  });

  it("a command's --help keeps its options' descriptions whole", async ({ expect }) => {
    const run = await memplanHere('plan', '--help');
    expect(run.status).toBe(0);
    expect(words(run.stdout)).toContain('graph sources: fuse standalone activations into their producers (the CPU executors always do)');
  });
});
