import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One worker per core. Left to itself, this vitest ran one file at a time on 2 cores
    // (measured: four files that each wait 2 s took 9.5 s, and 4.9 s with this setting).
    // Many files here wait on child processes, so the second core has work.
    maxWorkers: availableParallelism(),
    testTimeout: 60_000,
    // Hooks run real work too (an experiment on an agent in a beforeAll): the same limit as a
    // test, not vitest's 10 s, which a busy 2-core CI machine overran (stop 46).
    hookTimeout: 60_000,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
