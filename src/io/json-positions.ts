/**
 * A JSON syntax scanner that knows where things are: V8's JSON.parse no longer says
 * where an error is, and a user with a 60,000-record file needs the line. It checks
 * the syntax (RFC 8259) and records the line of every element of the records array (the
 * top-level array, or the array under a top-level "records" key) and of every
 * top-level key. Values themselves are left to JSON.parse.
 */
export interface JsonPositions {
  readonly elementLines: number[];
  readonly keyLines: Map<string, number>;
}

export class JsonSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly problem: string,
  ) {
    super(problem);
    this.name = 'JsonSyntaxError';
  }
}

export function scanJson(text: string): JsonPositions {
  let at = 0;
  const elementLines: number[] = [];
  const keyLines = new Map<string, number>();

  // The scan only moves forward, so lines are counted incrementally.
  let countedTo = 0;
  let linesSoFar = 1;
  const lineAt = (offset: number): number => {
    for (; countedTo < offset; countedTo++) if (text.charCodeAt(countedTo) === 10) linesSoFar++;
    return linesSoFar;
  };
  const fail = (problem: string): never => {
    const line = lineAt(at);
    throw new JsonSyntaxError(line, at - text.lastIndexOf('\n', at - 1), problem);
  };
  const describe = (): string => (at >= text.length ? 'the end of the file' : `"${text[at]}"`);
  const skipSpace = (): void => {
    while (at < text.length && ' \t\n\r'.includes(text[at])) at++;
  };
  const expect = (char: string): void => {
    skipSpace();
    if (text[at] !== char) fail(`expected "${char}" but found ${describe()}`);
    at++;
  };

  const string = (): string => {
    const start = at;
    if (text[at] !== '"') fail(`expected a string but found ${describe()}`);
    at++;
    while (at < text.length && text[at] !== '"') {
      const code = text.charCodeAt(at);
      if (code < 0x20) fail('a string holds a raw control character (a line break?)');
      if (text[at] === '\\') {
        at++;
        if (text[at] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 1, at + 5))) fail('a \\u escape needs four hex digits');
          at += 4;
        } else if (!'"\\/bfnrt'.includes(text[at] ?? '')) {
          fail(`"\\${text[at] ?? ''}" is not a JSON escape`);
        }
      }
      at++;
    }
    if (at >= text.length) fail('a string is not closed');
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };

  const value = (role: 'records-root' | 'records' | 'other'): void => {
    skipSpace();
    const c = text[at];
    if (c === '{') {
      at++;
      skipSpace();
      if (text[at] === '}') {
        at++;
        return;
      }
      for (;;) {
        skipSpace();
        const keyLine = lineAt(at);
        const key = string();
        if (role === 'records-root') keyLines.set(key, keyLine);
        expect(':');
        value(role === 'records-root' && key === 'records' ? 'records' : 'other');
        skipSpace();
        if (text[at] === ',') {
          at++;
          continue;
        }
        if (text[at] === '}') {
          at++;
          return;
        }
        fail(`expected "," or "}" but found ${describe()}`);
      }
    }
    if (c === '[') {
      at++;
      skipSpace();
      if (text[at] === ']') {
        at++;
        return;
      }
      for (;;) {
        skipSpace();
        if (role !== 'other') elementLines.push(lineAt(at));
        value('other');
        skipSpace();
        if (text[at] === ',') {
          at++;
          continue;
        }
        if (text[at] === ']') {
          at++;
          return;
        }
        fail(`expected "," or "]" but found ${describe()}`);
      }
    }
    if (c === '"') {
      string();
      return;
    }
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(at, at + 400));
    if (literal === null) fail(`unexpected ${describe()}`);
    at += (literal as RegExpExecArray)[0].length;
  };

  value('records-root');
  skipSpace();
  if (at < text.length) fail(`unexpected ${describe()} after the end of the data`);
  return { elementLines, keyLines };
}
