/**
 * The two widths a paper prints a figure at, and the smallest text. A chart is laid out at
 * the width it is printed at, so that nothing is scaled on the page: one column is 3.3 in,
 * two columns 7 in, at 96 CSS px per inch (the SVG's unit; the PDF's page is the same size
 * in points, 72 per inch). 7 pt is 9.33 px: every text is 10 px (7.5 pt) or more.
 */
export const PX_PER_INCH = 96;

export type FigureSize = 'one-column' | 'two-column';

export const FIGURE_INCHES: Readonly<Record<FigureSize, number>> = { 'one-column': 3.3, 'two-column': 7 };

/** Total widths, axes, legends and titles included (3.3 in is 316.8 px, drawn as 317). */
export const FIGURE_WIDTH_PX: Readonly<Record<FigureSize, number>> = { 'one-column': 317, 'two-column': 672 };

/** 7 pt in px: the smallest text a figure may hold. */
export const MIN_FONT_PX = (7 * PX_PER_INCH) / 72;

/** Text sizes of every chart (px); the smallest is above `MIN_FONT_PX`. */
export const FONT_PX = {
  /** Axis and legend labels, text marks, subtitles. */
  text: 10,
  /** Axis, legend and panel titles. */
  heading: 10,
  /** The chart's title. */
  title: 12,
} as const;

/** Space between panels (px): vega-lite's default 20 is wasted at 3.3 in. */
export const PANEL_SPACING_PX = 12;

/**
 * Where labels are wrapped (characters): planner titles such as "Strip Packing Best-fit,
 * smaller first on equal lifetimes (variant)" are kept whole, over lines of about this length.
 */
export const LABEL_LINE_CHARS = 30;

/** What `usermeta` carries (a record type, as vega-lite's `usermeta` is a dictionary). */
type FigureMeta = { readonly figure: FigureSize } & Record<string, unknown>;

/** What every chart's config starts from: the text sizes above, and labels never cut. */
const PAPER_CONFIG = {
  title: { fontSize: FONT_PX.title, subtitleFontSize: FONT_PX.text, subtitleColor: '#444', anchor: 'start', offset: 6, limit: 0 },
  axis: { labelFontSize: FONT_PX.text, titleFontSize: FONT_PX.heading, labelLimit: 0, titleLimit: 0 },
  legend: { labelFontSize: FONT_PX.text, titleFontSize: FONT_PX.heading, labelLimit: 0, titleLimit: 0, symbolSize: 60 },
  header: { labelFontSize: FONT_PX.heading, titleFontSize: FONT_PX.heading, labelLimit: 0, titleLimit: 0 },
  text: { fontSize: FONT_PX.text },
  concat: { spacing: PANEL_SPACING_PX },
  facet: { spacing: PANEL_SPACING_PX },
} as const;

type Config = Readonly<Record<string, unknown>>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The top-level properties that make a spec a paper figure of `size`: `usermeta.figure`
 * (which renderChart fits the chart's width to) and the config above, with the chart's own
 * `config` merged over it one level deep (its `axis` adds to the paper's `axis`).
 */
export function paperFigure(size: FigureSize, config: Config = {}): { usermeta: FigureMeta; config: Record<string, unknown> } {
  const merged: Record<string, unknown> = { ...PAPER_CONFIG };
  for (const [key, value] of Object.entries(config)) {
    const base = merged[key];
    merged[key] = isPlainObject(base) && isPlainObject(value) ? { ...base, ...value } : value;
  }
  return { usermeta: { figure: size }, config: merged };
}

/** The figure size a spec was built for (`usermeta.figure`), or undefined for a spec that is no paper figure. */
export function figureSizeOf(spec: object): FigureSize | undefined {
  const meta = (spec as { usermeta?: { figure?: unknown } }).usermeta;
  const size = meta?.figure;
  return size === 'one-column' || size === 'two-column' ? size : undefined;
}

/**
 * `text` over lines of at most `LABEL_LINE_CHARS` characters, broken after a space, a slash
 * or a hyphen (planner ids such as "shared-objects/greedy-by-size-improved-size-first" have no
 * spaces; a piece longer than a line keeps a line of its own): vega draws an array of lines as
 * one label.
 */
export function wrapLabel(text: string, chars: number = LABEL_LINE_CHARS): string | string[] {
  if (text.length <= chars) return text;
  const lines: string[] = [];
  let line = '';
  for (const piece of text.split(/(?<=[ /-])/)) {
    if (line !== '' && (line + piece).trimEnd().length > chars) {
      lines.push(line.trimEnd());
      line = piece;
    } else {
      line += piece;
    }
  }
  if (line.trim() !== '') lines.push(line.trimEnd());
  return lines.length === 1 ? lines[0] : lines;
}

/**
 * A vega expression for an axis' or legend's `labelExpr` that draws each of `labels` wrapped
 * (`wrapLabel`) and any other label as it is.
 */
export function wrappedLabelExpr(labels: readonly string[], chars: number = LABEL_LINE_CHARS): string | undefined {
  const wrapped = labels.filter((label) => typeof wrapLabel(label, chars) !== 'string');
  if (wrapped.length === 0) return undefined;
  const cases = wrapped.map((label) => `datum.label === ${JSON.stringify(label)} ? ${JSON.stringify(wrapLabel(label, chars))}`);
  return `${cases.join(' : ')} : datum.label`;
}

/**
 * An axis' `labelOffset` that centres the wrapped ones of `labels` (`wrappedLabelExpr`) on
 * their tick: vega sets the first line of a label where a one-line label goes, so a label of
 * n lines is raised by (n - 1) half lines (vega's line height: the font size + 2 px).
 */
export function wrappedLabelOffset(labels: readonly string[], chars: number = LABEL_LINE_CHARS): { condition: { test: string; value: number }[]; value: number } | undefined {
  const byLines = new Map<number, string[]>();
  for (const label of labels) {
    const wrapped = wrapLabel(label, chars);
    if (typeof wrapped === 'string') continue;
    byLines.set(wrapped.length, [...(byLines.get(wrapped.length) ?? []), label]);
  }
  if (byLines.size === 0) return undefined;
  const lineHeight = FONT_PX.text + 2;
  const condition = [...byLines].map(([lines, members]) => ({ test: members.map((label) => `datum.label === ${JSON.stringify(label)}`).join(' || '), value: (-(lines - 1) * lineHeight) / 2 }));
  return { condition, value: 0 };
}
