// Every command the README gives is run as a user runs it (issue 43: "the README's commands
// are all run by a test or by CI as written"): by the group files beside this one, by CI, or
// by the test named for it. A command the README gains without an entry in how.ts fails here,
// and so does an entry the README no longer has.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli/run-memplan.ts';
import { COMMANDS, readmeCommands } from './commands.ts';
import { GROUPS } from './how.ts';

describe("the README's commands", () => {
  const entries = Object.values(GROUPS).flatMap((group) => Object.entries(group));

  it('have each one way to be run, in one group; no entry names a command the README lacks', () => {
    const named = entries.map(([command]) => command);
    expect(COMMANDS.filter((command) => !named.includes(command))).toEqual([]);
    expect(named.filter((command) => !COMMANDS.includes(command))).toEqual([]);
    expect(new Set(named).size).toBe(named.length);
    for (const [command, how] of entries) {
      // A command run otherwise than written says why.
      if ('run' in how && how.run !== undefined) expect(how.why, command).toBeTruthy();
      if ('elsewhere' in how) expect(existsSync(join(ROOT, how.elsewhere)), how.elsewhere).toBe(true);
    }
  });

  it('marked for CI are what .ci/run runs on a clean clone: npm ci, then npm test', () => {
    const lines = readFileSync(join(ROOT, '.ci/run'), 'utf8')
      .split('\n')
      .map((line) => line.trim());
    const install = lines.findIndex((line) => line.startsWith('npm ci'));
    expect(install).toBeGreaterThanOrEqual(0);
    expect(lines.indexOf('npm test')).toBeGreaterThan(install);
    expect(Object.keys(GROUPS.ci)).toEqual(['npm ci', 'npm test']);
  });

  it('are found in a text: sh lines without comments, a && b as two, whole npx commands in prose', () => {
    const text = '```sh\nnpm ci && npx memplan reproduce\nnpx memplan plan x.csv   # a comment\n\n```\nthen `memplan exec` or `npx memplan list models`\n```ts\nnpx no\n```';
    expect(readmeCommands(text)).toEqual(['npm ci', 'npx memplan reproduce', 'npx memplan plan x.csv', 'npx memplan list models']);
  });
});
