import { describe, expect, it } from 'vitest';
import type { BudgetCell } from '../../../src/experiments/studies/flexnn-budget.ts';
import { budgetLatencyChartSpec } from '../../../src/report/charts/budget-latency-chart.ts';
import { measuredBudgetCell } from './chart-fixtures.ts';
import { expectCompiles, rowsOf } from './spec-data.ts';

const MiB = 2 ** 20;
const measured = measuredBudgetCell;

describe('the latency-against-peak chart', () => {
  it('puts one point per feasible measured cell, per network panel, and compiles without warnings', () => {
    const cells: BudgetCell[] = [
      measured('VGG-19', 'default', null, 1300, 950),
      measured('VGG-19', 'flexnn', 60, 1250, 62),
      measured('VGG-19', 'flexnn', 100, 1240, 101),
      { network: 'VGG-19', source: 'zoo:x', method: 'flexnn', part: 'budgets', budget: 10 * MiB, planner: 'p', feasible: false, reason: 'no' },
      measured('ResNet-152', 'on-demand', null, 900, 60),
    ];
    const spec = budgetLatencyChartSpec(cells, { title: 'Figure 10' });
    const rows = rowsOf(spec);
    expect(rows).toHaveLength(4);
    expect(rows.map((r) => [r.network, r.method, r.peak, r.latency])).toContainEqual(['VGG-19', 'FlexNN', 62, 1250]);
    expectCompiles(spec);
  });

  it('refuses a run with nothing measured', () => {
    expect(() => budgetLatencyChartSpec([], { title: 'x' })).toThrow(/no feasible cell/);
  });
});
