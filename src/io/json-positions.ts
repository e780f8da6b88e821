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

/** What the value being read is: the records' container, the records array, or anything else. */
type Role = 'records-root' | 'records' | 'other';

/** An open object or array, and the role of the value it is. */
interface Frame {
  readonly kind: '{' | '[';
  readonly role: Role;
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

  const literal = (): void => {
    const match = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(at, at + 400));
    if (match === null) fail(at >= text.length ? 'the file ends where a value should be (was it cut off?)' : `unexpected ${describe()}`);
    at += (match as RegExpExecArray)[0].length;
  };

  // The key of an object member, up to its ':'; returns the role of the member's value.
  const member = (frame: Frame): Role => {
    skipSpace();
    const keyLine = lineAt(at);
    const key = string();
    if (frame.role === 'records-root') {
      keyLines.set(key, keyLine);
      // JSON.parse keeps the last of repeated keys: so do the lines of its elements.
      if (key === 'records') elementLines.length = 0;
    }
    expect(':');
    return frame.role === 'records-root' && key === 'records' ? 'records' : 'other';
  };
  // The start of an array element; returns its role.
  const element = (frame: Frame): Role => {
    skipSpace();
    if (frame.role !== 'other') elementLines.push(lineAt(at));
    return 'other';
  };

  // A loop over an explicit stack of open containers, not recursion: a file of 200,000
  // nested brackets must get a sentence, not overflow the call stack.
  const open: Frame[] = [];
  let role: Role = 'records-root';
  for (;;) {
    skipSpace();
    const c = text[at];
    if (c === '{' || c === '[') {
      at++;
      skipSpace();
      if (text[at] === (c === '{' ? '}' : ']')) {
        at++;
      } else {
        const frame: Frame = { kind: c, role };
        open.push(frame);
        role = c === '{' ? member(frame) : element(frame);
        continue;
      }
    } else if (c === '"') {
      string();
    } else {
      literal();
    }
    // A value has ended: close the containers it ends, or go on to the next member.
    let next: Role | undefined;
    while (next === undefined && open.length > 0) {
      const frame = open[open.length - 1];
      const close = frame.kind === '{' ? '}' : ']';
      skipSpace();
      if (text[at] === ',') {
        at++;
        next = frame.kind === '{' ? member(frame) : element(frame);
      } else if (text[at] === close) {
        at++;
        open.pop();
      } else {
        fail(`expected "," or "${close}" but found ${describe()}`);
      }
    }
    if (next === undefined) break;
    role = next;
  }

  skipSpace();
  if (at < text.length) fail(`unexpected ${describe()} after the end of the data`);
  return { elementLines, keyLines };
}
