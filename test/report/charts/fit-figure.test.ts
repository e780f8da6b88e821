import { describe, expect, it } from 'vitest';
import { loadChartFonts, missingChartFonts } from '../../../src/report/charts/chart-fonts.ts';
import { paperFigure } from '../../../src/report/charts/figure-sizes.ts';
import { fitFigure, scaleWidths, svgWidth, wrapText } from '../../../src/report/charts/fit-figure.ts';
import { renderSvg, type VegaLiteSpec, withChartFont } from '../../../src/report/charts/render.ts';

const missing = await missingChartFonts();
if (missing.length > 0) console.warn(`SKIPPED: fitting needs ${missing.join(', ')} (Debian package fonts-dejavu-core).`);

/** A facet of two panels with a bar's own width, which is no view's. */
const FACETED = {
  facet: { field: 'k', type: 'nominal' },
  spec: { width: 100, height: 50, layer: [{ mark: { type: 'bar', width: 4 }, encoding: { x: { value: 'width' } } }] },
  config: { view: { continuousWidth: 200 } },
};

describe('scaleWidths', () => {
  it("scales every view's width and step, not a mark's, the config's or a value", () => {
    expect(scaleWidths(FACETED, 1.5)).toEqual({
      ...FACETED,
      spec: { ...FACETED.spec, width: 150 },
    });
    expect(scaleWidths({ hconcat: [{ width: { step: 10, for: 'offset' } }, { width: 81 }] }, 0.5)).toEqual({ hconcat: [{ width: { step: 5, for: 'offset' } }, { width: 40.5 }] });
  });

  it('never draws a plot narrower than 40 px', () => {
    expect(scaleWidths({ width: 100 }, 0.01)).toEqual({ width: 40 });
  });
});

describe('wrapText', () => {
  it('breaks at spaces so that no line is wider than asked, a long word on a line of its own', () => {
    const measure = (text: string) => text.length * 10;
    expect(wrapText('one two three four', 90, measure)).toEqual(['one two', 'three', 'four']);
    expect(wrapText('incomprehensibilities x', 90, measure)).toEqual(['incomprehensibilities', 'x']);
    expect(wrapText('short', 90, measure)).toEqual(['short']);
  });
});

describe('svgWidth', () => {
  it("reads the root element's width", () => {
    expect(svgWidth('<svg xmlns="x" width="317" height="20"><rect width="5"/></svg>')).toBe(317);
    expect(() => svgWidth('<svg></svg>')).toThrow(/no width/);
  });
});

const fonts = missing.length > 0 ? undefined : await loadChartFonts();

describe.skipIf(fonts === undefined)('fitFigure', () => {
  const render = async (spec: VegaLiteSpec) => ({ svg: await renderSvg(spec, { fonts }) });
  const chart = (width: number, title: string): VegaLiteSpec =>
    withChartFont({
      title,
      data: {
        values: [
          { a: 1, b: 2 },
          { a: 3, b: 40 },
        ],
      },
      mark: 'point',
      width,
      height: 80,
      encoding: { x: { field: 'a', type: 'quantitative' }, y: { field: 'b', type: 'quantitative' } },
      ...paperFigure('one-column'),
    } as VegaLiteSpec);

  it('lays a figure out at exactly its width, from a plot too wide or too narrow', async () => {
    for (const width of [600, 60]) {
      const { spec, rendered } = await fitFigure(chart(width, 'Fit'), render, fonts!);
      expect(svgWidth(rendered.svg)).toBe(317);
      expect((spec as { width: number }).width).toBeLessThan(317);
      expect((spec as { width: number }).width).toBeGreaterThan(200);
    }
  });

  it('wraps a title wider than the figure into lines', async () => {
    const long = 'A title far too long for one column of a paper, which vega would otherwise draw on one line';
    const { spec, rendered } = await fitFigure(chart(200, long), render, fonts!);
    const lines = (spec as { title: { text: string[] } }).title.text;
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join(' ')).toBe(long);
    expect(svgWidth(rendered.svg)).toBe(317);
  });

  it('renders a spec that is no paper figure as it is', async () => {
    const plain = withChartFont({ mark: 'point', width: 500, height: 50, data: { values: [{ a: 1 }] }, encoding: { x: { field: 'a', type: 'quantitative' } } } as VegaLiteSpec);
    const { spec, rendered } = await fitFigure(plain, render, fonts!);
    expect(spec).toBe(plain);
    expect(svgWidth(rendered.svg)).toBeGreaterThan(500);
  });

  it('says so when the labels alone are wider than the figure', async () => {
    const label = 'a label that no one column can hold beside a plot, however narrow the plot is drawn'.repeat(2);
    const wide = withChartFont({
      title: 'Too wide',
      data: { values: [{ p: label, v: 1 }] },
      mark: 'point',
      width: 100,
      encoding: { y: { field: 'p', type: 'nominal' }, x: { field: 'v', type: 'quantitative' } },
      ...paperFigure('one-column'),
    } as VegaLiteSpec);
    await expect(fitFigure(wide, render, fonts!)).rejects.toThrow(/chart "Too wide" is \d+ px wide at its narrowest, wider than one-column \(317 px\)/);
  });
});
