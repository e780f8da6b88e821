import { describe, it } from 'vitest';
import { lowerBounds } from '../../src/core/bounds.ts';
import { graphToProblem } from '../../src/graph/lifetimes.ts';
import { buildZooModel } from '../../src/models/zoo.ts';
import { memplan, userErrorLine } from './run-memplan.ts';

describe.concurrent('memplan exec', () => {
  it('--json prints latency, footprint, peak memory and the proof against naive', async ({ expect }) => {
    const run = await memplan('exec', 'zoo:blazeface', '--planner', 'offsets/greedy-by-size', '--repetitions', '3', '--warmup', '1', '--json');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(Object.keys(report).sort()).toEqual(['backend', 'device', 'footprint', 'latencyMs', 'matchesNaive', 'peakRssBytes', 'planner']);
    expect(report).toMatchObject({ backend: 'cpu', planner: 'offsets/greedy-by-size', matchesNaive: true });
    expect(Object.keys(report.latencyMs).sort()).toEqual(['ci95', 'max', 'median', 'min', 'p90', 'runs']);
    const bound = lowerBounds(graphToProblem(buildZooModel('zoo:blazeface'), { elementSize: 4 })).offsets;
    expect(report.footprint).toBeGreaterThanOrEqual(bound);
  });

  it('refuses what it cannot run, in one line', async ({ expect }) => {
    const [records, backend] = await Promise.all([
      memplan('exec', 'examples/paper-example.json'),
      memplan('exec', 'zoo:blazeface', '--backend', 'tpu'),
    ]);
    expect(userErrorLine(records)).toMatch(/holds usage records, not a network/);
    expect(userErrorLine(backend)).toMatch(/unknown backend "tpu"; available: cpu/);
  });
});
