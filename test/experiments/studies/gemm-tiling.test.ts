import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ExperimentError } from '../../../src/experiments/experiment-error.ts';
import { gridCells } from '../../../src/experiments/studies/gemm-tiling-config.ts';
import { gemmTilingStudy, runOrder } from '../../../src/experiments/studies/gemm-tiling.ts';

const FILE = 'experiments/gemm-tiling.json';
const MiB = 2 ** 20;
const data = (): Record<string, unknown> => JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, unknown>;
const parse = (changes: Record<string, unknown>) => gemmTilingStudy.parse({ ...data(), ...changes }, FILE);

describe('the gemm-tiling study file', () => {
  it('reads the committed experiment: the full grid, 5 runs, both schedulers, both storages, the quick grid', () => {
    const config = gemmTilingStudy.parse(data(), FILE);
    expect(config).toMatchObject({ name: 'gemm-tiling', n: 4096, repetitions: 5, schedulers: ['dynamic', 'planned'], peer: true, figure2Budget: 256 * MiB, figure3Tile: 512 });
    expect(config.tiles).toEqual([4096, 2048, 1024, 512, 256]);
    expect(config.budgets).toEqual([256, 128, 64, 32, 16, 8, 4].map((m) => m * MiB));
    expect(config.storage.map((s) => s.id)).toEqual(['native', 'xu4-emmc']);
    expect(config.storage[0].speeds).toBeUndefined();
    expect(config.storage[1].speeds).toEqual({ read: { bytesPerSecond: 400e6, label: '400MB/s' }, write: { bytesPerSecond: 400e6, label: '400MB/s' } });
    expect(config.storage[1].source).toMatch(/HS400/);
    expect(config.quick).toMatchObject({ n: 256, repetitions: 1, figure3Tile: 64 });
    expect(config.published).toEqual({ n: 4096, untiled: { peakMB: 399, seconds: 121 }, smallest: { tile: 512, budgetMB: 4, peakMB: 23, seconds: 498 } });
  });

  it('runs every cell of the grid that holds one step, and names the others with the reason', () => {
    const config = gemmTilingStudy.parse(data(), FILE);
    const { feasible, infeasible } = gridCells(config);
    expect(feasible).toHaveLength(23);
    expect(feasible.filter((c) => c.tile === 4096).map((c) => c.budget)).toEqual([256 * MiB]);
    expect(feasible.filter((c) => c.tile === 2048).map((c) => c.budget / MiB)).toEqual([256, 128, 64]);
    expect(infeasible).toHaveLength(12);
    expect(infeasible[0]).toEqual({
      tile: 4096,
      budget: 128 * MiB,
      why: 'a budget of 128 MiB cannot hold one step of a 4096x4096-tile GEMM (A, B and C tiles: 192 MiB); the smallest budget that works is 192 MiB.',
    });
    // 23 cells x 2 schedulers x 2 storages, tile by tile (inputs written once per tile).
    const order = runOrder(config, config.storage, config.schedulers);
    expect(order).toHaveLength(92);
    expect(order.map((c) => c.tile).filter((t, k, all) => k === 0 || all[k - 1] !== t)).toEqual([4096, 2048, 1024, 512, 256]);
  });

  it('refuses bad input in one sentence naming the field', () => {
    const fails = (changes: Record<string, unknown>, message: RegExp) => {
      expect(() => parse(changes)).toThrow(ExperimentError);
      expect(() => parse(changes)).toThrow(message);
    };
    fails({ budgets: ['256MiB', 'a lot'] }, /^experiments\/gemm-tiling\.json: \$\.budgets\[1\]: "a lot" is not a size; .+\.$/);
    fails({ tiles: [4096, 500] }, /\$\.tiles\[1\]: the tile must be a multiple of 32 floats, got 500\.$/);
    fails({ tiles: [4096, 2048, 2048] }, /\$\.tiles\[2\]: 2048 is listed twice\.$/);
    fails({ tiles: [2048, 512] }, /\$\.tiles: must hold n \(4096\): the untiled GEMM is the baseline every ratio is taken against\.$/);
    fails({ figure2: { budget: '100MiB' } }, /\$\.figure2\.budget: 100 MiB is not one of \$\.budgets: a figure is a slice of the grid\.$/);
    fails(
      { figure2: { budget: '64MiB' } },
      /\$\.figure2\.budget: the untiled GEMM must run at Figure 2's budget, and a budget of 64 MiB cannot hold one step of a 4096x4096-tile GEMM \(A, B and C tiles: 192 MiB\); the smallest budget that works is 192 MiB\.$/,
    );
    fails({ figure3: { tile: 128 } }, /\$\.figure3\.tile: 128 is not one of \$\.tiles: a figure is a slice of the grid\.$/);
    fails({ schedulers: ['fifo'] }, /\$\.schedulers\[0\]: must be one of dynamic, planned\.$/);
    fails({ storage: [{ id: 'emmc', label: 'eMMC', read: 'fast' }] }, /\$\.storage\[0\]\.read: "fast" is not a read speed; .+\(e\.g\. 150MB or 150MB\/s\)\.$/);
    fails({ storage: [{ id: 'emmc', label: 'eMMC', write: '40MB' }] }, /\$\.storage\[0\]\.write: needs read: state the device's read speed too\.$/);
    fails(
      {
        storage: [
          { id: 'a', label: 'x' },
          { id: 'a', label: 'y' },
        ],
      },
      /\$\.storage\[1\]: the id "a" is listed twice\.$/,
    );
    fails({ grid: [] }, /\$\.grid: unknown field; expected one of /);
    fails({ quick: { ...(data().quick as object), tiles: [256, 96] } }, /\$\.quick\.tiles\[1\]: the tile \(96\) must divide n \(256\)\.$/);
  });

  it('states a device whose writes differ from its reads, and defaults writes to the read speed', () => {
    const config = parse({
      storage: [
        { id: 'sd', label: 'SD card', read: '80MB/s', write: '40MB' },
        { id: 'emmc', label: 'eMMC', read: 150e6 },
      ],
    });
    expect(config.storage[0].speeds?.write.bytesPerSecond).toBe(40e6);
    expect(config.storage[1].speeds?.write.bytesPerSecond).toBe(150e6);
  });
});
