import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ExperimentError } from '../../../src/experiments/config.ts';
import { gemmTilingStudy } from '../../../src/experiments/studies/gemm-tiling.ts';

const FILE = 'experiments/gemm-tiling.json';
const data = (): Record<string, unknown> => JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, unknown>;

describe('the gemm-tiling study file', () => {
  it('reads the committed experiment: both figures, both schedulers, budgets in bytes, the quick variant', () => {
    const config = gemmTilingStudy.parse(data(), FILE);
    expect(config).toMatchObject({ name: 'gemm-tiling', n: 4096, schedulers: ['dynamic', 'planned'], peer: true });
    expect(config.figure2).toEqual({ tiles: [4096, 2048, 1024, 512], budgets: [256 * 2 ** 20] });
    expect(config.figure3.budgets.at(-1)).toBe(4 * 2 ** 20);
    expect(config.quick?.n).toBe(1024);
    expect(config.published.smallest).toEqual({ tile: 512, budgetMB: 4, peakMB: 23, seconds: 498 });
  });

  it('names the field that is wrong', () => {
    const bad = data();
    (bad.figure3 as { budgets: unknown[] }).budgets[2] = 'a lot';
    expect(() => gemmTilingStudy.parse(bad, FILE)).toThrow(ExperimentError);
    expect(() => gemmTilingStudy.parse(bad, FILE)).toThrow(/\$\.figure3\.budgets\[2\]: "a lot" is not a size/);
    expect(() => gemmTilingStudy.parse({ ...data(), tiles: 3 }, FILE)).toThrow(/\$\.tiles: unknown field/);
    expect(() => gemmTilingStudy.parse({ ...data(), schedulers: ['fifo'] }, FILE)).toThrow(/\$\.schedulers\[0\]: must be one of dynamic, planned/);
  });

  it('refuses a GEMM that cannot run before any cell runs: a tile that does not divide n, a budget under one step', () => {
    expect(() => gemmTilingStudy.parse({ ...data(), figure3: { tile: 500, budgets: ['4MiB'] } }, FILE)).toThrow(/\$\.figure3\.tile: the tile must be a multiple of 32 floats, got 500\.$/);
    expect(() => gemmTilingStudy.parse({ ...data(), figure3: { tile: 512, budgets: ['4MiB', '1MiB'] } }, FILE)).toThrow(
      /\$\.figure3\.budgets\[1\]: a budget of 1 MiB cannot hold one step of a 512x512-tile GEMM \(A, B and C tiles: 3 MiB\); the smallest budget that works is 3 MiB\.$/,
    );
    const quick = { ...(data().quick as object), figure2: { budget: '16MiB', tiles: [1024, 4096] } };
    expect(() => gemmTilingStudy.parse({ ...data(), quick }, FILE)).toThrow(/\$\.quick\.figure2\.tiles\[1\]: the tile \(4096\) must divide n \(1024\)\.$/);
  });
});
