import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeProblem } from '../../../src/core/problem.ts';
import { allocationPictureSpec } from '../../../src/report/charts/allocation-picture.ts';
import { CHART_FONT, loadChartFonts, missingChartFonts, normalizeSvg, renderChart, renderSvg, withChartFont, type VegaLiteSpec } from '../../../src/report/charts/render.ts';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const PROBLEM = makeProblem('chain', [
  { id: 't0', size: 4096, first: 0, last: 1 },
  { id: 't1', size: 2048, first: 1, last: 2 },
  { id: 't2', size: 4096, first: 2, last: 3 },
]);
const SPEC = allocationPictureSpec(PROBLEM, [{ planner: 'By hand', offsets: [0, 4096, 0] }], { title: 'Render check', unit: 'KiB' });

/** A spec whose clipped line makes vega number a clip path from a process-wide counter. */
const CLIPPED: VegaLiteSpec = {
  title: 'Clipped',
  data: {
    values: [
      { a: 1, b: 1 },
      { a: 2, b: 3 },
    ],
  },
  mark: { type: 'line', clip: true },
  encoding: { x: { field: 'a', type: 'quantitative', scale: { domain: [0, 1.5] } }, y: { field: 'b', type: 'quantitative' } },
};

/** Width and height from the IHDR chunk. */
function pngSize(png: Uint8Array): [number, number] {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return [view.getUint32(16), view.getUint32(20)];
}

function svgSize(svg: string): [number, number] {
  const match = /<svg[^>]* width="([\d.]+)" height="([\d.]+)"/.exec(svg);
  expect(match).not.toBeNull();
  return [Number(match![1]), Number(match![2])];
}

/** The page size of a one-page PDF, from its MediaBox. */
function mediaBox(pdf: Uint8Array): number[] {
  const match = /\/MediaBox \[([^\]]*)\]/.exec(Buffer.from(pdf).toString('latin1'));
  expect(match).not.toBeNull();
  return match![1].trim().split(/\s+/).map(Number);
}

describe('normalizeSvg', () => {
  it('renumbers clip and gradient ids in order of appearance and rounds coordinates', () => {
    const raw =
      '<svg><g clip-path="url(#clip7)"><path d="M0.30000000000000004,1e-15h2.123456"/><rect fill="url(#p_gradient_5)" transform="translate(93.00000000000001,-0.0000001)"/></g>' +
      '<text aria-label="x: 0.30000000000000004">clip7</text><clipPath id="clip7"/><pattern id="p_gradient_5"><rect fill="url(#gradient_5)"/></pattern><linearGradient id="gradient_5"/></svg>';
    expect(normalizeSvg(raw)).toBe(
      '<svg><g clip-path="url(#clip1)"><path d="M0.3,0h2.123"/><rect fill="url(#p_gradient_0)" transform="translate(93,0)"/></g>' +
        '<text aria-label="x: 0.30000000000000004">clip7</text><clipPath id="clip1"/><pattern id="p_gradient_0"><rect fill="url(#gradient_0)"/></pattern><linearGradient id="gradient_0"/></svg>\n',
    );
  });
});

describe('renderSvg', () => {
  it('gives the same SVG for the same spec, also when vega numbers clip paths', async () => {
    const styled = withChartFont(CLIPPED);
    const first = await renderSvg(styled);
    const second = await renderSvg(styled);
    expect(second).toBe(first);
    expect(first).toContain('url(#clip1)');
    expect(first).toContain(`font-family="${CHART_FONT}"`);
    expect(first).toContain('Clipped');
  });

  it('reports vega-lite warnings instead of printing them', async () => {
    const warnings: string[] = [];
    const bad = { ...CLIPPED, encoding: { ...CLIPPED.encoding, color: { field: 'a', type: 'nominal', scale: { type: 'log' } } } } as VegaLiteSpec;
    await renderSvg(bad, { onWarning: (message) => warnings.push(message) });
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]).toMatch(/^vega-lite: /);
  });
});

describe('loadChartFonts', () => {
  it('names the missing font file and the package to install', async () => {
    await expect(loadChartFonts('/nonexistent-font-dir')).rejects.toThrow(/\/nonexistent-font-dir\/DejaVuSans\.ttf .*missing.*fonts-dejavu-core/);
    await expect(renderChart(SPEC, join(tmpdir(), 'never-written'), { fontDir: '/nonexistent-font-dir' })).rejects.toThrow(/DejaVuSans\.ttf/);
  });
});

const missing = await missingChartFonts();
if (missing.length > 0) {
  console.warn(`SKIPPED: renderChart's PNG tests need ${missing.join(', ')} (Debian package fonts-dejavu-core).`);
}

describe('renderChart', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memplan-charts-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(missing.length > 0)('writes the spec, an SVG with the title, a 2x PNG and a PDF of the same size, byte-identical on a second run', async () => {
    const base = join(dir, 'chart');
    const paths = await renderChart(SPEC, base);
    expect(paths).toEqual({ spec: `${base}.vl.json`, svg: `${base}.svg`, png: `${base}.png`, pdf: `${base}.pdf` });
    expect((await readdir(dir)).sort()).toEqual(['chart.pdf', 'chart.png', 'chart.svg', 'chart.vl.json']);

    const spec = JSON.parse(await readFile(paths.spec, 'utf8'));
    expect(spec.config.font).toBe(CHART_FONT);
    expect(spec.hconcat).toHaveLength(1);
    // Fitted to its figure: the right padding takes what the plot leaves of 672 px.
    expect(spec.padding).toMatchObject({ left: 5, top: 5, bottom: 5 });

    const svg = await readFile(paths.svg, 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('Render check');
    expect(svg).toContain('footprint 6.00 KiB');

    const png = new Uint8Array(await readFile(paths.png));
    expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    const [width, height] = svgSize(svg);
    expect(pngSize(png)).toEqual([2 * width, 2 * height]);
    // A two-column figure: 7 in at 96 px per inch.
    expect(width).toBe(672);
    expect(png.length).toBeGreaterThan(10_000);

    const pdf = new Uint8Array(await readFile(paths.pdf));
    expect(Buffer.from(pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    // 72 points per inch: the page is 7 in wide, as the SVG.
    expect(mediaBox(pdf)).toEqual([0, 0, width * 0.75, height * 0.75]);
    expect(mediaBox(pdf)[2]).toBe(7 * 72);

    const again = await renderChart(SPEC, join(dir, 'again'));
    expect(await readFile(again.svg, 'utf8')).toBe(svg);
    expect(new Uint8Array(await readFile(again.png))).toEqual(png);
    expect(new Uint8Array(await readFile(again.pdf))).toEqual(pdf);
    expect(await readFile(again.spec, 'utf8')).toBe(await readFile(paths.spec, 'utf8'));
  });
});
