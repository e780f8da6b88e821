import { describe, expect, it } from 'vitest';
import { loadChartFonts, missingChartFonts } from '../../../src/report/charts/chart-fonts.ts';
import { POINTS_PER_PIXEL, solidForGaplessDashes, svgSize, svgToPdf } from '../../../src/report/charts/pdf.ts';

/** What vega draws: a clipped group, a dashed path, bold and regular text, opacity. */
const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="317" height="120" viewBox="0 0 317 120">' +
  '<defs><clipPath id="clip1"><rect x="0" y="0" width="200" height="100"/></clipPath></defs>' +
  '<rect width="317" height="120" fill="white"/>' +
  '<g transform="translate(10,10)" clip-path="url(#clip1)"><path d="M0,50L100,20L200,80" stroke="#4c78a8" stroke-width="1.5" stroke-dasharray="6,4" fill="none"/>' +
  '<rect x="20" y="60" width="30" height="30" fill="#e45756" fill-opacity="0.7"/></g>' +
  '<text transform="translate(10,110)" font-family="DejaVu Sans" font-size="12px" font-weight="bold" fill="#000">Bold title</text>' +
  '<text text-anchor="end" transform="translate(300,110)" font-family="DejaVu Sans" font-size="10px" fill="#000"><tspan>two</tspan><tspan x="0" dy="12">lines</tspan></text>' +
  '</svg>\n';

const text = (pdf: Uint8Array): string => Buffer.from(pdf).toString('latin1');

const missing = await missingChartFonts();
if (missing.length > 0) console.warn(`SKIPPED: the PDF tests need ${missing.join(', ')} (Debian package fonts-dejavu-core).`);

describe('svgSize', () => {
  it('reads the root width and height, and refuses an SVG without them', () => {
    expect(svgSize(SVG)).toEqual({ width: 317, height: 120 });
    expect(() => svgSize('<svg viewBox="0 0 1 1"></svg>')).toThrow(/no width and height/);
  });
});

describe('solidForGaplessDashes', () => {
  it('makes a dash pattern without gaps, which SVG draws solid, "none"; other patterns stay', () => {
    expect(solidForGaplessDashes('<path stroke-dasharray="1,0"/><path stroke-dasharray="5,3"/><path stroke-dasharray="4 0 2 0"/>')).toBe(
      '<path stroke-dasharray="none"/><path stroke-dasharray="5,3"/><path stroke-dasharray="none"/>',
    );
    // An odd list repeats: 2,0,3 is 2,0,3,2,0,3, whose gaps are 0, 2 and 0.
    expect(solidForGaplessDashes('<path stroke-dasharray="2,0,3"/>')).toBe('<path stroke-dasharray="2,0,3"/>');
  });
});

describe.skipIf(missing.length > 0)('svgToPdf', () => {
  it('writes a one-page PDF of the SVG size in points, 3.3 in for 317 px', async () => {
    const fonts = await loadChartFonts();
    const pdf = await svgToPdf(SVG, fonts, 'A chart');
    expect(text(pdf.subarray(0, 5))).toBe('%PDF-');
    expect(text(pdf)).toContain(`/MediaBox [0 0 ${317 * POINTS_PER_PIXEL} ${120 * POINTS_PER_PIXEL}]`);
    expect(317 * POINTS_PER_PIXEL).toBeCloseTo(3.3 * 72, 0);
    expect(text(pdf).match(/\/Type \/Page\b/g)).toHaveLength(1);
  });

  it('embeds the chart fonts as subsets and draws text as text', async () => {
    const pdf = text(await svgToPdf(SVG, await loadChartFonts(), 'A chart'));
    expect(pdf).toMatch(/\/BaseFont \/[A-Z]{6}\+DejaVuSans\b/);
    expect(pdf).toMatch(/\/BaseFont \/[A-Z]{6}\+DejaVuSans-Bold\b/);
    expect(pdf.match(/\/FontFile2 /g)).toHaveLength(2);
    // Vector: text operators, no image.
    expect(pdf).toContain(' Tj');
    expect(pdf).not.toContain('/Subtype /Image');
  });

  it('is byte-identical on every run: a fixed creation date, so a fixed document id', async () => {
    const fonts = await loadChartFonts();
    const first = await svgToPdf(SVG, fonts, 'A chart');
    const second = await svgToPdf(SVG, fonts, 'A chart');
    expect(second).toEqual(first);
    expect(text(first)).toContain('(D:20200101000000Z)');
    expect(text(first)).toMatch(/\/ID \[<([0-9a-f]{32})> <\1>\]/);
    // The id follows the title: two charts do not share one.
    const other = text(await svgToPdf(SVG, fonts, 'Another chart'));
    expect(/\/ID \[<([0-9a-f]{32})>/.exec(other)![1]).not.toBe(/\/ID \[<([0-9a-f]{32})>/.exec(text(first))![1]);
  });

  it('draws the solid line of a dash scale (vega writes "1,0", which pdfkit refuses as it is)', async () => {
    const solid = SVG.replace('stroke-dasharray="6,4"', 'stroke-dasharray="1,0"');
    const pdf = text(await svgToPdf(solid, await loadChartFonts(), 'Solid'));
    // No dash pattern is set: the line is solid.
    expect(pdf).not.toMatch(/\[[^\]]+\] [\d.]+ d\n/);
  });

  it('refuses an SVG that SVG-to-PDFKit cannot draw, saying what it met', async () => {
    await expect(svgToPdf('<svg width="10" height="10"><g><rect/></svg>', await loadChartFonts(), 'Broken')).rejects.toThrow(/PDF of "Broken": SVG-to-PDFKit could not draw part of the SVG: parseXml/);
  });
});
