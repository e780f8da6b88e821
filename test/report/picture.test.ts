import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAPER_RECORD_OPTIONS } from '../../src/graph/lifetimes.ts';
import { missingChartFonts } from '../../src/report/charts/render.ts';
import { drawPicture, pictureName } from '../../src/report/picture.ts';

describe('pictureName', () => {
  it("names a file source by its base name, never a hidden file from a '../' path", () => {
    expect(pictureName('../x.csv', ['offsets/greedy-by-size'])).toBe('x-offsets-greedy-by-size');
    expect(pictureName('../../shared/traces/.hidden.csv', ['offsets/naive'])).toBe('hidden-offsets-naive');
    expect(pictureName('..', ['offsets/naive'])).toBe('picture-offsets-naive');
  });

  it('keeps the names of zoo pictures, one planner or several', () => {
    expect(pictureName('zoo:deeplab-v3', ['offsets/greedy-by-size'])).toBe('deeplab-v3-offsets-greedy-by-size');
    expect(pictureName('zoo:deeplab-v3', ['offsets/greedy-by-size', 'offsets/strip-packing-best-fit'])).toBe('deeplab-v3-offsets-greedy-by-size-offsets-strip-packing-best-fit');
  });
});

const missing = await missingChartFonts();
if (missing.length > 0) console.warn(`SKIPPED: drawing pictures needs ${missing.join(', ')} (Debian package fonts-dejavu-core).`);

describe.skipIf(missing.length > 0)('drawPicture', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'memplan-picture-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("draws the plans of a source given as a '../' path side by side, into files that are not hidden", async () => {
    const trace = join(dir, 'trace.csv');
    // MiniMalloc CSV: half-open [lower, upper).
    await writeFile(trace, 'id,lower,upper,size\n0,0,2,4096\n1,1,3,2048\n2,2,4,4096\n');
    const source = relative(process.cwd(), trace);
    expect(source.startsWith('../')).toBe(true);
    const out = join(dir, 'pictures');
    const base = await drawPicture(source, ['offsets/greedy-by-size', 'offsets/naive'], out, PAPER_RECORD_OPTIONS);
    expect(base).toBe(join(out, 'trace-offsets-greedy-by-size-offsets-naive'));
    const files = (await readdir(out)).sort();
    expect(files).toEqual(['pdf', 'png', 'svg', 'vl.json'].map((ext) => `trace-offsets-greedy-by-size-offsets-naive.${ext}`).sort());
    expect(files.some((f) => f.startsWith('.'))).toBe(false);
    const svg = await readFile(`${base}.svg`, 'utf8');
    expect(svg).toContain('>Greedy by Size: 6.00 KiB');
    expect(svg).toContain('>Naive: 10.00 KiB');
    expect(svg).toContain('>lower bound 6.00 KiB<');
    expect(svg).toContain('>address (KiB)<');
  }, 30_000);
});
