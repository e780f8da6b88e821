import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidProblemError, type Problem } from '../../src/core/problem.ts';
import type { TensorUsageRecord } from '../../src/core/records.ts';
import { mulberry32 } from '../../src/core/synthetic.ts';
import { graphToProblem } from '../../src/graph/lifetimes.ts';
import { GraphError } from '../../src/graph/ir.ts';
import { InputError } from '../../src/io/input-error.ts';
import { writeOnnx } from '../../src/io/onnx/write-onnx.ts';
import { recordsToCsv, recordsToJson } from '../../src/io/records-writers.ts';
import { problemOfSource, readSourceBytes } from '../../src/io/source.ts';
import { buildZooModel } from '../../src/models/zoo.ts';
import { memplan, userErrorLine } from '../cli/run-memplan.ts';
import { readReferenceModel, REFERENCE_MODELS, referenceModelsPresent } from './tflite/reference-models.ts';
import { convModel, everyOpModel } from './tflite/test-models.ts';
import { buildTflite } from './tflite/tflite-builder.ts';

/**
 * Issue 38, "nothing lost": the readers of every source file (.csv, .json, .onnx, .tflite)
 * on seeded corruptions of valid files. Every case must end, within CASE_LIMIT_MS, in
 *
 * - a refusal by a user error (the reader-level ones of src/cli/main.ts's USER_ERRORS:
 *   InputError, GraphError, InvalidProblemError), in one line without control characters,
 *   naming the file; never a TypeError, RangeError or any other crash; or
 * - a problem that keeps the rules every planner relies on (sizes and bounds whole numbers
 *   below 2^53, no -0, sizes adding up to less than 2^53), and, for a record file cut off
 *   anywhere, exactly the records a complete prefix of the file holds: a record cut inside
 *   a number is refused, never read with a shorter number.
 *
 * The readers run in process through src/io/source.ts (readSourceBytes, problemOfSource:
 * loadSource and loadProblem after the file is read); a handful of cases also go through
 * the real command line. Synchronous code cannot be interrupted in process, so the limit
 * is measured per case; a reader that never returned would fail its test at the test's
 * timeout, 20 s.
 */

const CASE_LIMIT_MS = 5_000;
const TEST_TIMEOUT_MS = 20_000;
const USER_ERRORS = [InputError, GraphError, InvalidProblemError] as const;

interface Tally {
  cases: number;
  refused: number;
  read: number;
}
const tally: Tally = { cases: 0, refused: 0, read: 0 };

type Outcome = { readonly kind: 'read'; readonly problem: Problem } | { readonly kind: 'refused'; readonly message: string };

/** Reads `bytes` as the file `file` names, checks the outcome's rules, and counts it. */
async function outcome(bytes: Uint8Array, file: string, label: string): Promise<Outcome> {
  tally.cases++;
  const start = performance.now();
  let result: Outcome;
  try {
    result = { kind: 'read', problem: problemOfSource(await readSourceBytes(bytes, file), file) };
  } catch (error) {
    const isUserError = USER_ERRORS.some((kind) => error instanceof kind);
    expect(isUserError, `${label}: not a user error: ${(error as Error)?.stack ?? String(error)}`).toBe(true);
    const message = (error as Error).message;
    expect(message, `${label}: the sentence holds a line break or control character`).not.toMatch(/[\x00-\x1f\x7f-\x9f\u2028\u2029]/);
    expect(message.startsWith(`${file}`), `${label}: the sentence does not name the file: ${message}`).toBe(true);
    result = { kind: 'refused', message };
  }
  const elapsed = performance.now() - start;
  expect(elapsed, `${label}: took ${elapsed.toFixed(0)} ms`).toBeLessThan(CASE_LIMIT_MS);
  if (result.kind === 'read') {
    tally.read++;
    expectSoundProblem(result.problem, label);
  } else {
    tally.refused++;
  }
  return result;
}

/** The rules every problem keeps, whatever bytes it was read from. */
function expectSoundProblem(problem: Problem, label: string): void {
  let total = 0;
  let lastOperator = -1;
  for (const r of problem.records) {
    const fields = [r.size, r.first, r.last];
    const sound = fields.every((n) => Number.isSafeInteger(n) && n >= 0 && !Object.is(n, -0)) && r.first <= r.last;
    expect(sound, `${label}: record ${JSON.stringify(r)}`).toBe(true);
    total += r.size;
    lastOperator = Math.max(lastOperator, r.last);
  }
  expect(total, `${label}: the sizes add up past 2^53 - 1`).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
  expect(Number.isSafeInteger(problem.operatorCount) && problem.operatorCount > lastOperator, `${label}: operator count ${problem.operatorCount}`).toBe(true);
}

/**
 * A record file cut off after `length` bytes: refused, or read as exactly the first
 * records of the complete file (a JSON file cut anywhere before its closing bracket is
 * not JSON, so there every record must be there).
 */
function expectPrefixOrRefused(result: Outcome, complete: readonly TensorUsageRecord[], json: boolean, label: string): void {
  if (result.kind === 'refused') return;
  const read = result.problem.records;
  expect(read, `${label}: read records that the complete file does not hold in this order`).toEqual(complete.slice(0, read.length));
  if (json) expect(read.length, label).toBe(complete.length);
}

const encoder = new TextEncoder();
const bytesOf = (text: string): Uint8Array => encoder.encode(text);
const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

/** Text that readers of numbers, lines and encodings get wrong: huge, signed, NUL, invalid UTF-8. */
const TOKENS: readonly Uint8Array[] = [
  '-0',
  '-00',
  '+0',
  '9007199254740991',
  '9007199254740993',
  '18014398509481984',
  '99999999999999999999999',
  '1e400',
  '-1e400',
  '1.5',
  '0x10',
  '\0',
  '\r',
  '\n',
  '\r\n',
  ',',
  '"',
  '\\',
  '[',
  ']',
  '{',
  '}',
  ':',
  '\ufeff',
  '\u2028',
  '\x1b[31m',
  ' ',
  '9'.repeat(600),
]
  .map(bytesOf)
  .concat([new Uint8Array([0xff]), new Uint8Array([0xc3]), new Uint8Array([0xed, 0xa0, 0x80]), new Uint8Array([0xc0, 0x80]), new Uint8Array([0xf4, 0x90, 0x80, 0x80])]);

const SPECIAL_BYTES = [0x00, 0x0a, 0x0d, 0x2c, 0x2d, 0x22, 0x5b, 0x5d, 0x7b, 0x7d, 0x30, 0x39, 0xff, 0xc3, 0x80];

const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)];
const below = (random: () => number, n: number): number => Math.floor(random() * n);

function utf16(text: string, bigEndian: boolean, bom: boolean): Uint8Array {
  const little = Buffer.from(text, 'utf16le');
  const body = bigEndian ? new Uint8Array(little).map((_, i, a) => a[i ^ 1]) : new Uint8Array(little);
  return bom ? concat(new Uint8Array(bigEndian ? [0xfe, 0xff] : [0xff, 0xfe]), body) : body;
}

/**
 * One corruption of a record file: a cut (also right after a digit, inside or at the end of
 * a number), a flipped bit, a special byte, an inserted token, a number replaced by a
 * token, deep nesting (JSON), or the whole file in another encoding or with CRLF endings.
 */
function corruptText(text: string, json: boolean, random: () => number): { bytes: Uint8Array; label: string; cut: boolean } {
  const original = bytesOf(text);
  const r = random();
  if (r < 0.3) {
    let length = below(random, original.length);
    if (random() < 0.5) {
      const digits = [...text.matchAll(/\d/g)].map((m) => m.index!);
      length = pick(random, digits) + 1;
    }
    return { bytes: original.slice(0, length), label: `cut to ${length} bytes`, cut: true };
  }
  if (r < 0.4) {
    const kind = below(random, 5);
    if (kind === 0) return { bytes: utf16(text, false, true), label: 'UTF-16LE with a BOM', cut: false };
    if (kind === 1) return { bytes: utf16(text, true, true), label: 'UTF-16BE with a BOM', cut: false };
    if (kind === 2) return { bytes: utf16(text, false, false), label: 'UTF-16LE without a BOM (NULs)', cut: false };
    if (kind === 3) return { bytes: bytesOf(text.replace(/\n/g, '\r\n')), label: 'CRLF line ends', cut: false };
    return { bytes: concat(new Uint8Array([0xef, 0xbb, 0xbf]), original), label: 'a UTF-8 BOM', cut: false };
  }
  if (r < 0.55) {
    const numbers = [...text.matchAll(/\d+/g)];
    const chosen = pick(random, numbers);
    const token = pick(random, TOKENS);
    const at = bytesOf(text.slice(0, chosen.index)).length;
    return {
      bytes: concat(original.slice(0, at), token, original.slice(at + chosen[0].length)),
      label: `number at ${at} replaced by ${JSON.stringify(Buffer.from(token).toString('latin1').slice(0, 20))}`,
      cut: false,
    };
  }
  if (json && r < 0.65) {
    const depth = pick(random, [1_000, 10_000, 50_000, 200_000]);
    const values = [...text.matchAll(/: (\d+)|\d+/g)];
    const at = bytesOf(text.slice(0, pick(random, values).index)).length;
    const closed = random() < 0.5;
    const nest = bytesOf(`${'['.repeat(depth)}${closed ? ']'.repeat(depth) : ''}`);
    return { bytes: concat(original.slice(0, at), nest, original.slice(at)), label: `${depth} nested "[" ${closed ? '' : 'un'}closed at ${at}`, cut: false };
  }
  const edits: string[] = [];
  let result: Uint8Array = original.slice();
  for (let k = 1 + below(random, 3); k > 0; k--) {
    const at = below(random, result.length);
    const kind = random();
    if (kind < 0.35) {
      const bit = below(random, 8);
      result[at] ^= 1 << bit;
      edits.push(`bit ${bit} of byte ${at} flipped`);
    } else if (kind < 0.65) {
      result[at] = pick(random, SPECIAL_BYTES);
      edits.push(`byte ${at} = ${result[at]}`);
    } else {
      const token = pick(random, TOKENS);
      result = concat(result.slice(0, at), token, result.slice(at));
      edits.push(`${token.length} bytes inserted at ${at}`);
    }
  }
  return { bytes: result, label: edits.join(', '), cut: false };
}

const WORDS = [0, 0xff, 0x7f, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff];

/** One corruption of a model file: a cut, or one to four flipped bits, bytes or 32-bit words. */
function corruptBinary(original: Uint8Array, random: () => number): { bytes: Uint8Array; label: string } {
  if (random() < 0.2) {
    const length = below(random, original.length);
    return { bytes: original.slice(0, length), label: `cut to ${length} bytes` };
  }
  const bytes = original.slice();
  const edits: string[] = [];
  for (let k = 1 + below(random, 4); k > 0; k--) {
    const at = below(random, bytes.length);
    const kind = random();
    if (kind < 0.4) {
      const bit = below(random, 8);
      bytes[at] ^= 1 << bit;
      edits.push(`bit ${bit} of byte ${at} flipped`);
    } else if (kind < 0.7) {
      bytes[at] = random() < 0.5 ? pick(random, SPECIAL_BYTES) : below(random, 256);
      edits.push(`byte ${at} = ${bytes[at]}`);
    } else {
      const word = random() < 0.6 ? pick(random, WORDS) : below(random, 2 ** 32);
      for (let b = 0; b < 4 && at + b < bytes.length; b++) bytes[at + b] = (word >>> (8 * b)) & 0xff;
      edits.push(`word at ${at} = ${word}`);
    }
  }
  return { bytes, label: edits.join(', ') };
}

/** Zoo networks' records (the paper's setting, 4-byte elements) as the seeds of the record files. */
function zooProblem(name: string): Problem {
  return graphToProblem(buildZooModel(`zoo:${name}`), { elementSize: 4 });
}

/** Record-file seeds: the writers' output for zoo networks, and hand-written forms the writers do not make. */
function recordSeeds(): { csv: { file: string; text: string }[]; json: { file: string; text: string }[] } {
  const blazeface = zooProblem('blazeface');
  const mobilenet = zooProblem('mobilenet-v1');
  return {
    csv: [
      { file: 'blazeface.csv', text: recordsToCsv(blazeface) },
      { file: 'mobilenet-v1.csv', text: recordsToCsv(mobilenet) },
      // idealloc's form: an offset column last, no line end after the last line.
      { file: 'idealloc.csv', text: 'id,lower,upper,size,offset\n0,0,4,49152,0\n1,0,3,49152,49152\n2,3,9,1024,0\n3,4,6,77,98304' },
      { file: 'reordered.csv', text: 'size,upper,id,lower\r\n16,3,a,0\r\n8,3,b,2\r\n4,7,c,3\r\n' },
    ],
    json: [
      { file: 'blazeface.json', text: recordsToJson(blazeface) },
      { file: 'wrapped.json', text: `{"operatorCount": 40, "notes": [[1, 2], {"x": null}], "records": ${recordsToJson(mobilenet)}}\n` },
      {
        file: 'compact.json',
        text: JSON.stringify([
          { id: 'a', size: 32, first: 0, last: 1 },
          { id: 7, size: 9007199254740000, first: 1, last: 4 },
          { id: 'c', size: 0, first: 2, last: 2 },
        ]),
      },
    ],
  };
}

let seeds: ReturnType<typeof recordSeeds>;
beforeAll(() => {
  seeds = recordSeeds();
});

afterAll(() => {
  console.info(`fuzz: ${tally.cases} cases, ${tally.refused} refused with one sentence, ${tally.read} read`);
});

/** Fuzzes the seeds of one record format: `count` cases, seeded. */
async function fuzzRecords(list: readonly { file: string; text: string }[], json: boolean, count: number, seed: number): Promise<{ refused: number; read: number }> {
  const random = mulberry32(seed);
  const counts = { refused: 0, read: 0 };
  const complete: (readonly TensorUsageRecord[])[] = [];
  for (const { file, text } of list) {
    const result = await outcome(bytesOf(text), file, `${file} as written`);
    expect(result.kind, `${file} as written`).toBe('read');
    complete.push(result.kind === 'read' ? result.problem.records : []);
  }
  for (let k = 0; k < count; k++) {
    const index = k % list.length;
    const { file, text } = list[index];
    const { bytes, label, cut } = corruptText(text, json, random);
    const result = await outcome(bytes, file, `${file} case ${k} (${label})`);
    counts[result.kind]++;
    if (cut) expectPrefixOrRefused(result, complete[index], json, `${file} case ${k} (${label})`);
  }
  return counts;
}

describe('the readers on corrupted files: a sentence or a sound problem, never a crash, a hang or a silent truncation (issue 38)', () => {
  it('.csv: 220 seeded corruptions', { timeout: TEST_TIMEOUT_MS }, async () => {
    const counts = await fuzzRecords(seeds.csv, false, 220, 38_001);
    // Both outcomes happen: the corruptions reach past the first check.
    expect(counts.refused).toBeGreaterThan(50);
    expect(counts.read).toBeGreaterThan(10);
  });

  it('.json: 220 seeded corruptions, deep nesting among them', { timeout: TEST_TIMEOUT_MS }, async () => {
    const counts = await fuzzRecords(seeds.json, true, 220, 38_002);
    expect(counts.refused).toBeGreaterThan(50);
    expect(counts.read).toBeGreaterThan(10);
  });

  it('every cut of a record file, byte by byte: refused, or exactly the records of a complete prefix', { timeout: TEST_TIMEOUT_MS }, async () => {
    for (const { file, text } of [
      { file: 'cut.csv', text: 'id,lower,upper,size\na,0,2,10\nb,1,3,2048\nc,2,14,333\n' },
      { file: 'cut-offset.csv', text: 'id,lower,upper,size,offset\na,0,2,10,0\nb,1,3,2048,16\n' },
      { file: 'cut.json', text: '[{"id": "a", "size": 10, "first": 0, "last": 1},\n {"id": "b", "size": 2048, "first": 1, "last": 12}]\n' },
    ]) {
      const full = bytesOf(text);
      const complete = ((await outcome(full, file, file)) as { problem: Problem }).problem.records;
      for (let length = 0; length < full.length; length++) {
        expectPrefixOrRefused(await outcome(full.slice(0, length), file, `${file} cut to ${length}`), complete, file.endsWith('.json'), `${file} cut to ${length}`);
      }
    }
  });

  it('.onnx: 150 seeded corruptions of zoo networks written by memplan export', { timeout: TEST_TIMEOUT_MS }, async () => {
    const random = mulberry32(38_003);
    const models = ['blazeface', 'mobilenet-v1', 'squeezenet-1.1'].map((name) => ({ file: `${name}.onnx`, bytes: writeOnnx(buildZooModel(`zoo:${name}`), { weights: 'none' }) }));
    const counts = { refused: 0, read: 0 };
    for (let k = 0; k < 150; k++) {
      const { file, bytes: original } = models[k % models.length];
      const { bytes, label } = corruptBinary(new Uint8Array(original), random);
      counts[(await outcome(bytes, file, `${file} case ${k} (${label})`)).kind]++;
    }
    expect(counts.refused).toBeGreaterThan(30);
    expect(counts.read).toBeGreaterThan(5);
  });

  it('.tflite: 150 seeded corruptions of hand-made models', { timeout: TEST_TIMEOUT_MS }, async () => {
    const random = mulberry32(38_004);
    const models = [
      { file: 'every-op.tflite', bytes: buildTflite(everyOpModel()) },
      { file: 'conv.tflite', bytes: buildTflite(convModel()) },
    ];
    const counts = { refused: 0, read: 0 };
    for (let k = 0; k < 150; k++) {
      const { file, bytes: original } = models[k % models.length];
      const { bytes, label } = corruptBinary(original, random);
      counts[(await outcome(bytes, file, `${file} case ${k} (${label})`)).kind]++;
    }
    expect(counts.refused).toBeGreaterThan(30);
    expect(counts.read).toBeGreaterThan(5);
  });

  // Read in place from ../shared/reference-models, never copied; skipped with a message when absent.
  it.skipIf(!referenceModelsPresent())('.tflite: 60 seeded corruptions of the reference models', { timeout: TEST_TIMEOUT_MS }, async () => {
    const random = mulberry32(38_005);
    const models = REFERENCE_MODELS.filter((m) => !m.startsWith('deeplab')).map((m) => ({ file: m, bytes: readReferenceModel(m) }));
    for (let k = 0; k < 60; k++) {
      const { file, bytes: original } = models[k % models.length];
      const { bytes, label } = corruptBinary(original, random);
      await outcome(bytes, file, `${file} case ${k} (${label})`);
    }
  });
});

/** What the fuzzing found, each as the smallest input that showed it. */
describe('regressions found by the fuzzing', () => {
  const refusal = async (text: string | Uint8Array, file: string): Promise<string> => {
    const result = await outcome(typeof text === 'string' ? bytesOf(text) : text, file, file);
    expect(result.kind, file).toBe('refused');
    return result.kind === 'refused' ? result.message : '';
  };

  it('a CSV cut inside its last number was read with the shorter size', async () => {
    expect(await refusal('id,lower,upper,size\na,0,2,10\nb,1,3,2', 'cut.csv')).toMatch(/^cut\.csv:3: the last line has no line end, so its size "2" may be cut off/);
  });

  it('-0 was read as a size (CSV and JSON)', async () => {
    expect(await refusal('id,lower,upper,size\na,0,2,-0\n', 'zero.csv')).toBe('zero.csv:2: size -0 is a negative zero; write 0.');
    expect(await refusal('[{"id": "a", "size": -0, "first": 0, "last": 0}]', 'zero.json')).toBe('zero.json:1: record 0: "size" -0 is a negative zero; write 0.');
  });

  it('nested "[" overflowed the stack of the JSON scanner (RangeError), and of JSON.stringify in a message', async () => {
    expect(await refusal('['.repeat(200_000), 'deep.json')).toMatch(/^deep\.json:1: invalid JSON at column 200001: the file ends where a value should be/);
    expect(await refusal(`[{"id": "a", "first": 0, "last": 0, "size": ${'['.repeat(20_000)}${']'.repeat(20_000)}}]`, 'deep-size.json')).toBe(
      'deep-size.json:1: record 0: "size" must be a JSON number, not an array.',
    );
  });

  it('sizes adding up past 2^53 were planned (every plan invalid, NaN footprints)', async () => {
    expect(await refusal(`id,lower,upper,size\na,0,2,${2 ** 53 - 1}\nb,1,3,${2 ** 53 - 1}\nc,0,3,${2 ** 52}\n`, 'sum.csv')).toMatch(
      /^sum\.csv:3: size 9007199254740991 brings the sum of the sizes past 2\^53 - 1 bytes/,
    );
  });

  it('a name with a line break from a corrupt model made a message of two lines', async () => {
    const bytes = new Uint8Array(writeOnnx(buildZooModel('zoo:blazeface'), { weights: 'none' }));
    const at = Buffer.from(bytes).indexOf('Conv');
    bytes[at + 1] = 0x0a;
    expect(await refusal(bytes, 'blazeface.onnx')).toMatch(/^blazeface\.onnx: node .*op type C\\x0anv is not supported/);
  });

  it('UTF-16 and invalid UTF-8 were decoded into replacement characters without a word', async () => {
    expect(await refusal(utf16('id,lower,upper,size\na,0,1,1\n', false, true), 'utf16.csv')).toBe('utf16.csv: is UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8.');
    expect(await refusal(concat(bytesOf('id,lower,upper,size\na'), new Uint8Array([0xed, 0xa0, 0x80]), bytesOf(',0,1,1\n')), 'surrogate.csv')).toBe(
      'surrogate.csv:2: the byte 0xed at offset 21 is not UTF-8 text; save the file as UTF-8.',
    );
  });
});

/** A few cases through the real command line: exit code 2 and one line, no stack trace. */
describe.concurrent('memplan plan on corrupted files', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memplan-fuzz-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const cases: { name: string; bytes: () => Uint8Array; says: RegExp }[] = [
    { name: 'cut.csv', bytes: () => bytesOf('id,lower,upper,size\na,0,2,10\nb,1,3,2'), says: /cut\.csv:3: the last line has no line end/ },
    { name: 'deep.json', bytes: () => bytesOf('['.repeat(200_000)), says: /deep\.json:1: invalid JSON at column 200001/ },
    {
      name: 'sum.json',
      bytes: () => bytesOf(JSON.stringify([2 ** 53 - 1, 2 ** 53 - 1, 2 ** 52].map((size, i) => ({ id: `t${i}`, size, first: 0, last: 1 })))),
      says: /sum\.json:1: record 1: "size" 9007199254740991 brings the sum/,
    },
    { name: 'utf16.csv', bytes: () => utf16('id,lower,upper,size\na,0,1,1\n', true, true), says: /utf16\.csv: is UTF-16 text/ },
    {
      name: 'renamed.onnx',
      bytes: () => {
        const bytes = new Uint8Array(writeOnnx(buildZooModel('zoo:blazeface'), { weights: 'none' }));
        bytes[Buffer.from(bytes).indexOf('Conv') + 1] = 0x0a;
        return bytes;
      },
      says: /renamed\.onnx: node .*C\\x0anv/,
    },
    { name: 'cut.tflite', bytes: () => buildTflite(everyOpModel()).slice(0, 300), says: /cut\.tflite: / },
  ];
  for (const { name, bytes, says } of cases) {
    it(`${name}: exit code 2, one line`, async ({ expect }) => {
      const file = join(dir, name);
      await writeFile(file, bytes());
      const line = userErrorLine(await memplan('plan', file, '--planner', 'offsets/greedy-by-size'));
      expect(line).toMatch(says);
    });
  }
});
