import { describe, expect, it } from 'vitest';
import { budgetedRun, budgetShare, graphIoBytes, KERNEL_AREA_BYTES, PAGE_BYTES, PROCESS_RESERVE_BYTES, smallestRunBudget } from '../../../src/backends/budgeted/budget-share.ts';
import { WEIGHT_SLICE_SHARE } from '../../../src/graph/budget-records.ts';
import { flexnn } from '../../../src/planners/budgeted/flexnn.ts';
import { InfeasibleBudgetError } from '../../../src/planners/budgeted/infeasible-budget.ts';
import { planAndVerify } from '../../../src/planners/plan-and-verify.ts';
import { everyPathNetwork } from './networks.ts';

const graph = everyPathNetwork();
const MiB = 2 ** 20;

function planned(budget: number): boolean {
  try {
    return planAndVerify(flexnn, budgetedRun(graph, budget).network.problem, { alignment: 64 }).valid;
  } catch (error) {
    if (error instanceof InfeasibleBudgetError) return false;
    throw error;
  }
}

describe("a budget's share", () => {
  it('counts the graph inputs and the outputs handed back at 4 bytes per element', () => {
    // every-path: a 1x20x20x6 input and 10 softmax outputs.
    expect(graphIoBytes(graph)).toBe(4 * (20 * 20 * 6 + 10));
  });

  it('leaves the buffer what graph I/O and the reserve do not take, in whole pages less the kernels area', () => {
    const budget = 5 * MiB + 12345;
    const share = budgetShare(graph, budget);
    expect(share).toMatchObject({ budget, io: graphIoBytes(graph), reserve: PROCESS_RESERVE_BYTES });
    expect(share.memory % PAGE_BYTES).toBe(0);
    expect(share.memory + share.io + share.reserve).toBeLessThanOrEqual(budget);
    expect(budget - (share.memory + share.io + share.reserve)).toBeLessThan(PAGE_BYTES);
    expect(share.buffer).toBe(share.memory - KERNEL_AREA_BYTES);
  });

  it('leaves no buffer when graph I/O and the reserve take the whole budget', () => {
    expect(budgetShare(graph, PROCESS_RESERVE_BYTES)).toMatchObject({ memory: 0, buffer: 0 });
    expect(budgetShare(graph, 1024)).toMatchObject({ memory: 0, buffer: 0 });
  });

  it('plans the records in that buffer, weights sliced for it', () => {
    const { network, share } = budgetedRun(graph, 4 * MiB + 256 * 1024);
    expect(network.problem.budget).toBe(share.buffer);
    const weights = network.problem.records.filter((r) => r.kind === 'weight');
    expect(weights.length).toBeGreaterThan(0);
    for (const w of weights) expect(w.size, w.id).toBeLessThanOrEqual(share.buffer / WEIGHT_SLICE_SHARE);
    const plan = planAndVerify(flexnn, network.problem, { alignment: 64 });
    expect(plan.valid).toBe(true);
    expect(plan.footprint).toBeLessThanOrEqual(share.buffer);
  });

  it('finds the smallest budget of a whole run: planned at it, not one alignment step below', () => {
    const smallest = smallestRunBudget(flexnn, graph, {}, 64) as number;
    expect(smallest).toBeGreaterThan(PROCESS_RESERVE_BYTES + graphIoBytes(graph));
    expect(smallest % 64).toBe(0);
    expect(planned(smallest)).toBe(true);
    expect(planned(smallest - 64)).toBe(false);
  });
});
