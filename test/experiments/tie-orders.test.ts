import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseExperiment } from '../../src/experiments/config.ts';
import { drawTieOrder, runTieOrderStudy } from '../../src/experiments/tie-orders.ts';
import { problemOf } from '../fixtures/problems.ts';

const experiment = (planners: string[]) =>
  parseExperiment(
    JSON.stringify({ name: 'ties', approach: 'offsets', models: [{ source: 'zoo:blazeface', label: 'BlazeFace' }], records: { elementSize: 4 }, planners, seed: 3 }),
    join('experiments', 'ties.json'),
  );

describe('the tie-order study', () => {
  it("finds which strategies the order of equal keys moves, with the tables' figure among the draws' range", async () => {
    const study = await runTieOrderStudy(experiment(['offsets/greedy-by-size', 'offsets/naive', 'shared-objects/min-cost-flow', 'offsets/exact']), { draws: 60, quiet: true });
    expect(study.drawCount).toBe(60);
    // Searches are left out: their answer does not hinge on a tie rule.
    expect(study.cells.map((c) => c.planner)).toEqual(['offsets/greedy-by-size', 'offsets/naive', 'shared-objects/min-cost-flow']);
    const [gbs, naive, mcf] = study.cells;
    for (const cell of study.cells) {
      expect(cell.draws).toHaveLength(60);
      for (const f of cell.draws) expect(f).toBeGreaterThanOrEqual(cell.lowerBound);
    }
    // TFLite's own totals are the tables' figures (tflite-totals.json).
    expect(gbs.stable).toBe(1376256);
    expect(mcf.stable).toBe(1412608);
    // Greedy by Size on BlazeFace moves with ties among equal sizes; naive and Min-cost Flow never do.
    expect(new Set(gbs.draws).size).toBeGreaterThan(1);
    expect(Math.max(...gbs.draws)).toBe(1769472);
    expect(new Set(naive.draws)).toEqual(new Set([naive.stable]));
    expect(new Set(mcf.draws)).toEqual(new Set([mcf.stable]));
  });

  it('is deterministic: the same seed draws the same orders and footprints', async () => {
    const a = await runTieOrderStudy(experiment(['offsets/greedy-by-breadth']), { draws: 15, quiet: true });
    const b = await runTieOrderStudy(experiment(['offsets/greedy-by-breadth']), { draws: 15, quiet: true });
    expect(a).toEqual(b);
    const problem = problemOf([
      [8, 0, 1],
      [8, 1, 2],
      [8, 2, 3],
      [8, 3, 4],
    ]);
    expect(drawTieOrder(problem, 1, 0)).toEqual(drawTieOrder(problem, 1, 0));
    expect(
      drawTieOrder(problem, 1, 0)
        .records.records.map((r) => r.id)
        .sort(),
    ).toEqual(['t0', 't1', 't2', 't3']);
  });

  it('refuses a number of draws below one', async () => {
    await expect(runTieOrderStudy(experiment(['offsets/naive']), { draws: 0, quiet: true })).rejects.toThrow(/whole number >= 1/);
  });
});
