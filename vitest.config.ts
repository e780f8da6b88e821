import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One worker per core. Left to itself, this vitest ran one file at a time on 2 cores
    // (measured: four files that each wait 2 s took 9.5 s, and 4.9 s with this setting).
    // Many files here wait on child processes, so the second core has work.
    maxWorkers: availableParallelism(),
    // Test files share a worker's module graph instead of importing every module anew per
    // file: on 2 cores that halved the time of the in-process files (test/core, graph, io,
    // report: 64 s to 33 s). Tests that change module state (kernel engines, relaxed SIMD)
    // restore it in their own afterEach or afterAll.
    isolate: false,
    testTimeout: 60_000,
    // Hooks run real work too (an experiment on an agent in a beforeAll): the same limit as a
    // test, not vitest's 10 s, which a busy 2-core CI machine overran (stop 46).
    hookTimeout: 60_000,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
