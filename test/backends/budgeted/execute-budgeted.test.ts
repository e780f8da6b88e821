import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { executeBudgeted } from '../../../src/backends/budgeted/execute-budgeted.ts';
import { InfeasibleBudgetError } from '../../../src/planners/budgeted/infeasible-budget.ts';
import { findPlanner } from '../../../src/planners/registry.ts';
import { everyPathNetwork } from './networks.ts';

const weightsFolders = (): string[] => readdirSync(tmpdir()).filter((name) => name.startsWith('memplan-weights-'));

/** What the measured process may hold beyond the buffer: the graph and plan it describes, its inputs and outputs, and the runtime's heap noise. */
const SLACK = 4 * 2 ** 20;

describe('a budgeted execution, measured in a process of its own', () => {
  it('runs inside its buffer, matches the unbudgeted outputs, reports what it loaded and removes its weights file', async () => {
    const before = weightsFolders();
    const budget = 2 ** 20;
    const report = await executeBudgeted(everyPathNetwork(), { planner: findPlanner('budgeted/flexnn'), budget, loading: 'overlapped', repetitions: 2, warmup: 1, seed: 4 });
    expect(report.matchesUnbudgeted).toBe(true);
    expect(report.budget).toBe(budget);
    expect(report.footprint).toBeLessThanOrEqual(budget);
    expect(report.memory.intermediates).toBe(Math.ceil((64 + budget) / 65536) * 65536);
    // The measured peak stays within the buffer and the runtime's own baseline (start-up, loader thread, compiled kernels).
    expect(report.memory.peakRssDelta).toBeLessThanOrEqual(report.memory.intermediates + SLACK);
    expect(report.latencyMs.runs).toBe(2);
    expect(report.loads).toBeGreaterThan(0);
    expect(report.bytesLoaded).toBeGreaterThan(0);
    expect(weightsFolders()).toEqual(before);
  });

  it('names the layer and the smallest budget when the planner cannot meet the budget, and an arena over the budget as infeasible', async () => {
    await expect(executeBudgeted(everyPathNetwork(), { planner: findPlanner('budgeted/flexnn'), budget: 4096, loading: 'overlapped', repetitions: 1, warmup: 0, seed: 1 })).rejects.toThrow(/cannot fit .* smallest budget that works/);
    await expect(executeBudgeted(everyPathNetwork(), { planner: findPlanner('offsets/greedy-by-size'), budget: 4096, loading: 'overlapped', repetitions: 1, warmup: 0, seed: 1 })).rejects.toThrow(InfeasibleBudgetError);
  });
});
