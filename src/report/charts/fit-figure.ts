import type { ChartFonts } from './chart-fonts.ts';
import { FIGURE_WIDTH_PX, figureSizeOf, FONT_PX, type FigureSize } from './figure-sizes.ts';
import type { VegaLiteSpec } from './vega-lite-spec.ts';

/** Vega-lite's padding around a chart (px), kept on three sides; the right side takes what is left. */
const PADDING = 5;
/** Scale factors tried at most: each is a render. */
const ATTEMPTS = 10;
/** The plots are never shrunk or grown beyond these factors of what the spec asks for. */
const MIN_FACTOR = 0.1;
const MAX_FACTOR = 5;
/** Plot widths (px) are never drawn narrower than this, whatever the labels beside them take. */
const MIN_PLOT_PX = 40;

/** What one render gives: its SVG (whose root width is measured), anything else the caller keeps. */
export interface Rendered {
  readonly svg: string;
}

/** The width of an SVG as its root element says. */
export function svgWidth(svg: string): number {
  const match = /^<svg[^>]*?\swidth="([\d.]+)"/.exec(svg);
  if (!match) throw new Error('fit figure: the SVG has no width attribute on its root element.');
  return Number(match[1]);
}

/** Keys of a vega-lite view whose values hold no view (their `width` is a mark's, a title's, data). */
const NOT_VIEWS = new Set(['config', 'data', 'datasets', 'encoding', 'mark', 'title', 'transform', 'params', 'usermeta', 'resolve', 'projection', 'selection']);

/**
 * A copy of `spec` with every view's width (a number, or a step) times `factor`: plots grow
 * or shrink, labels, legends and titles stay as they are.
 */
export function scaleWidths(spec: unknown, factor: number): unknown {
  if (Array.isArray(spec)) return spec.map((item) => scaleWidths(item, factor));
  if (typeof spec !== 'object' || spec === null) return spec;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(spec)) {
    if (key === 'width' && typeof value === 'number') copy[key] = Math.max(MIN_PLOT_PX, Math.round(value * factor * 100) / 100);
    else if (key === 'width' && typeof value === 'object' && value !== null && typeof (value as { step?: unknown }).step === 'number') {
      const step = (value as { step: number }).step;
      copy[key] = { ...value, step: Math.round(step * factor * 100) / 100 };
    } else copy[key] = NOT_VIEWS.has(key) ? value : scaleWidths(value, factor);
  }
  return copy;
}

/** `text` broken at spaces into lines no wider than `width` px (a longer word keeps a line of its own). */
export function wrapText(text: string, width: number, measure: (text: string) => number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const longer = line === '' ? word : `${line} ${word}`;
    if (line !== '' && measure(longer) > width) {
      lines.push(line);
      line = word;
    } else {
      line = longer;
    }
  }
  lines.push(line);
  return lines;
}

function linesOf(text: unknown): string[] {
  if (typeof text === 'string') return [text];
  return Array.isArray(text) ? text.map(String) : [];
}

/** The spec with its title and subtitle wrapped to `width` px (a title wider than the figure would widen it). */
function wrapTitle(spec: VegaLiteSpec, width: number, fonts: ChartFonts): VegaLiteSpec {
  const raw = (spec as { title?: unknown }).title;
  if (raw === undefined) return spec;
  const title = typeof raw === 'string' || Array.isArray(raw) ? { text: raw } : (raw as Record<string, unknown>);
  const config = ((spec as { config?: { title?: { fontSize?: number; subtitleFontSize?: number } } }).config?.title ?? {}) as { fontSize?: number; subtitleFontSize?: number };
  const size = Number(title.fontSize ?? config.fontSize ?? FONT_PX.title);
  const subtitleSize = Number(title.subtitleFontSize ?? config.subtitleFontSize ?? FONT_PX.text);
  const wrap = (text: unknown, measure: (line: string) => number) => linesOf(text).flatMap((line) => wrapText(line, width, measure));
  const wrapped: Record<string, unknown> = { ...title, text: wrap(title.text, (line) => fonts.bold.width(line, size)) };
  if (title.subtitle !== undefined) wrapped.subtitle = wrap(title.subtitle, (line) => fonts.regular.width(line, subtitleSize));
  return { ...spec, title: wrapped } as unknown as VegaLiteSpec;
}

function withPadding(spec: unknown, right: number): VegaLiteSpec {
  return { ...(spec as object), padding: { left: PADDING, top: PADDING, bottom: PADDING, right: Math.round(right * 1000) / 1000 } } as VegaLiteSpec;
}

/**
 * Lays a paper figure out at its width (`usermeta.figure`, figure-sizes.ts): wraps its title,
 * then scales the widths of its plots until the whole chart (axes, legends, titles) is as
 * wide as the figure, or just under, and pads the right edge to the exact width. Labels take
 * the room they need; the plots take the rest. A spec that is no paper figure is rendered as
 * it is. Throws when the chart cannot fit (labels alone wider than the figure).
 */
export async function fitFigure<R extends Rendered>(spec: VegaLiteSpec, render: (spec: VegaLiteSpec) => Promise<R>, fonts: ChartFonts): Promise<{ spec: VegaLiteSpec; rendered: R }> {
  const size: FigureSize | undefined = figureSizeOf(spec);
  if (size === undefined) return { spec, rendered: await render(spec) };
  const target = FIGURE_WIDTH_PX[size];
  const titled = wrapTitle(spec, target - 2 * PADDING, fonts);
  const widthAt = async (factor: number) => svgWidth((await render(withPadding(scaleWidths(titled, factor), PADDING))).svg);

  // Width grows with the plots' widths, nearly linearly but in steps (tick labels come and
  // go): keep the widest factor that fits and the narrowest that does not, and close in.
  let fits: { factor: number; width: number } | undefined;
  let over: { factor: number; width: number } | undefined;
  let factor = 1;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const width = await widthAt(factor);
    if (width <= target) {
      if (fits === undefined || factor > fits.factor) fits = { factor, width };
    } else if (over === undefined || factor < over.factor) over = { factor, width };
    if (fits !== undefined && target - fits.width < 1) break;
    if (fits === undefined) factor = over!.factor * 0.7;
    else if (over === undefined) factor = fits.factor * 1.3;
    else {
      const span = over.factor - fits.factor;
      if (span < 0.002) break;
      const secant = fits.factor + ((target - 0.5 - fits.width) * span) / (over.width - fits.width);
      factor = Math.min(over.factor - 0.1 * span, Math.max(fits.factor + 0.1 * span, secant));
    }
    if (factor < MIN_FACTOR || factor > MAX_FACTOR) break;
  }
  if (fits === undefined) {
    throw new Error(`chart "${titleText(spec)}" is ${over!.width.toFixed(0)} px wide at its narrowest, wider than ${size} (${target} px): shorten its labels or draw fewer panels side by side.`);
  }
  const best = fits;
  const fitted = withPadding(scaleWidths(titled, best.factor), PADDING + target - best.width);
  return { spec: fitted, rendered: await render(fitted) };
}

function titleText(spec: VegaLiteSpec): string {
  const title = (spec as { title?: unknown }).title;
  const text = typeof title === 'object' && title !== null && !Array.isArray(title) ? (title as { text?: unknown }).text : title;
  return linesOf(text).join(' ');
}
