import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { writeFileAtomic } from '../../io/atomic-write.ts';
import { readFontMetrics, type FontMetrics } from './font-metrics.ts';

/** A vega-lite specification (what the spec builders return, what `<base>.vl.json` holds). */
export type VegaLiteSpec = TopLevelSpec;

export const VEGA_LITE_SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

/** The one typeface of every chart: metrics for the layout, glyphs for the PNG. */
export const CHART_FONT = 'DejaVu Sans';
export const CHART_FONT_DIR = '/usr/share/fonts/truetype/dejavu';
const FONT_FILE_NAMES = { regular: 'DejaVuSans.ttf', bold: 'DejaVuSans-Bold.ttf' } as const;
const FONT_PACKAGE = 'fonts-dejavu-core';

/** PNGs are drawn at twice the SVG's size, so that text stays crisp. */
export const PNG_SCALE = 2;

export interface ChartFonts {
  /** Paths of the regular and bold faces. */
  readonly files: { readonly regular: string; readonly bold: string };
  readonly regular: FontMetrics;
  readonly bold: FontMetrics;
}

/** The font files `loadChartFonts(dir)` needs that are not there (empty when all are). */
export async function missingChartFonts(dir: string = CHART_FONT_DIR): Promise<string[]> {
  const missing: string[] = [];
  for (const name of Object.values(FONT_FILE_NAMES)) {
    const path = join(dir, name);
    try {
      await access(path);
    } catch {
      missing.push(path);
    }
  }
  return missing;
}

/** Reads DejaVu Sans (regular and bold); a clear Error naming the file when one is missing. */
export async function loadChartFonts(dir: string = CHART_FONT_DIR): Promise<ChartFonts> {
  const missing = await missingChartFonts(dir);
  if (missing.length > 0) {
    throw new Error(`Charts need the font file ${missing.join(' and ')}, which is missing; ` + `install the Debian package ${FONT_PACKAGE} (apt-get install ${FONT_PACKAGE}).`);
  }
  const regular = join(dir, FONT_FILE_NAMES.regular);
  const bold = join(dir, FONT_FILE_NAMES.bold);
  return {
    files: { regular, bold },
    regular: readFontMetrics(await readFile(regular), regular),
    bold: readFontMetrics(await readFile(bold), bold),
  };
}

/** The spec with every text set in `CHART_FONT` (config.font), the rest of its config kept. */
export function withChartFont(spec: VegaLiteSpec): VegaLiteSpec {
  return { ...spec, config: { ...spec.config, font: CHART_FONT } } as VegaLiteSpec;
}

export interface CompiledChart {
  /** The vega specification vega-lite produced. */
  readonly vega: vega.Spec;
  /** What vega-lite warned about (an empty list for every spec this project builds). */
  readonly warnings: readonly string[];
}

/** A logger that keeps warnings and errors instead of printing them. */
function collectingLogger(messages: string[]): vega.LoggerInterface {
  let current = vega.Warn;
  const keep =
    (level: number) =>
    (...args: readonly unknown[]) => {
      if (current >= level) messages.push(args.map(String).join(' '));
      return logger;
    };
  const logger = {
    level(value?: number) {
      if (value === undefined) return current;
      current = value;
      return logger;
    },
    error: keep(vega.Error),
    warn: keep(vega.Warn),
    info: keep(vega.Info),
    debug: keep(vega.Debug),
  } as vega.LoggerInterface;
  return logger;
}

/** Compiles with vega-lite; its errors throw, its warnings are returned. */
export function compileChart(spec: VegaLiteSpec): CompiledChart {
  const warnings: string[] = [];
  const compiled = compile(spec, { logger: collectingLogger(warnings) });
  return { vega: compiled.spec as vega.Spec, warnings };
}

/**
 * Vega's text measurement, which the spec's layout depends on. It is module state in
 * vega-scenegraph, so renders take turns (`exclusive`) and each sets it for itself.
 */
interface TextMetricsHook {
  width: (item: { fontSize?: number; fontWeight?: string | number; limit?: number }, text: string) => number;
  estimateWidth: (item: object, text: string) => number;
}

function textMetricsHook(): TextMetricsHook {
  const hook = (vega as unknown as { textMetrics?: TextMetricsHook }).textMetrics;
  if (!hook || typeof hook.estimateWidth !== 'function') {
    throw new Error('This version of vega does not export textMetrics; pin vega ~6.4 as package.json does.');
  }
  return hook;
}

function isBold(weight: string | number | undefined): boolean {
  if (weight === undefined) return false;
  if (typeof weight === 'number') return weight >= 600;
  return weight === 'bold' || weight === 'bolder' || Number(weight) >= 600;
}

let turn: Promise<unknown> = Promise.resolve();
function exclusive<T>(task: () => Promise<T>): Promise<T> {
  const result = turn.then(task, task);
  turn = result.catch(() => undefined);
  return result;
}

const GEOMETRY_ATTRIBUTES = /\s(d|transform|x|y|x1|x2|y1|y2|cx|cy|r|dx|dy|width|height|viewBox|points|stroke-width|stroke-dasharray|stroke-dashoffset)="([^"]*)"/g;
const NUMBER = /-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/gi;

function roundNumber(text: string): string {
  if (!/[.e]/i.test(text)) return text;
  const rounded = Number(Number(text).toFixed(3));
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

/**
 * Makes vega's SVG the same on every run and platform: the ids it numbers from
 * process-wide counters (`clip1`, `gradient_0`) are renumbered in order of appearance,
 * and coordinates are rounded to 1/1000 px (floating-point noise such as
 * 93.00000000000001 otherwise depends on the order of operations of a vega version).
 */
export function normalizeSvg(svg: string): string {
  const ids = new Map<string, string>();
  const counts = new Map<string, number>();
  const renumbered = svg.replace(/(id="|url\(#)(p_)?(clip|gradient_)(\d+)(?=[")])/g, (_match, lead: string, prefix: string | undefined, kind: string, n: string) => {
    let id = ids.get(kind + n);
    if (id === undefined) {
      const count = counts.get(kind) ?? 0;
      counts.set(kind, count + 1);
      id = `${kind}${kind === 'clip' ? count + 1 : count}`;
      ids.set(kind + n, id);
    }
    return lead + (prefix ?? '') + id;
  });
  const rounded = renumbered.replace(GEOMETRY_ATTRIBUTES, (_match, name: string, value: string) => ` ${name}="${value.replace(NUMBER, roundNumber)}"`);
  return rounded.endsWith('\n') ? rounded : `${rounded}\n`;
}

export interface SvgOptions {
  /** Measure text with these fonts; without them vega's estimate (0.8 em a character) lays out the text. */
  readonly fonts?: ChartFonts;
  /** Receives vega-lite's and vega's warnings; the default prints them with console.warn. */
  readonly onWarning?: (message: string) => void;
}

function defaultWarning(message: string): void {
  console.warn(`chart: ${message}`);
}

/** Renders a vega-lite spec (as given: apply `withChartFont` first for the charts' font) to SVG. */
export function renderSvg(spec: VegaLiteSpec, options: SvgOptions = {}): Promise<string> {
  const onWarning = options.onWarning ?? defaultWarning;
  const compiled = compileChart(spec);
  compiled.warnings.forEach((message) => onWarning(`vega-lite: ${message}`));
  return exclusive(async () => {
    const hook = textMetricsHook();
    const previous = hook.width;
    const fonts = options.fonts;
    hook.width = fonts
      ? (item, text) => {
          const size = item.fontSize != null ? Number(item.fontSize) || 0 : 11;
          const value = text == null ? '' : String(text).trim();
          const width = (isBold(item.fontWeight) ? fonts.bold : fonts.regular).width(value, size);
          // Vega truncates text longer than `limit` (with an ellipsis) to less than the limit.
          const limit = Number(item.limit);
          return limit > 0 ? Math.min(width, limit) : width;
        }
      : hook.estimateWidth;
    const messages: string[] = [];
    const view = new vega.View(vega.parse(compiled.vega), {
      renderer: 'none',
      logger: collectingLogger(messages),
    });
    try {
      (vega as unknown as { resetSVGDefIds?: () => void }).resetSVGDefIds?.();
      const svg = await view.toSVG();
      messages.forEach((message) => onWarning(`vega: ${message}`));
      return normalizeSvg(svg);
    } finally {
      view.finalize();
      hook.width = previous;
    }
  });
}

/** Draws an SVG at `scale` times its size with the chart fonts only (no system fonts). */
export function svgToPng(svg: string, fonts: ChartFonts, scale: number = PNG_SCALE): Uint8Array {
  const image = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: scale },
    font: {
      fontFiles: [fonts.files.regular, fonts.files.bold],
      loadSystemFonts: false,
      defaultFontFamily: CHART_FONT,
      sansSerifFamily: CHART_FONT,
    },
    logLevel: 'off',
  });
  return new Uint8Array(image.render().asPng());
}

export interface RenderedChart {
  /** `<base>.vl.json`: the spec as rendered (font set), pretty JSON, for restyling. */
  readonly spec: string;
  readonly svg: string;
  readonly png: string;
}

/**
 * Renders a chart to `<basePath>.vl.json`, `.svg` and `.png` (2x), each written
 * atomically. The same spec gives byte-identical files on every run. Throws, before
 * writing anything, when the DejaVu fonts are missing.
 */
export async function renderChart(spec: VegaLiteSpec, basePath: string, options: { readonly onWarning?: (message: string) => void; readonly fontDir?: string } = {}): Promise<RenderedChart> {
  const fonts = await loadChartFonts(options.fontDir);
  const styled = withChartFont(spec);
  const svg = await renderSvg(styled, { fonts, onWarning: options.onWarning });
  const png = svgToPng(svg, fonts);
  const paths: RenderedChart = { spec: `${basePath}.vl.json`, svg: `${basePath}.svg`, png: `${basePath}.png` };
  await writeFileAtomic(paths.spec, `${JSON.stringify(styled, null, 2)}\n`);
  await writeFileAtomic(paths.svg, svg);
  await writeFileAtomic(paths.png, png);
  return paths;
}
