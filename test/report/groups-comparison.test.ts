import { describe, expect, it } from 'vitest';
import { comparisonMarkdown, compareRows, thesisOverviewMarkdown } from '../../src/report/groups-comparison.ts';
import { CONFIG, thesisLikeRows } from './groups-cells.ts';

const line = (markdown: string, label: string): string => markdown.split('\n').find((l) => l.startsWith(`| ${label} |`)) ?? '';

describe('every cell of the thesis beside ours', () => {
  it("prints the thesis' table as it publishes it: mean ± 2σ ms and MB, its rows only", () => {
    const markdown = thesisOverviewMarkdown(CONFIG);
    expect(markdown.split('\n')[0]).toBe('| row | ResNeXt | GoogLeNet | MobileNetV2 | Xception | InceptionV3 |');
    expect(line(markdown, 'base (no reuse)')).toBe('| base (no reuse) | 234 ± 5 ms · 393.7 MB | 80 ± 3 ms · 67.9 MB | 81 ± 3 ms · 78.3 MB | 291 ± 2 ms · 268.5 MB | 369 ± 4 ms · 198.1 MB |');
    expect(line(markdown, 'method, 2 groups')).toBe('| method, 2 groups | 219 ± 2 ms · 108.8 MB | 78 ± 1 ms · 42.4 MB | 83 ± 4 ms · 30.3 MB | 291 ± 2 ms · 113.2 MB | 364 ± 3 ms · 122.6 MB |');
    expect(markdown).not.toMatch(/best planner/);
  });

  it('gives each row its statistic beside ours, both ratios to base and a verdict on each', () => {
    const markdown = comparisonMarkdown(CONFIG, thesisLikeRows('ResNeXt', 2), 'ResNeXt');
    expect(line(markdown, 'base (no reuse)')).toBe('| base (no reuse) | 234 ± 5 | not recorded | 468.0 [458.0, 478.0] | 1 | 1 | reference | 393.7 | 393.70 | 1 | 1 | reference |');
    expect(line(markdown, 'method, 2 groups')).toBe(
      '| method, 2 groups | 219 ± 2 | not recorded | 438.0 [434.0, 442.0] | 0.91–0.97x | 0.91–0.97x | holds | 108.8 | 108.80 | 0.28x | 0.28x · 0.28x | holds |',
    );
    expect(markdown.split('\n')).toHaveLength(2 + 5);
  });

  it('says a reversal in the cell, and waits where our row did not run', () => {
    const cells = thesisLikeRows('ResNeXt', 2, { '2-groups': { ms: 500, ci: [495, 505] }, 'layer-wise': { plannedMiB: 200 } }).filter((c) => c.row !== '1-group');
    const markdown = comparisonMarkdown(CONFIG, cells, 'ResNeXt');
    expect(line(markdown, 'method, 2 groups')).toMatch(/\| \*\*does not hold\*\*: reversed: slower here, faster in the thesis \| 108\.8 \|/);
    expect(line(markdown, 'layer-wise parallel (no reuse)')).toMatch(/\| 1\.00x \| 0\.51x · 0\.51x \| \*\*does not hold\*\*: less here, the same in the thesis \|$/);
    expect(line(markdown, 'method, 1 group')).toBe('| method, 1 group | 227 ± 2 | — | — | — | — | *pending* | 111.8 | — | — | — | *pending* |');
  });

  it('states our mean ± 2σ as the thesis states its own, where the run kept them', () => {
    const cells = thesisLikeRows('ResNeXt', 2, { '2-groups': { ms: 438, ci: [434, 442], sdMs: 3.25 } });
    expect(line(comparisonMarkdown(CONFIG, cells, 'ResNeXt'), 'method, 2 groups')).toMatch(/^\| method, 2 groups \| 219 ± 2 \| 438\.5 ± 6\.5 \| 438\.0 \[434\.0, 442\.0\] \|/);
  });

  it('compares memory on what the network holds, weights included, with the arenas beside', () => {
    // Weights of 100 MiB on every row: 108.8 + 100 against 393.7 + 100 held.
    const cells = thesisLikeRows('ResNeXt', 2, Object.fromEntries(['base', 'minimization', 'layer-wise', '1-group', '2-groups'].map((row) => [row, { weightsMiB: 100 }])));
    const memory = compareRows(CONFIG, cells, 'ResNeXt', 'minimization', 'base').memory!;
    expect(memory.oursRatio).toBeCloseTo(208.8 / 493.7, 12);
    expect(memory.plannedRatio).toBeCloseTo(108.8 / 393.7, 12);
    expect(memory.verdict).toBe('holds in direction');
  });
});
