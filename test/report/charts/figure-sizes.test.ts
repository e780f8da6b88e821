import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  FIGURE_INCHES,
  FIGURE_WIDTH_PX,
  figureSizeOf,
  FONT_PX,
  MIN_FONT_PX,
  paperFigure,
  PX_PER_INCH,
  wrapLabel,
  wrappedLabelExpr,
  wrappedLabelOffset,
} from '../../../src/report/charts/figure-sizes.ts';
import { missingChartFonts, renderChart } from '../../../src/report/charts/render.ts';
import { FIGURES } from './chart-fixtures.ts';
import { expectCompiles } from './spec-data.ts';

describe('the figure sizes', () => {
  it('are one column (3.3 in) and two columns (7 in) at 96 px per inch, text at 7 pt or more', () => {
    expect(FIGURE_WIDTH_PX['one-column']).toBe(Math.round(FIGURE_INCHES['one-column'] * PX_PER_INCH));
    expect(FIGURE_WIDTH_PX['two-column']).toBe(FIGURE_INCHES['two-column'] * PX_PER_INCH);
    expect(MIN_FONT_PX).toBeCloseTo(9.333, 3);
    for (const size of Object.values(FONT_PX)) expect(size).toBeGreaterThanOrEqual(MIN_FONT_PX);
  });

  it("merge a chart's config over the paper's, one level deep, and mark the spec with its size", () => {
    const figure = paperFigure('one-column', { axis: { grid: false }, view: { stroke: null } });
    expect(figure.usermeta).toEqual({ figure: 'one-column' });
    expect(figure.config.axis).toMatchObject({ grid: false, labelFontSize: FONT_PX.text, labelLimit: 0 });
    expect(figure.config.view).toEqual({ stroke: null });
    expect(figureSizeOf(figure)).toBe('one-column');
    expect(figureSizeOf({ usermeta: { figure: 'poster' } })).toBeUndefined();
  });

  it('wrap long labels at spaces into lines, and centre them on their tick', () => {
    expect(wrapLabel('Greedy by Size')).toBe('Greedy by Size');
    expect(wrapLabel('Strip Packing Best-fit, smaller first on equal lifetimes (variant)')).toEqual(['Strip Packing Best-fit,', 'smaller first on equal', 'lifetimes (variant)']);
    expect(wrapLabel('shared-objects/greedy-by-size-improved-size-first')).toEqual(['shared-objects/greedy-by-size-', 'improved-size-first']);
    expect(wrappedLabelExpr(['short'])).toBeUndefined();
    const labels = ['short', 'Best of Greedy by Size and Strip Packing Best-fit'];
    expect(wrappedLabelExpr(labels)).toBe('datum.label === "Best of Greedy by Size and Strip Packing Best-fit" ? ["Best of Greedy by Size and","Strip Packing Best-fit"] : datum.label');
    expect(wrappedLabelOffset(labels)).toEqual({ condition: [{ test: 'datum.label === "Best of Greedy by Size and Strip Packing Best-fit"', value: -(FONT_PX.text + 2) / 2 }], value: 0 });
  });
});

const missing = await missingChartFonts();
if (missing.length > 0) console.warn(`SKIPPED: rendering every chart needs ${missing.join(', ')} (Debian package fonts-dejavu-core).`);

/** The page size of a one-page PDF, from its MediaBox. */
function mediaBox(pdf: Buffer): number[] {
  const match = /\/MediaBox \[([^\]]*)\]/.exec(pdf.toString('latin1'));
  expect(match).not.toBeNull();
  return match![1].trim().split(/\s+/).map(Number);
}

describe('every chart builder', () => {
  let dir = '';
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.each(FIGURES.map((f) => [f.name, f] as const))('%s: compiles without warnings and says its figure size', (_name, figure) => {
    expectCompiles(figure.spec);
    expect(figureSizeOf(figure.spec)).toBe(figure.size);
  });

  it.skipIf(missing.length > 0).each(FIGURES.map((f) => [f.name, f] as const))(
    '%s: renders at its figure width, every text 7 pt or more and whole, a PDF the same size',
    async (name, figure) => {
      dir ||= await mkdtemp(join(tmpdir(), 'memplan-figures-'));
      const warnings: string[] = [];
      const paths = await renderChart(figure.spec, join(dir, name), { onWarning: (m) => warnings.push(m) });
      expect(warnings).toEqual([]);
      const svg = await readFile(paths.svg, 'utf8');
      const root = /^<svg[^>]*? width="([\d.]+)" height="([\d.]+)"/.exec(svg);
      expect(root).not.toBeNull();
      const [width, height] = [Number(root![1]), Number(root![2])];
      expect(width).toBeLessThanOrEqual(FIGURE_WIDTH_PX[figure.size]);
      // Fitted: as wide as the column, so that it is printed at 100%.
      expect(width).toBeGreaterThan(FIGURE_WIDTH_PX[figure.size] - 1);
      const sizes = [...svg.matchAll(/font-size="([\d.]+)px"/g)].map((m) => Number(m[1]));
      expect(sizes.length).toBeGreaterThan(0);
      expect(Math.min(...sizes)).toBeGreaterThanOrEqual(MIN_FONT_PX);
      // Vega marks a cut label with an ellipsis.
      expect(svg).not.toContain('…');
      const pdf = await readFile(paths.pdf);
      expect(pdf.subarray(0, 4).toString('latin1')).toBe('%PDF');
      expect(mediaBox(pdf)).toEqual([0, 0, width * 0.75, height * 0.75]);
    },
    60_000,
  );
});
