import { describe, expect, it } from 'vitest';
import { parallelReport } from '../../src/backends/parallel-report.ts';

describe('parallelReport', () => {
  it('takes the median of each step over the inferences, and busy time over workers x the steps wall time', () => {
    // Two workers, three steps (1, 2 and 1 operators), three inferences.
    const report = parallelReport({
      workers: 2,
      stepSizes: [1, 2, 1],
      poolRss: 1234,
      stepMs: [
        [1, 4, 1],
        [2, 2, 2],
        [1, 3, 2],
      ],
      // Inference 1: 6 ms of steps, 6 ms busy in all -> 6 / (2 x 6) = 0.5; inference 2: 6 / (2 x 6) = 0.5; inference 3: 9 / (2 x 6) = 0.75.
      busyMs: [
        [4, 2],
        [3, 3],
        [6, 3],
      ],
    });
    expect(report).toEqual({ workers: 2, steps: 3, stepSizes: [1, 2, 1], stepMs: [1, 3, 2], stepsMs: 6, busyFraction: 0.5, poolRss: 1234 });
  });

  it('reports zeros, not NaN, when no inference was timed', () => {
    const report = parallelReport({ workers: 3, stepSizes: [2], poolRss: 0, stepMs: [], busyMs: [] });
    expect(report.stepMs).toEqual([0]);
    expect([report.stepsMs, report.busyFraction]).toEqual([0, 0]);
  });
});
