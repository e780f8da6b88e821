/**
 * How fast the command starts (`npm run bench:startup`): `memplan list planners`,
 * `memplan --version` and `memplan verify` with no file (a usage error) against a bare
 * `node -e 0`, each in fresh processes taking turns, medians and the ratio to bare node.
 * Every measured execution starts a process, so start-up adds up over a sweep. Target:
 * `memplan list planners` within 3x of bare node. Runs the compiled command (`npm run
 * build` first): from TypeScript sources tsx compiles on the fly, which is not what users run.
 *
 *   npm run bench:startup -- [--runs 15]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { median } from 'simple-statistics';
import { newestFile } from '../src/backends/child-module.ts';

const args = process.argv.slice(2);
const refuse = (message: string): never => {
  process.stderr.write(`bench:startup: ${message}\nusage: npm run bench:startup -- [--runs 15]\n`);
  process.exit(2);
};
if (!(args.length === 0 || (args.length === 2 && args[0] === '--runs'))) refuse(`unknown arguments "${args.join(' ')}".`);
const runs = args.length === 2 ? Number(args[1]) : 15;
if (!Number.isSafeInteger(runs) || runs < 3) refuse(`--runs must be a whole number of at least 3, got ${args[1]}.`);

const built = 'dist/cli/memplan.js';
if (!existsSync(built) || statSync(built).mtimeMs < newestFile('src')) refuse('build first (npm run build): a source is newer than dist/, so the command would compile TypeScript on the fly.');

const TARGET = 3;
const commands: { readonly label: string; readonly argv: readonly string[]; readonly status: number }[] = [
  { label: 'node -e 0', argv: ['-e', '0'], status: 0 },
  { label: 'memplan list planners', argv: ['bin/memplan.js', 'list', 'planners'], status: 0 },
  { label: 'memplan --version', argv: ['bin/memplan.js', '--version'], status: 0 },
  { label: 'memplan verify (usage error)', argv: ['bin/memplan.js', 'verify'], status: 2 },
];

const samples = commands.map(() => [] as number[]);
for (let round = 0; round < runs + 1; round++) {
  for (const [i, command] of commands.entries()) {
    const start = performance.now();
    const run = spawnSync(process.execPath, command.argv, { encoding: 'utf8' });
    const ms = performance.now() - start;
    if (run.status !== command.status) refuse(`${command.label} exited with ${run.status}: ${run.stderr.trim()}`);
    // Round 0 warms the file system's caches; it is not counted.
    if (round > 0) samples[i].push(ms);
  }
  process.stderr.write(`round ${round}/${runs}\r`);
}

const bare = median(samples[0]);
const lines = [
  `Start-up, ${runs} fresh processes each, taking turns (node ${process.version}):`,
  '',
  '| command | median ms | min ms | × node -e 0 |',
  '|---|---:|---:|---:|',
  ...commands.map((c, i) => `| ${c.label} | ${median(samples[i]).toFixed(0)} | ${Math.min(...samples[i]).toFixed(0)} | ${(median(samples[i]) / bare).toFixed(2)} |`),
];
const ratio = median(samples[1]) / bare;
lines.push('', `memplan list planners: ${ratio.toFixed(2)}x bare node; target within ${TARGET}x: ${ratio <= TARGET ? 'met' : 'NOT met'}.`);
process.stdout.write(`${lines.join('\n')}\n`);
