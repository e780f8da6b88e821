import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileSystemSentence } from '../../src/io/file-system-error.ts';
import { memplan, userErrorLine } from '../cli/run-memplan.ts';

let dir = '';
let file = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memplan-fs-'));
  file = join(dir, 'a-file');
  await writeFile(file, 'not a folder');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('file-system errors on paths the user chose', () => {
  it('turns an error with a path and a known code into one sentence naming the path', () => {
    const error = Object.assign(new Error('ENOTDIR: not a directory'), { code: 'ENOTDIR', path: '/x/y', syscall: 'mkdir' });
    expect(fileSystemSentence(error)).toBe('/x/y: part of the path is a file, not a folder (mkdir, ENOTDIR).');
    expect(fileSystemSentence(Object.assign(new Error(), { code: 'EEXIST', path: '/x', syscall: 'mkdir' }))).toBe('/x: is a file where a folder is needed (mkdir, EEXIST).');
    expect(fileSystemSentence(Object.assign(new Error(), { code: 'EEXIST', path: '/x', syscall: 'open' }))).toBe('/x: already exists (open, EEXIST).');
  });

  it('leaves every other error alone (a bug keeps its stack trace)', () => {
    expect(fileSystemSentence(new TypeError('x is undefined'))).toBeUndefined();
    expect(fileSystemSentence(Object.assign(new Error(), { code: 'ENOTDIR' }))).toBeUndefined();
    expect(fileSystemSentence(Object.assign(new Error(), { code: 'ERR_SOMETHING', path: '/x' }))).toBeUndefined();
    expect(fileSystemSentence('ENOENT')).toBeUndefined();
  });

  it('memplan run --out and memplan gemm --dir on a file: one sentence, exit code 2', async () => {
    const [run, gemm] = await Promise.all([memplan('run', 'experiments/table1.json', '--out', file), memplan('gemm', '-n', '64', '--tile', '32', '--dir', file)]);
    expect(userErrorLine(run)).toMatch(new RegExp(`^memplan: ${file}/table1: part of the path is a file, not a folder \\(mkdir, ENOTDIR\\)\\.$`));
    expect(userErrorLine(gemm)).toBe(`memplan: ${file}: is a file where a folder is needed (mkdir, EEXIST).`);
  });
});
