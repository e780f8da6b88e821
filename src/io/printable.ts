/**
 * Text a user, a file or the network chose (a name read from a corrupt model, a device's
 * name or adapter, a job's graph name), made safe to print on a terminal or in a log, on one
 * line: control characters (C0, DEL, C1), line and paragraph separators and bidirectional
 * overrides are shown escaped (`\x1b`, `\u202e`) instead of acting on the terminal, and long
 * text is cut to `max` characters. Every place that prints such a string goes through this
 * one function.
 */
export function printable(text: string, max = 80): string {
  const clean = text.replace(UNPRINTABLE, escapeChar);
  return clean.length > max ? `${clean.slice(0, Math.max(0, max - 3))}...` : clean;
}

/**
 * A value a device described itself with (its adapter info: strings, numbers, lists, records),
 * with every string in it made printable (up to `max` characters each); nesting deeper than a
 * few levels is dropped, as no honest description needs it.
 */
export function printableValues(value: unknown, max = 200, depth = 4): unknown {
  if (typeof value === 'string') return printable(value, max);
  if (value === null || typeof value !== 'object') return typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint' ? undefined : value;
  if (depth === 0) return undefined;
  if (Array.isArray(value)) return value.map((item) => printableValues(item, max, depth - 1));
  // fromEntries defines own properties: a key "__proto__" stays a key.
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [printable(key, max), printableValues(item, max, depth - 1)]));
}

const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeChar(char: string): string {
  const code = char.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
