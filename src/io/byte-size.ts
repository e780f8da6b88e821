/** Multipliers of the units a size may be written in: binary (KiB, MiB, GiB) and decimal (KB, MB, GB). */
const UNITS: Record<string, number> = { '': 1, B: 1, KIB: 2 ** 10, MIB: 2 ** 20, GIB: 2 ** 30, KB: 1e3, MB: 1e6, GB: 1e9 };

/**
 * Bytes of a size as users write it: `4MiB`, `256 MiB`, `1.5GiB`, `4MB`, `1048576`.
 * Throws a RangeError naming the value and the accepted forms; the result is a whole
 * number of bytes, exact below 2^53.
 */
export function parseByteSize(text: string | number): number {
  const value = String(text).trim();
  const match = /^(\d+(?:\.\d+)?)\s*([A-Za-z]*)$/.exec(value);
  const unit = match ? UNITS[match[2].toUpperCase()] : undefined;
  if (!match || unit === undefined) throw new RangeError(`"${value}" is not a size; write bytes or a number with KiB, MiB, GiB, KB, MB or GB (e.g. 4MiB).`);
  const bytes = Number(match[1]) * unit;
  if (!Number.isSafeInteger(Math.round(bytes)) || Math.abs(bytes - Math.round(bytes)) > 1e-6) throw new RangeError(`"${value}" is not a whole number of bytes below 2^53.`);
  return Math.round(bytes);
}

/** Bytes as a short size: `4 MiB`, `1.5 GiB`, `300 KiB`, `1000 bytes`. */
export function formatByteSize(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(2))} ${unit}`;
  }
  return `${bytes} bytes`;
}
