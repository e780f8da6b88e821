import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPlan } from '../../../src/core/verify.ts';
import { BackendError } from '../../../src/backends/backend-error.ts';
import { packB } from '../../../src/backends/cpu/kernels/gemm.ts';
import { pageAlignedMemory, tileGemmOn } from '../../../src/backends/cpu/kernels/wasm/tile-gemm.ts';
import { checkProduct } from '../../../src/backends/gemm/check-product.ts';
import { dynamicSchedule } from '../../../src/backends/gemm/dynamic-schedule.ts';
import { BudgetViolation, executeSchedule } from '../../../src/backends/gemm/executor.ts';
import { gemmShape, tileKey } from '../../../src/backends/gemm/gemm-shape.ts';
import { emptyProduct, writeInputs } from '../../../src/backends/gemm/matrix-files.ts';
import { planPolicy, plannedSchedule, POLICIES, type PlannedSchedule } from '../../../src/backends/gemm/planned-schedule.ts';
import { findPlanner } from '../../../src/planners/registry.ts';
import { parseStorageBandwidth } from '../../../src/io/storage-bandwidth.ts';
import { finishedProduct, runGemm } from '../../../src/measuring/gemm/run-gemm.ts';
import type { GemmSchedule } from '../../../src/backends/gemm/schedule.ts';
import { planOf } from '../../../src/planners/plan-handover.ts';

const shape = gemmShape(128, 32);
const TILE = shape.tileBytes;
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memplan-gemm-test-'));
  await writeInputs(dir, shape, 5);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const schedulers = {
  planned: (budget: number) => plannedSchedule(shape, budget),
  dynamic: (budget: number) => dynamicSchedule(shape, budget),
};

describe('the tile kernel', () => {
  it('computes C = A B, then C += A B, in place in a memory the caller owns', () => {
    const t = 64;
    const bytes = t * t * 4;
    const memory = pageAlignedMemory(3 * bytes);
    const f = new Float32Array(memory.buffer);
    const a = Float32Array.from({ length: t * t }, (_, k) => ((k * 7919) % 17) - 8);
    const b = Float32Array.from({ length: t * t }, (_, k) => ((k * 104729) % 13) - 6);
    f.set(a, 0);
    f.set(packB(b, 0, t, t, t, 1).data, t * t);
    const kernel = tileGemmOn(memory);
    kernel.gemm(0, bytes, 2 * bytes, t, false);
    kernel.gemm(0, bytes, 2 * bytes, t, true);
    for (let i = 0; i < t; i++) {
      for (let j = 0; j < t; j++) {
        let exact = 0;
        for (let k = 0; k < t; k++) exact += a[i * t + k] * b[k * t + j];
        // Small integers: every sum is exact in float32.
        expect(f[2 * t * t + i * t + j]).toBe(2 * exact);
      }
    }
  });
});

describe.each(['planned', 'dynamic'] as const)('the %s scheduler', (scheduler) => {
  it.each([3 * TILE, 4 * TILE, 5 * TILE, 7 * TILE, 16 * TILE, 256 * TILE])('computes C exactly enough under a budget of %d bytes, never holding more than it', async (budget) => {
    await emptyProduct(dir, shape);
    const schedule = schedulers[scheduler](budget);
    expect(schedule.arenaBytes).toBeLessThanOrEqual(budget);
    const figures = await executeSchedule(schedule, shape, dir, { directIo: false, budget });
    expect(figures.tasks).toBe(shape.tiles ** 3);
    expect(figures.residentHighWater).toBeLessThanOrEqual(budget);
    expect(figures.bytesWritten).toBeGreaterThanOrEqual(shape.tiles ** 2 * TILE);
    const check = await checkProduct(dir, shape, 5);
    expect(check.kind).toBe('full');
    expect(check.within).toBe(true);
  });

  it('refuses a budget below one step (three tiles), naming the smallest that works', () => {
    expect(() => schedulers[scheduler](3 * TILE - 1)).toThrow(BackendError);
    expect(() => schedulers[scheduler](3 * TILE - 1)).toThrow(
      /^a budget of 12287 bytes cannot hold one step of a 32x32-tile GEMM \(A, B and C tiles: 12 KiB\); the smallest budget that works is 12 KiB\.$/,
    );
  });

  it('gives every task its three tiles and writes every C tile', () => {
    const schedule = schedulers[scheduler](5 * TILE);
    const written = new Set<string>();
    let tasks = 0;
    for (const step of schedule.steps()) {
      for (const p of step.writes) written.add(tileKey(p.tile));
      if (step.task) tasks++;
    }
    expect(tasks).toBe(shape.tiles ** 3);
    expect(written.size).toBe(shape.tiles ** 2);
  });
});

describe('the planned scheduler', () => {
  it('plans tile residencies that the verifier accepts, in an arena within the budget (any budget)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 3 * TILE, max: 200 * TILE }), (budget) => {
        const schedule = plannedSchedule(shape, budget);
        expect(schedule.arenaBytes).toBeLessThanOrEqual(budget);
        expect(verifyPlan(schedule.problem, planOf(schedule.plan), { alignment: 4096 }).valid).toBe(true);
        // A larger budget never makes the plan keep less: its arena never shrinks.
        expect(plannedSchedule(shape, Math.min(budget + TILE, 200 * TILE)).arenaBytes).toBeGreaterThanOrEqual(schedule.arenaBytes);
      }),
      { numRuns: 25 },
    );
  });
});

describe('the planned scheduler under larger budgets', () => {
  /** Tile loads the schedule makes (reads), counted from its steps. */
  const loads = (schedule: PlannedSchedule): number => [...schedule.steps()].reduce((sum, step) => sum + step.loads.length, 0);

  it('keeps more of B resident as the budget grows past a row of A, and reads less for it, down to each input once', () => {
    const rowKept = planPolicy(shape, POLICIES[0], findPlanner('offsets/greedy-by-size')).arenaBytes;
    const all = shape.tiles * shape.tiles;
    let kept = -1;
    let read = Infinity;
    for (let budget = rowKept; budget <= rowKept + (all + 2) * TILE; budget += TILE) {
      const schedule = plannedSchedule(shape, budget);
      expect(schedule.arenaBytes).toBeLessThanOrEqual(budget);
      expect(schedule.residency.reuse).toBe('a-row');
      expect(schedule.residency.keptB).toBeGreaterThanOrEqual(kept);
      expect(loads(schedule)).toBeLessThanOrEqual(read);
      if (schedule.residency.keptB > kept && kept >= 0) expect(loads(schedule)).toBeLessThan(read);
      kept = schedule.residency.keptB;
      read = loads(schedule);
    }
    // With all of B kept, A and B are each read once.
    expect(kept).toBe(all);
    expect(read).toBe(2 * all);
    // Between a row of A and all of B, every budget step keeps about one more tile of B.
    expect(plannedSchedule(shape, rowKept + 5 * TILE).residency.keptB).toBeGreaterThanOrEqual(5);
  });

  it('refuses a policy it cannot run in one sentence (a forged job)', () => {
    const forged = { reuse: 'a-row', keptB: 99, prefetch: ['A'], writeBehind: false } as const;
    expect(() => planPolicy(shape, forged, findPlanner('offsets/greedy-by-size'))).toThrow(BackendError);
    expect(() => planPolicy(shape, forged, findPlanner('offsets/greedy-by-size'))).toThrow(/^the GEMM process received a tile policy it cannot run: \{"reuse":"a-row","keptB":99,.+\}\.$/);
  });
});

describe('the executor at a stated storage speed', () => {
  it.each(['planned', 'dynamic'] as const)('%s: takes at least the bytes over the stated rates, reads and writes each at its own, and C is still right', async (scheduler) => {
    await emptyProduct(dir, shape);
    const budget = 4 * TILE;
    const storage = { read: parseStorageBandwidth('8MB/s'), write: parseStorageBandwidth('2MB/s') };
    const figures = await executeSchedule(schedulers[scheduler](budget), shape, dir, { directIo: false, budget, storage });
    // One device serves every transfer in turn: the run cannot end before it has.
    const deviceMs = (figures.bytesRead / 8e6 + figures.bytesWritten / 2e6) * 1000;
    expect(deviceMs).toBeGreaterThan(50);
    expect(figures.wallMs).toBeGreaterThanOrEqual(deviceMs);
    expect(figures.heldMs).toBeGreaterThan(0);
    expect((await checkProduct(dir, shape, 5)).within).toBe(true);
  });

  it('runs unheld without a stated speed', async () => {
    await emptyProduct(dir, shape);
    const figures = await executeSchedule(schedulers.planned(4 * TILE), shape, dir, { directIo: false, budget: 4 * TILE });
    expect(figures.heldMs).toBeUndefined();
  });

  it('refuses a speed that would hold a transfer for ever', async () => {
    const storage = { read: { bytesPerSecond: 0, label: '0/s' }, write: parseStorageBandwidth('1MB') };
    await expect(executeSchedule(schedulers.planned(4 * TILE), shape, dir, { directIo: false, budget: 4 * TILE, storage })).rejects.toThrow(
      'the GEMM process received a storage speed it cannot hold transfers to: {"bytesPerSecond":0,"label":"0/s"}.',
    );
  });
});

describe('the executor checks what it is given', () => {
  it('stops a schedule that loads a tile onto one still in use', async () => {
    const honest = plannedSchedule(shape, 3 * TILE);
    const forged: GemmSchedule = {
      ...honest,
      *steps() {
        let k = 0;
        for (const step of honest.steps()) {
          // The second step's loads all land at byte 0, where the first step's A may still be.
          yield k++ === 1 ? { ...step, evictions: [], loads: step.loads.map((p) => ({ ...p, at: 0 })) } : step;
        }
      },
    };
    await expect(executeSchedule(forged, shape, dir, { directIo: false, budget: 3 * TILE })).rejects.toThrow(BudgetViolation);
  });

  it('refuses an arena over the budget', async () => {
    await expect(executeSchedule(plannedSchedule(shape, 8 * TILE), shape, dir, { directIo: false, budget: 3 * TILE })).rejects.toThrow(/over the budget/);
  });
});

describe('memplan gemm end to end (its own process)', () => {
  it('reports a correct C, resident tiles within the budget and the measured peak, and marks C finished', async () => {
    const run = join(dir, 'run');
    const report = await runGemm({ n: 256, tile: 64, budget: 4 * 64 * 64 * 4, scheduler: 'planned', dir: run, seed: 3, directIo: 'auto' });
    expect(report.check).toMatchObject({ kind: 'full', within: true });
    expect(report.tiles.residentHighWater).toBeLessThanOrEqual(report.budget);
    expect(report.memory.peakRssDelta).toBe(report.memory.peakRss - report.memory.baselineRss);
    expect(report.io.bytesRead).toBeGreaterThan(0);
    expect(await finishedProduct(run)).toMatchObject({ n: 256, tile: 64, seed: 3 });
    expect(existsSync(join(run, 'C.tiles'))).toBe(true);
    expect(report.storage).toEqual({ read: null, write: null, heldMs: null });
  }, 60_000);

  it('holds the measured process to a stated storage speed and says so', async () => {
    const run = join(dir, 'paced');
    const storage = { read: parseStorageBandwidth('4MB/s'), write: parseStorageBandwidth('4MB/s') };
    const report = await runGemm({ n: 256, tile: 64, budget: 3 * 64 * 64 * 4, scheduler: 'planned', dir: run, seed: 3, directIo: 'auto', storage });
    // 3 tiles: no reuse, every task reads its A and B (2 x 64 x 16 KiB) and C is written once: 2.3 MiB at 4 MB/s.
    expect(report.io.bytesRead + report.io.bytesWritten).toBe((2 * 64 + 16) * 16384);
    expect(report.wallMs).toBeGreaterThanOrEqual(((report.io.bytesRead + report.io.bytesWritten) / 4e6) * 1000);
    expect(report.storage.read).toEqual(storage.read);
    expect(report.storage.heldMs).toBeGreaterThan(0);
    expect(report.check.within).toBe(true);
  }, 60_000);
});
