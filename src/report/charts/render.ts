import * as vega from 'vega';
import { compile } from 'vega-lite';
import { Resvg } from '@resvg/resvg-js';
import { writeFileAtomic } from '../../io/atomic-write.ts';
import { CHART_FONT, type ChartFonts, loadChartFonts } from './chart-fonts.ts';
import { fitFigure } from './fit-figure.ts';
import { svgToPdf } from './pdf.ts';
import type { VegaLiteSpec } from './vega-lite-spec.ts';

// The fonts and the spec type live in files of their own (fit-figure.ts and pdf.ts need them,
// and render.ts needs those two: no import circle); callers keep importing them from here.
export { CHART_FONT, CHART_FONT_DIR, type ChartFonts, loadChartFonts, missingChartFonts } from './chart-fonts.ts';
export { VEGA_LITE_SCHEMA, type VegaLiteSpec } from './vega-lite-spec.ts';

/** PNGs are drawn at twice the SVG's size, so that text stays crisp. */
export const PNG_SCALE = 2;

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
  /** `<base>.vl.json`: the spec as rendered (font set, fitted to its figure width), pretty JSON, for restyling. */
  readonly spec: string;
  readonly svg: string;
  readonly png: string;
  /** `<base>.pdf`: the SVG as a vector PDF of the same size (fonts embedded), for a paper. */
  readonly pdf: string;
}

/** The title of a spec as one line (the PDF's Title), or '' where it has none. */
function titleOf(spec: VegaLiteSpec): string {
  const title = (spec as { title?: unknown }).title;
  const text = typeof title === 'object' && title !== null && !Array.isArray(title) ? (title as { text?: unknown }).text : title;
  return (Array.isArray(text) ? text.map(String) : typeof text === 'string' ? [text] : []).join(' ');
}

/**
 * Renders a chart to `<basePath>.vl.json`, `.svg`, `.png` (2x) and `.pdf`, each written
 * atomically. A paper figure (`usermeta.figure`, figure-sizes.ts) is first fitted to its
 * width (one or two columns). The same spec gives byte-identical files on every run.
 * Throws, before writing anything, when the DejaVu fonts are missing.
 */
export async function renderChart(spec: VegaLiteSpec, basePath: string, options: { readonly onWarning?: (message: string) => void; readonly fontDir?: string } = {}): Promise<RenderedChart> {
  const fonts = await loadChartFonts(options.fontDir);
  // Fitting renders several times: only the last render's warnings are the chart's.
  const attempt = async (candidate: VegaLiteSpec) => {
    const warnings: string[] = [];
    const svg = await renderSvg(candidate, { fonts, onWarning: (message) => warnings.push(message) });
    return { svg, warnings };
  };
  const { spec: fitted, rendered } = await fitFigure(withChartFont(spec), attempt, fonts);
  rendered.warnings.forEach(options.onWarning ?? defaultWarning);
  const { svg } = rendered;
  const png = svgToPng(svg, fonts);
  const pdf = await svgToPdf(svg, fonts, titleOf(fitted));
  const paths: RenderedChart = { spec: `${basePath}.vl.json`, svg: `${basePath}.svg`, png: `${basePath}.png`, pdf: `${basePath}.pdf` };
  await writeFileAtomic(paths.spec, `${JSON.stringify(fitted, null, 2)}\n`);
  await writeFileAtomic(paths.svg, svg);
  await writeFileAtomic(paths.png, png);
  await writeFileAtomic(paths.pdf, pdf);
  return paths;
}
