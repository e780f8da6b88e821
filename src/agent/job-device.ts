const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** What ends a number, true, false or null: , } ] and whitespace. */
const SCALAR_END = new Set([0x2c, 0x7d, 0x5d, 0x20, 0x0a, 0x0d, 0x09]);

/**
 * The device a job body names (`run.device`), found without parsing the body. The agent sends
 * a job that names no device to a job process as the bytes it received, and that process
 * parses and checks it: the weights, base64 in strings, are nearly all of a body, and parsed
 * they would take several times its size in the agent, for as long as V8 keeps them. This
 * reads the top-level keys, jumping over strings (Buffer.indexOf) and skipping nested values,
 * and parses only the small `run` object (the last one, as JSON.parse keeps the last of a
 * duplicated key). Undefined when the body is not a JSON object or names no device: the job
 * process then says what is wrong with it.
 */
export function jobDevice(body: Buffer): string | undefined {
  try {
    let at = space(body, 0);
    if (body[at] !== 0x7b) return undefined;
    at = space(body, at + 1);
    let run: Buffer | undefined;
    if (body[at] === 0x7d) return undefined;
    for (;;) {
      if (body[at] !== QUOTE) return undefined;
      const keyEnd = stringEnd(body, at);
      const key = JSON.parse(body.toString('utf8', at, keyEnd)) as string;
      at = space(body, keyEnd);
      if (body[at] !== 0x3a) return undefined;
      const valueStart = space(body, at + 1);
      at = valueEnd(body, valueStart);
      if (key === 'run') run = body.subarray(valueStart, at);
      at = space(body, at);
      if (body[at] === 0x7d) break;
      if (body[at] !== 0x2c) return undefined;
      at = space(body, at + 1);
    }
    if (space(body, at + 1) !== body.length || run === undefined) return undefined;
    const parsed = JSON.parse(run.toString('utf8')) as unknown;
    const device = parsed !== null && typeof parsed === 'object' ? (parsed as { device?: unknown }).device : undefined;
    return typeof device === 'string' ? device : undefined;
  } catch {
    return undefined;
  }
}

function space(body: Buffer, at: number): number {
  while (at < body.length && (body[at] === 0x20 || body[at] === 0x0a || body[at] === 0x0d || body[at] === 0x09)) at++;
  return at;
}

/** Just past the string that opens at `at` (a quote). */
function stringEnd(body: Buffer, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = body.indexOf(QUOTE, from);
    if (quote < 0) throw new Error('unterminated string');
    let slashes = 0;
    while (body[quote - 1 - slashes] === BACKSLASH) slashes++;
    // An odd run of backslashes escapes the quote.
    if (slashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** Just past the JSON value that starts at `at`. */
function valueEnd(body: Buffer, at: number): number {
  const first = body[at];
  if (first === QUOTE) return stringEnd(body, at);
  if (first !== 0x7b && first !== 0x5b) {
    // A number, true, false or null: up to the next delimiter.
    while (at < body.length && !SCALAR_END.has(body[at])) at++;
    return at;
  }
  let depth = 0;
  while (at < body.length) {
    const c = body[at];
    if (c === QUOTE) {
      at = stringEnd(body, at);
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return at + 1;
    }
    at++;
  }
  throw new Error('unterminated value');
}
