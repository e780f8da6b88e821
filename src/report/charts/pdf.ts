import PDFDocument from 'pdfkit';
import SVGtoPDF from 'svg-to-pdfkit';
import type { ChartFonts } from './chart-fonts.ts';
import { PX_PER_INCH } from './figure-sizes.ts';

/** PDF points per SVG pixel: 72 pt and 96 px are both an inch, so a 7 in chart is a 7 in page. */
export const POINTS_PER_PIXEL = 72 / PX_PER_INCH;

/**
 * The one creation date of every chart PDF. pdfkit stamps the time of the run and derives the
 * document id from the info dictionary (that date and the title), so a fixed date makes the
 * id, and the file, the same on every run.
 */
export const PDF_CREATION_DATE = new Date(Date.UTC(2020, 0, 1));

const REGULAR = 'chart-regular';
const BOLD = 'chart-bold';

/** Width and height of an SVG from its root element, in px. */
export function svgSize(svg: string): { width: number; height: number } {
  const match = /^<svg[^>]*?\swidth="([\d.]+)"[^>]*?\sheight="([\d.]+)"/.exec(svg);
  if (!match) throw new Error('PDF: the SVG has no width and height on its root element.');
  return { width: Number(match[1]), height: Number(match[2]) };
}

/**
 * The SVG with every dash pattern without gaps (vega writes "1,0" for the solid entry of a
 * strokeDash scale) as "none": SVG draws such a pattern as a solid line, pdfkit refuses a
 * zero length in a pattern (SVG-to-PDFKit passes it on as it is).
 */
export function solidForGaplessDashes(svg: string): string {
  return svg.replace(/ stroke-dasharray="([^"]*)"/g, (attribute, value: string) => {
    const lengths = value
      .split(/[\s,]+/)
      .filter((part) => part !== '')
      .map(Number);
    // An odd list is repeated to make it even (SVG 2, stroke-dasharray).
    const pattern = lengths.length % 2 === 1 ? [...lengths, ...lengths] : lengths;
    const gapless = pattern.length > 0 && pattern.every((length, k) => k % 2 === 0 || length === 0);
    return gapless ? ' stroke-dasharray="none"' : attribute;
  });
}

/**
 * Draws a chart's SVG as a one-page vector PDF of the same size (px at 96 per inch become
 * points at 72), text set in the chart fonts, embedded as subsets. Byte-identical on every
 * run: a fixed creation date (so a fixed document id), and streams left uncompressed, so
 * that no zlib build (Node's differs by version and CPU) changes a byte.
 */
export async function svgToPdf(svg: string, fonts: ChartFonts, title: string): Promise<Uint8Array> {
  const { width, height } = svgSize(svg);
  const size = [width * POINTS_PER_PIXEL, height * POINTS_PER_PIXEL];
  const doc = new PDFDocument({
    size,
    margin: 0,
    compress: false,
    info: { Title: title, Creator: 'memplan-bench', Producer: 'PDFKit with SVG-to-PDFKit', CreationDate: PDF_CREATION_DATE },
  });
  doc.registerFont(REGULAR, fonts.files.regular);
  doc.registerFont(BOLD, fonts.files.bold);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('end', () => resolve());
    doc.on('error', reject);
  });
  const warnings: string[] = [];
  // The types declare the document's class where the function takes an instance.
  SVGtoPDF(doc as unknown as typeof PDFDocument, solidForGaplessDashes(svg), 0, 0, {
    width: size[0],
    height: size[1],
    // Every chart is set in one typeface (CHART_FONT): any family maps to it.
    fontCallback: (_family, bold) => (bold ? BOLD : REGULAR),
    warningCallback: (warning) => warnings.push(warning),
  });
  doc.end();
  await ended;
  if (warnings.length > 0) throw new Error(`PDF of "${title}": SVG-to-PDFKit could not draw part of the SVG: ${warnings.join('; ')}.`);
  return new Uint8Array(Buffer.concat(chunks));
}
