import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Property-based tests plan thousands of random problems; keep them in one pool per core.
    testTimeout: 60_000,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
