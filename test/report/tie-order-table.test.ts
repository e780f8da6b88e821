import { describe, expect, it } from 'vitest';
import type { TieOrderStudy } from '../../src/experiments/tie-orders.ts';
import { tieOrderChartSpec } from '../../src/report/charts/tie-order-chart.ts';
import { tieOrderCsv, tieOrderMarkdown, tieOrderRange } from '../../src/report/tie-order-table.ts';
import { expectCompiles, rowsOf } from './charts/spec-data.ts';

const MiB = 2 ** 20;
const cell = (network: string, planner: string, stable: number, draws: number[]) => ({
  model: `zoo:${network}`,
  modelLabel: network,
  planner,
  plannerTitle: planner,
  lowerBound: 4 * MiB,
  stable: stable * MiB,
  draws: draws.map((d) => d * MiB),
});
const STUDY: TieOrderStudy = {
  experiment: 'table2',
  approach: 'offsets',
  seed: 1,
  drawCount: 4,
  cells: [
    cell('a', 'offsets/greedy-by-size', 4, [4, 5, 4, 6]),
    cell('a', 'offsets/naive', 20, [20, 20, 20, 20]),
    cell('b', 'offsets/greedy-by-size', 4, [4, 4, 4, 4]),
    cell('b', 'offsets/naive', 20, [20, 20, 20, 20]),
  ],
};

describe('the tie-order table', () => {
  it('sums up a cell: range, median, distinct footprints and where the stable order falls', () => {
    expect(tieOrderRange(STUDY.cells[0])).toMatchObject({ min: 4 * MiB, median: 4.5 * MiB, max: 6 * MiB, distinct: 3, atMostStable: 0.5 });
    expect(tieOrderRange(STUDY.cells[1])).toMatchObject({ distinct: 1, atMostStable: 1 });
  });

  it('prints a range where the tie order matters and one figure where it does not', () => {
    const markdown = tieOrderMarkdown(STUDY, 'Table 2');
    expect(markdown).toMatch(/footprint under 4 random tie orders/);
    expect(markdown).toContain('| offsets/greedy-by-size | 4.000–6.000 (median 4.500; table 4.000) | 4.000 | 1 of 2 |');
    expect(markdown).toContain('| offsets/naive | 20.000 | 20.000 | none |');
  });

  it('writes one CSV line per cell, in bytes', () => {
    const lines = tieOrderCsv(STUDY).trim().split('\n');
    expect(lines[0]).toBe('network,planner,lower_bound,table,min,median,max,distinct,draws,share_at_most_table');
    expect(lines[1]).toBe(`a,offsets/greedy-by-size,${4 * MiB},${4 * MiB},${4 * MiB},${4.5 * MiB},${6 * MiB},3,4,0.500`);
    expect(lines).toHaveLength(5);
  });

  it('charts the ranges over the bound, leaving out strategies far above it everywhere', () => {
    const spec = tieOrderChartSpec(STUDY, { title: 'ties' });
    expectCompiles(spec);
    const rows = rowsOf(spec);
    expect(rows.map((r) => r.planner)).toEqual(['offsets/greedy-by-size', 'offsets/greedy-by-size']);
    expect(rows[0]).toMatchObject({ network: 'a', min: 1, median: 1.125, max: 1.5, table: 1 });
    expect((spec as unknown as { title: { subtitle: string[] } }).title.subtitle).toContain(
      'Left out, over 1.5x the bound on every network under every order (the table has them): offsets/naive (5.00x).',
    );
  });
});
