import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readFontMetrics, type FontMetrics } from './font-metrics.ts';

/** The one typeface of every chart: metrics for the layout, glyphs for the PNG and the PDF. */
export const CHART_FONT = 'DejaVu Sans';
export const CHART_FONT_DIR = '/usr/share/fonts/truetype/dejavu';
const FONT_FILE_NAMES = { regular: 'DejaVuSans.ttf', bold: 'DejaVuSans-Bold.ttf' } as const;
const FONT_PACKAGE = 'fonts-dejavu-core';

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
