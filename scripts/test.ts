// `npm test`: the type check (tsc --noEmit) and the test suite (vitest run, with the
// arguments given) side by side, after Biome. The suite leaves about a third of two cores
// idle while its files wait on child processes; the type check (25 s of one core) fills
// that time instead of running before it. The type check's output is held and printed after
// the suite's, so the two never interleave; the exit status is the first failure's.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = (name: string): string => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));

const typecheck = new Promise<{ status: number; output: string }>((resolve) => {
  const child = spawn(bin('tsc'), ['--noEmit', '--pretty', String(process.stdout.isTTY === true)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.on('error', (error) => resolve({ status: 1, output: `tsc could not start: ${error.message}\n` }));
  child.on('close', (code, signal) => resolve({ status: code ?? (signal === null ? 1 : 128), output }));
});

const suite = await new Promise<number>((resolve) => {
  const child = spawn(bin('vitest'), ['run', ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('error', () => resolve(1));
  child.on('close', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
});

const types = await typecheck;
if (types.status === 0) process.stdout.write('tsc --noEmit: no type errors.\n');
else process.stdout.write(`\ntsc --noEmit found type errors:\n${types.output}`);
process.exitCode = suite !== 0 ? suite : types.status;
