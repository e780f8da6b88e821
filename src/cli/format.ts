/** Bytes in MiB (2^20) with three decimals, the unit of every human-facing table. */
export function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(3);
}

/** Columns padded to their widest cell; numbers right-aligned, text left-aligned. */
export function alignedTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c].length)));
  const numeric = header.map((_, c) => rows.length > 0 && rows.every((row) => /^[\d.,x×%-]+$|^—$/.test(row[c])));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, c) => (numeric[c] ? cell.padStart(widths[c]) : cell.padEnd(widths[c])))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
