/**
 * A second process for run-lock.test.ts: takes the lock of the folder in argv[2] and says
 * `won` (or `lost <sentence>`) on stdout, then, as argv[3] says, holds it until killed
 * (`hold`), leaves by process.exit (`exit`) or by an uncaught exception (`throw`).
 */
import { lockRun } from '../../src/experiments/run-lock.ts';

const [dir, mode] = process.argv.slice(2);
try {
  await lockRun(dir);
} catch (error) {
  process.stdout.write(`lost ${(error as Error).message}\n`);
  process.exit(0);
}
process.stdout.write('won\n');
if (mode === 'exit') process.exit(3);
if (mode === 'throw') throw new Error('the child fails on purpose');
setInterval(() => undefined, 60_000);
