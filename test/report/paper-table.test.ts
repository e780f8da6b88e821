import { describe, expect, it } from 'vitest';
import type { CellResult } from '../../src/experiments/result.ts';
import { buildPaperTable, formatValue } from '../../src/report/paper-table.ts';
import { tableToCsv, tableToLatex, tableToMarkdown } from '../../src/report/table-formats.ts';

const MiB = 2 ** 20;
function cell(model: string, planner: string, footprint: number): CellResult {
  return {
    experiment: 't',
    model,
    modelLabel: model.toUpperCase(),
    planner,
    plannerTitle: planner.replace(/^.*\//, '').replace(/_/g, ' & '),
    plannerApproach: planner.startsWith('offsets/') ? 'offsets' : 'shared-objects',
    backend: 'plan-only',
    records: 3,
    operators: 4,
    footprint,
    naive: 10 * MiB,
    lowerBounds: { offsets: 2 * MiB, sharedObjects: 3 * MiB },
    ratioToLowerBound: footprint / (2 * MiB),
    ratioToNaive: footprint / (10 * MiB),
    valid: true,
    timeMs: { runs: 1, median: 1, min: 1, max: 1, mad: 0 },
  };
}

const results = [
  cell('a', 'offsets/x_y', 2 * MiB),
  cell('a', 'shared-objects/greedy', 3 * MiB),
  cell('a', 'offsets/naive', 10 * MiB),
  cell('b', 'offsets/x_y', 4 * MiB),
  cell('b', 'shared-objects/greedy', 4 * MiB),
  cell('b', 'offsets/naive', 10 * MiB),
];
const table = buildPaperTable(results, { title: 'T_2 & co', approach: 'offsets', report: { unit: 'MiB', charts: [] } });

describe('paper tables', () => {
  it('have a column per network, a row per strategy, then the bound and naive, best marked (ties too)', () => {
    expect(table.columns).toEqual(['A', 'B']);
    expect(table.rows.map((r) => [r.label, r.kind])).toEqual([
      ['x & y', 'strategy'],
      ['greedy, objects contiguous', 'strategy'],
      ['Lower bound', 'lower-bound'],
      ['Naive', 'naive'],
    ]);
    expect(table.rows[0].best).toEqual([true, true]);
    expect(table.rows[1].best).toEqual([false, true]);
    expect(table.rows[2].values).toEqual([2 * MiB, 2 * MiB]);
  });

  it('print as Markdown, CSV and LaTeX (booktabs, best in bold, specials escaped)', () => {
    const markdown = tableToMarkdown(table);
    expect(markdown).toContain('| x & y | **2.000** | **4.000** |');
    expect(markdown).toContain('| *Naive* | 10.000 | 10.000 |');
    const csv = tableToCsv(table);
    expect(csv.split('\n')[0]).toBe('strategy (MiB),A,B');
    expect(csv.trimEnd().split('\n').at(-1)).toBe('best,x & y,"x & y; greedy, objects contiguous"');
    expect(csv).toContain('"greedy, objects contiguous",3.000,4.000');
    const latex = tableToLatex(table);
    expect(latex).toContain('\\toprule');
    expect(latex).toContain('x \\& y & \\textbf{2.000} & \\textbf{4.000} \\\\');
    expect(latex).toContain('\\caption{T\\_2 \\& co');
  });
});

describe('paper tables with an exact planner and both operator orders', () => {
  const exactCell = (model: string, footprint: number, optimal: boolean): CellResult => ({
    ...cell(model, 'offsets/exact', footprint),
    plannerTitle: 'Optimal',
    optimal,
    bound: optimal ? footprint : 2 * MiB,
  });
  const otherOrder = { order: 'memory-aware' as const, lowerBounds: { offsets: 1.5 * MiB, sharedObjects: 2.5 * MiB } };
  const withExact = [...results, exactCell('a', 2 * MiB, true), exactCell('b', 3 * MiB, false)].map((r) => ({ ...r, otherOrder }));
  const exactTable = buildPaperTable(withExact, { title: 'T', approach: 'offsets', report: { unit: 'MiB', charts: [] } });

  it('put the Optimal row above the bounds, out of the best marking, with proven per network', () => {
    expect(exactTable.rows.map((r) => [r.label, r.kind])).toEqual([
      ['x & y', 'strategy'],
      ['greedy, objects contiguous', 'strategy'],
      ['Optimal', 'optimal'],
      ['Lower bound, given order', 'lower-bound'],
      ['Lower bound, memory-aware order', 'lower-bound'],
      ['Naive', 'naive'],
    ]);
    const optimal = exactTable.rows[2];
    expect(optimal.proven).toEqual([true, false]);
    expect(optimal.best).toEqual([false, false]);
    // Column b: the heuristics' best (4 MiB) stays bold although the optimum found is 3.
    expect(exactTable.rows[0].best).toEqual([true, true]);
    expect(exactTable.rows[4].values).toEqual([1.5 * MiB, 1.5 * MiB]);
  });

  it('print a best found as "<= x" with a note, in Markdown, CSV and LaTeX', () => {
    const markdown = tableToMarkdown(exactTable);
    expect(markdown).toContain('| *Optimal* | 2.000 | <= 3.000 |');
    expect(markdown).toMatch(/"<= x" marks the best plan found within the time limit, not proven/);
    expect(tableToCsv(exactTable)).toContain('Optimal proven,yes,no');
    expect(tableToLatex(exactTable)).toContain('Optimal & 2.000 & $\\leq$ 3.000 \\\\');
  });

  it('show a footprint too small for three decimals in significant digits, never as 0.000', () => {
    expect(formatValue(1536, 'MiB')).toBe('0.00146');
    expect(formatValue(12, 'MiB')).toBe('0.0000114');
    expect(formatValue(0, 'MiB')).toBe('0.000');
    expect(formatValue(MiB / 2, 'MiB')).toBe('0.500');
    expect(formatValue(1536, 'bytes')).toBe('1536');
  });
});
