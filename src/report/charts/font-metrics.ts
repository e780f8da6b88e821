/**
 * Advance widths of a TrueType font, read from its `cmap`, `hhea`, `hmtx` and `head`
 * tables. Vega lays out labels, legends and titles with a text-width function; by
 * default it guesses (0.8 em per character), which spaces DejaVu Sans text loosely
 * and hides axis labels it wrongly thinks overlap. Measuring with the font that the
 * PNG is drawn with makes the layout fit the text. Kerning is ignored (a fraction of
 * a pixel per pair).
 */
export interface FontMetrics {
  /** Width in pixels of `text` set at `fontSize` pixels. */
  width(text: string, fontSize: number): number;
}

interface TableRecord {
  readonly offset: number;
  readonly length: number;
}

class FontFormatError extends Error {
  constructor(source: string, message: string) {
    super(`${source} is not a TrueType font this reader understands: ${message}.`);
    this.name = 'FontFormatError';
  }
}

function tables(view: DataView, source: string): Map<string, TableRecord> {
  if (view.byteLength < 12) throw new FontFormatError(source, 'the file is shorter than a font header');
  const count = view.getUint16(4);
  if (12 + count * 16 > view.byteLength) throw new FontFormatError(source, 'the table directory runs past the end');
  const found = new Map<string, TableRecord>();
  for (let i = 0; i < count; i++) {
    const at = 12 + i * 16;
    const tag = String.fromCharCode(view.getUint8(at), view.getUint8(at + 1), view.getUint8(at + 2), view.getUint8(at + 3));
    const offset = view.getUint32(at + 8);
    const length = view.getUint32(at + 12);
    if (offset + length > view.byteLength) throw new FontFormatError(source, `table ${tag} runs past the end`);
    found.set(tag, { offset, length });
  }
  return found;
}

function table(all: Map<string, TableRecord>, tag: string, minLength: number, source: string): TableRecord {
  const found = all.get(tag);
  if (!found || found.length < minLength) throw new FontFormatError(source, `table ${tag} is missing or too short`);
  return found;
}

/** Glyph lookup through a format-4 cmap subtable (the Basic Multilingual Plane). */
function format4Lookup(view: DataView, at: number, source: string): (codePoint: number) => number {
  if (view.getUint16(at) !== 4) throw new FontFormatError(source, 'the Unicode cmap subtable is not format 4');
  const segments = view.getUint16(at + 6) / 2;
  const ends = at + 14;
  const starts = ends + segments * 2 + 2;
  const deltas = starts + segments * 2;
  const rangeOffsets = deltas + segments * 2;
  if (rangeOffsets + segments * 2 > view.byteLength) throw new FontFormatError(source, 'the cmap subtable runs past the end');
  return (codePoint) => {
    if (codePoint > 0xffff) return 0;
    for (let s = 0; s < segments; s++) {
      if (view.getUint16(ends + s * 2) < codePoint) continue;
      const start = view.getUint16(starts + s * 2);
      if (start > codePoint) return 0;
      const delta = view.getUint16(deltas + s * 2);
      const rangeOffsetAt = rangeOffsets + s * 2;
      const rangeOffset = view.getUint16(rangeOffsetAt);
      if (rangeOffset === 0) return (codePoint + delta) & 0xffff;
      const glyphAt = rangeOffsetAt + rangeOffset + (codePoint - start) * 2;
      if (glyphAt + 2 > view.byteLength) return 0;
      const glyph = view.getUint16(glyphAt);
      return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
    }
    return 0;
  };
}

/** Reads the metrics of a TrueType font; `source` names it in errors. */
export function readFontMetrics(bytes: Uint8Array, source: string): FontMetrics {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const all = tables(view, source);
  const head = table(all, 'head', 54, source);
  const hhea = table(all, 'hhea', 36, source);
  const cmap = table(all, 'cmap', 4, source);
  const unitsPerEm = view.getUint16(head.offset + 18);
  const metricCount = view.getUint16(hhea.offset + 34);
  const hmtx = table(all, 'hmtx', metricCount * 4, source);
  if (unitsPerEm === 0 || metricCount === 0) throw new FontFormatError(source, 'unitsPerEm or numberOfHMetrics is 0');

  let lookup: ((codePoint: number) => number) | undefined;
  const subtables = view.getUint16(cmap.offset + 2);
  for (let i = 0; i < subtables && !lookup; i++) {
    const at = cmap.offset + 4 + i * 8;
    const platform = view.getUint16(at);
    const encoding = view.getUint16(at + 2);
    const subtable = cmap.offset + view.getUint32(at + 4);
    const unicode = (platform === 3 && encoding === 1) || (platform === 0 && encoding <= 3);
    if (unicode && view.getUint16(subtable) === 4) lookup = format4Lookup(view, subtable, source);
  }
  if (!lookup) throw new FontFormatError(source, 'it has no format-4 Unicode cmap subtable');
  const glyphOf = lookup;

  const advanceOfGlyph = (glyph: number): number => view.getUint16(hmtx.offset + Math.min(glyph, metricCount - 1) * 4);
  const advances = new Map<number, number>();
  const advance = (codePoint: number): number => {
    let units = advances.get(codePoint);
    if (units === undefined) {
      units = advanceOfGlyph(glyphOf(codePoint));
      advances.set(codePoint, units);
    }
    return units;
  };

  return {
    width(text, fontSize) {
      let units = 0;
      for (const character of text) units += advance(character.codePointAt(0)!);
      return (units / unitsPerEm) * fontSize;
    },
  };
}
