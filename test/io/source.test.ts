import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/io/input-error.ts';
import { writeOnnx } from '../../src/io/onnx/write-onnx.ts';
import { loadProblem, loadSource } from '../../src/io/source.ts';
import { GraphBuilder } from './onnx/graphs.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TRACES = join(ROOT, '..', 'shared', 'traces');

async function loadError(source: string): Promise<InputError> {
  const error = await loadProblem(source).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InputError);
  const inputError = error as InputError;
  expect(inputError.file).toBe(source);
  expect(inputError.message.startsWith(`${source}: `)).toBe(true);
  expect(inputError.message).not.toContain('\n');
  return inputError;
}

describe('loadProblem', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memplan-source-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a .csv trace (half-open) and a .json trace (closed) to the same problem', async () => {
    await writeFile(join(dir, 'a.csv'), 'id,lower,upper,size\nx,0,2,8\ny,1,4,16\n');
    await writeFile(join(dir, 'a.json'), '[{"id":"x","size":8,"first":0,"last":1},{"id":"y","size":16,"first":1,"last":3}]');
    const csv = await loadProblem(join(dir, 'a.csv'));
    const json = await loadProblem(join(dir, 'a.json'));
    expect(csv).toEqual(json);
    expect(csv).toEqual({
      name: 'a',
      records: [
        { id: 'x', size: 8, first: 0, last: 1 },
        { id: 'y', size: 16, first: 1, last: 3 },
      ],
      operatorCount: 4,
    });
  });

  it('takes the extension in any case', async () => {
    await writeFile(join(dir, 'UPPER.CSV'), 'id,lower,upper,size\nx,0,1,8\n');
    expect((await loadProblem(join(dir, 'UPPER.CSV'))).records).toHaveLength(1);
  });

  it('reads the paper example', async () => {
    const problem = await loadProblem(join(ROOT, 'examples', 'paper-example.json'));
    expect(problem.records).toHaveLength(8);
    expect(problem.operatorCount).toBe(9);
  });

  it('passes on the reader errors with the file name as given', async () => {
    const file = join(dir, 'bad.csv');
    await writeFile(file, 'id,lower,upper,size\nx,0,1,8\ny,0,1,-8\n');
    const error = await loadProblem(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).file).toBe(file);
    expect((error as InputError).message).toBe(`${file}:3: size -8 is negative.`);
  });

  it('a missing file', async () => {
    const file = join(dir, 'missing.csv');
    const error = await loadError(file);
    expect(error.line).toBeUndefined();
    expect(error.message).toMatch(/no such file/);
  });

  it('a folder named like a trace', async () => {
    const folder = join(dir, 'folder.json');
    await mkdir(folder);
    expect((await loadError(folder)).message).toMatch(/cannot be read/);
  });

  it.each(['trace.txt', 'trace', 'trace.csv.gz', 'dir.csv/trace'])('an unknown extension: %s', async (name) => {
    expect((await loadError(join(dir, name))).message).toMatch(/unknown source type; expected zoo:<model>, synthetic:chain\|dag\?n=N&seed=S, \.tflite, \.onnx, \.csv/);
  });

  it.each(['model.onnx', 'nets/model.tflite', 'MODEL.ONNX'])('a missing network file: %s', async (source) => {
    expect((await loadError(source)).message).toMatch(/no such file/);
  });

  it('a zoo network becomes records; an unknown one names the zoo', async () => {
    expect((await loadSource('zoo:mobilenet-v1')).kind).toBe('graph');
    expect((await loadProblem('zoo:mobilenet-v2', { elementSize: 4 })).records).toHaveLength(65);
    await expect(loadProblem('zoo:no-such-model')).rejects.toThrow(/no such network; the zoo has mobilenet-v1/);
  });

  it('record files must be UTF-8: UTF-16 and invalid bytes are refused by name; a UTF-8 byte-order mark is dropped', async () => {
    const text = 'id,lower,upper,size\nx,0,2,8\n';
    const utf16 = join(dir, 'utf16.csv');
    await writeFile(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    expect((await loadError(utf16)).message).toBe(`${utf16}: is UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8.`);
    const latin1 = join(dir, 'latin1.json');
    await writeFile(latin1, Buffer.concat([Buffer.from('[\n{"id": "caf'), Buffer.from([0xe9]), Buffer.from('", "size": 1, "first": 0, "last": 0}]\n')]));
    await expect(loadProblem(latin1)).rejects.toThrow(new InputError(latin1, 2, 'the byte 0xe9 at offset 13 is not UTF-8 text; save the file as UTF-8.'));
    const bom = join(dir, 'bom.csv');
    await writeFile(bom, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]));
    expect((await loadProblem(bom)).records).toEqual([{ id: 'x', size: 8, first: 0, last: 1 }]);
  });

  it('a network whose records add up past 2^53 bytes: one sentence naming the file', async () => {
    const builder = new GraphBuilder('huge', 'NCHW');
    let tensor = builder.input('x', [1, 2 ** 49]);
    for (let k = 0; k < 6; k++) tensor = builder.op({ op: 'Relu' }, [tensor], `r${k}`);
    const file = join(dir, 'huge.onnx');
    await writeFile(file, writeOnnx(builder.build([tensor]), { weights: 'none' }));
    // r0 ... r4 are records of 2^51 bytes each: the fourth takes the sum to 2^53.
    expect((await loadError(file)).message).toBe(`${file}: problem "huge": record 3 (id "r3") brings the sum of the sizes past 2^53 - 1 bytes, beyond which plans are not exact.`);
  });

  it('refuses input shapes for a source whose shapes are all fixed, rather than ignore them', async () => {
    const inputShapes = new Map([['image', [1, 224, 224, 3]]]);
    for (const source of ['zoo:mobilenet-v1', 'synthetic:chain?n=5&seed=1']) {
      await expect(loadSource(source, { inputShapes })).rejects.toThrow(`${source}: input shapes (image) fix dynamic inputs of .tflite and .onnx files; this source's shapes are all fixed.`);
    }
    expect((await loadSource('zoo:mobilenet-v1', { inputShapes: new Map() })).kind).toBe('graph');
  });
});

const haveTraces = existsSync(TRACES);
if (!haveTraces) {
  console.warn(`test/io/source.test.ts: skipping the real traces: ${TRACES} is absent (the shared folder is not checked out).`);
}

describe.skipIf(!haveTraces)('loadProblem on real traces (../shared/traces)', () => {
  const minimalloc = join(TRACES, 'minimalloc', 'input.12.csv');
  const idealloc = join(TRACES, 'idealloc', 'Y_1.csv');

  // idealloc's iree_*.csv end without a line break, after their ignored offset column.
  it('every trace file there is read', async () => {
    const files = readdirSync(TRACES, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.csv'));
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) expect((await loadProblem(join(TRACES, name))).records.length, name).toBeGreaterThan(0);
  });

  it.skipIf(!existsSync(minimalloc))('minimalloc/input.12.csv: 5 records, closed intervals', async () => {
    const problem = await loadProblem(minimalloc);
    expect(problem.name).toBe('input.12');
    expect(problem.records).toEqual([
      { id: 'b1', size: 4, first: 0, last: 2 },
      { id: 'b2', size: 4, first: 3, last: 8 },
      { id: 'b3', size: 4, first: 0, last: 8 },
      { id: 'b4', size: 4, first: 9, last: 20 },
      { id: 'b5', size: 4, first: 0, last: 20 },
    ]);
    expect(problem.operatorCount).toBe(21);
  });

  it.skipIf(!existsSync(idealloc))('idealloc/Y_1.csv: 62,185 records', async () => {
    const problem = await loadProblem(idealloc);
    expect(problem.records).toHaveLength(62_185);
    let lastOperator = -1;
    let malformed = 0;
    for (const r of problem.records) {
      if (!(r.first >= 0 && r.first <= r.last && Number.isSafeInteger(r.size) && r.size >= 0)) malformed++;
      lastOperator = Math.max(lastOperator, r.last);
    }
    expect(malformed).toBe(0);
    expect(problem.operatorCount).toBe(lastOperator + 1);
    expect(new Set(problem.records.map((r) => r.id)).size).toBe(62_185);
  });
});

describe('synthetic:planted sources', () => {
  it('loads a planted problem with its family, seed and grain, named after them', async () => {
    const problem = await loadProblem('synthetic:planted?n=60&seed=2&family=lanes&grain=1024');
    expect(problem.records).toHaveLength(60);
    expect(problem.name).toBe('planted-lanes-60-s2-g1024');
    expect(problem.records.every((r) => r.size % 1024 === 0)).toBe(true);
    expect((await loadProblem('synthetic:planted?n=60&seed=2')).name).toBe('planted-dnn-60-s2');
  });

  it('refuses an unknown family, grain or parameter with a sentence', async () => {
    expect((await loadError('synthetic:planted?n=60&family=bricks')).message).toMatch(/family must be one of dnn, guillotine, skyline, lanes/);
    expect((await loadError('synthetic:planted?n=60&grain=1000')).message).toMatch(/grain must divide 1048576/);
    expect((await loadError('synthetic:planted?n=60&size=3')).message).toMatch(/unknown parameter "size"/);
  });
});
