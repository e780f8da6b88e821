import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingChartFonts } from '../../src/report/charts/render.ts';
import { reproducePaper } from '../../src/report/reproduce.ts';

const COMMITTED = 'results/paper';
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });

let out = '';
afterAll(async () => {
  if (out) await rm(out, { recursive: true, force: true });
});

describe('memplan reproduce', () => {
  it('rewrites the committed reproduction byte for byte (timings aside)', async () => {
    const missing = await missingChartFonts();
    if (missing.length > 0) console.warn(`the reproduction renders charts with DejaVu fonts; missing: ${missing.join(', ')}`);
    expect(missing).toEqual([]);
    out = await mkdtemp(join(tmpdir(), 'memplan-paper-'));
    await reproducePaper({ out: join(out, 'paper'), runs: join(out, 'runs'), quiet: true });
    const ours = files(join(out, 'paper')).map((f) => relative(join(out, 'paper'), f)).filter((f) => f !== 'timings.md').sort();
    const committed = files(COMMITTED).map((f) => relative(COMMITTED, f)).filter((f) => f !== 'timings.md').sort();
    expect(ours).toEqual(committed);
    for (const file of ours) {
      expect(readFileSync(join(out, 'paper', file)).equals(readFileSync(join(COMMITTED, file))), `${file} differs from the committed one: run \`npx memplan reproduce\` and commit`).toBe(true);
    }
  }, 120_000);
});
