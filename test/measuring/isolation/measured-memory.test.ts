import { describe, expect, it } from 'vitest';
import { cpuBackend } from '../../../src/backends/cpu/cpu-backend.ts';
import { packedLength } from '../../../src/backends/cpu/kernels/gemm.ts';
import { execute } from '../../../src/measuring/execute.ts';
import type { ExecuteOptions } from '../../../src/measuring/execute-options.ts';
import { NetworkBuilder } from '../../../src/models/builder.ts';
import { findPlanner } from '../../../src/planners/registry.ts';

const MiB = 2 ** 20;
const options = (planner: string, extra: Partial<ExecuteOptions> = {}): ExecuteOptions => ({
  backend: cpuBackend,
  planner: findPlanner(planner),
  repetitions: 1,
  warmup: 0,
  seed: 1,
  verifyByExecution: false,
  ...extra,
});

/**
 * Two 64 MiB tensors that are never live together (each padded out of a tiny one, then
 * averaged away): naive buffers need 128 MiB, an arena 64 MiB.
 */
function twoBigTensors() {
  const b = new NetworkBuilder('two-big-tensors');
  const x = b.input('in', [1, 4, 4, 4]);
  const first = b.pad('big1', b.unary('r', 'Relu', x), [
    [0, 0],
    [0, 2044],
    [0, 2044],
    [0, 0],
  ]);
  const small = b.mean('m1', first, [1, 2], true);
  const second = b.pad('big2', small, [
    [0, 0],
    [0, 2047],
    [0, 2047],
    [0, 0],
  ]);
  return b.build([b.mean('m2', second, [1, 2], true)]);
}

describe('memory measured in an isolated process', () => {
  it('sees a planted 64 MiB buffer twice under naive and once in an arena, as planned', async () => {
    const graph = twoBigTensors();
    const naive = await execute(graph, options('shared-objects/naive'));
    const arena = await execute(graph, options('offsets/greedy-by-size'));
    expect(naive.memory.planned).toBeGreaterThan(128 * MiB);
    expect(naive.memory.intermediates).toBe(naive.memory.planned);
    expect(arena.memory.planned).toBeLessThan(65 * MiB);
    expect(arena.memory.intermediates).toBe(arena.memory.planned);
    // Each process ran its plan alone: its peak over its baseline holds what it planned,
    // less a few MiB at most (the baseline is taken after start-up, and pages the engine
    // held then, e.g. young-generation heap, may be given back before the peak).
    const slack = 4 * MiB;
    expect(naive.memory.peakRssDelta).toBeGreaterThan(naive.memory.planned - slack);
    expect(arena.memory.peakRssDelta).toBeGreaterThan(arena.memory.planned - slack);
    // ... and the measured difference is the planned one (within 20%).
    const planned = naive.memory.planned - arena.memory.planned;
    const measured = naive.memory.peakRssDelta - arena.memory.peakRssDelta;
    expect(Math.abs(measured / planned - 1)).toBeLessThan(0.2);
    for (const report of [naive, arena]) {
      const m = report.memory;
      expect(m.baselineRss).toBeGreaterThan(MiB);
      expect(m.peakRssDelta).toBe(m.peakRss - m.baselineRss);
      expect(m.rest).toBe(m.peakRssDelta - m.intermediates - m.io - m.weights - m.scratch);
      expect(report.peakRssBytes).toBe(m.peakRss);
      expect(m.method).toMatch(/isolated process/);
    }
  }, 60_000);

  it("counts one copy of the weights, in the form the kernels use, and plans the kernels' scratch", async () => {
    const b = new NetworkBuilder('pointwise');
    const x = b.input('in', [1, 4, 4, 1000]);
    const y = b.conv('pw', x, { out: 300, kernel: 1 });
    const graph = b.build([b.conv('dw', y, { out: 8, kernel: 3 })]);
    const report = await execute(graph, options('offsets/greedy-by-size', { verifyByExecution: true }));
    expect(report.matchesNaive).toBe(true);
    // Both convolutions pack their weights into GEMM panels of 8 columns, each bias padded to
    // whole panels: the 1x1 one k = cin rows; the 3x3 one (Winograd) its transformed taps, 16
    // positions of cin rows. The raw OHWI weights are never held.
    expect(report.memory.weights).toBe((packedLength(1000, 300) + 16 * packedLength(300, 8)) * 4 + (304 + 8) * 4);
    expect(report.memory.intermediates).toBe(report.memory.planned);
    // The 3x3 convolution's band of tiles is a record of the plan: no kernel keeps scratch of its own.
    expect(report.memory.scratch).toBe(0);
    // Graph input and output buffers, the output handed back and the input given.
    expect(report.memory.io).toBe((16 * 1000 + 16 * 8 + 16 * 8 + 16 * 1000) * 4);
  }, 60_000);
});
