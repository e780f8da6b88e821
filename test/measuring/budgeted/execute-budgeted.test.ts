import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it, onTestFinished } from 'vitest';
import { budgetedRun, graphIoBytes, PAGE_BYTES, PROCESS_RESERVE_BYTES } from '../../../src/backends/budgeted/budget-share.ts';
import { executeBudgeted } from '../../../src/measuring/budgeted/execute-budgeted.ts';
import { buildZooModel } from '../../../src/models/zoo.ts';
import { InfeasibleBudgetError } from '../../../src/planners/budgeted/infeasible-budget.ts';
import { planAndVerify } from '../../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../../src/planners/registry.ts';
import { everyPathNetwork } from '../../backends/budgeted/networks.ts';

// Each test writes its weights under a folder of its own: other test files run budgeted jobs at the same time.
const weightsFolders = (parent: string): string[] => readdirSync(parent).filter((name) => name.startsWith('memplan-weights-'));
function ownFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'memplan-weights-test-'));
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}
const MiB = 2 ** 20;

describe('a budgeted execution, measured in a process of its own', () => {
  it('keeps its budget as measured: buffer, graph I/O and the reserve inside it; outputs match the unbudgeted run; the weights file is removed', async () => {
    const parent = ownFolder();
    const budget = 5 * MiB;
    const graph = everyPathNetwork();
    const report = await executeBudgeted(graph, { planner: findPlanner('budgeted/flexnn'), budget, loading: 'overlapped', repetitions: 2, warmup: 1, seed: 4, weightsDir: parent });
    expect(report.matchesUnbudgeted).toBe(true);
    expect(report.budget).toBe(budget);
    const share = report.share!;
    expect(share).toMatchObject({ budget, io: graphIoBytes(graph), reserve: PROCESS_RESERVE_BYTES });
    expect(share.memory + share.io + share.reserve).toBeLessThanOrEqual(budget);
    expect(budget - (share.memory + share.io + share.reserve)).toBeLessThan(PAGE_BYTES);
    expect(report.footprint).toBeLessThanOrEqual(share.buffer);
    // The buffer allocated is the share's memory, the graph I/O held outside it what the share counted.
    expect(report.memory.intermediates).toBe(share.memory);
    expect(report.memory.io).toBe(share.io);
    expect(report.withinBudget).toBe(report.memory.peakRssDelta <= budget);
    expect(report.withinBudget).toBe(true);
    // Start-up and the job's dry run are measured, before the baseline.
    expect(report.memory.runtime).toBeGreaterThan(0);
    expect(report.memory.job).toBeDefined();
    expect(report.latencyMs.runs).toBe(2);
    expect(report.loads).toBeGreaterThan(0);
    expect(report.bytesLoaded).toBeGreaterThan(0);
    expect(weightsFolders(parent)).toEqual([]);
  });

  it("gives the dry run's buffer back before the baseline: what the job left is far less than the buffer the plan fills", async () => {
    const report = await executeBudgeted(buildZooModel('zoo:mobilenet-v2?input=96'), {
      planner: findPlanner('budgeted/flexnn'),
      budget: 12 * MiB,
      loading: 'overlapped',
      repetitions: 1,
      warmup: 0,
      seed: 1,
      verifyByExecution: false,
    });
    // FlexNN preloads weights into the room it has: the plan fills most of its buffer.
    expect(report.footprint).toBeGreaterThan(report.share!.buffer / 2);
    expect(report.memory.job as number).toBeLessThan(report.memory.intermediates / 2);
    expect(report.memory.peakRssDelta).toBeGreaterThan(report.footprint / 2);
    expect(report.withinBudget).toBe(true);
  });

  it('adapts to each new budget while it runs: re-sliced and re-planned, each phase within its own budget as measured, outputs unchanged, every weights file removed', async () => {
    const parent = ownFolder();
    // Up, down below the first, up again: a phase that kept the old buffer would overrun the smaller budget.
    const budgets = [24 * MiB, 12 * MiB, 16 * MiB];
    const report = await executeBudgeted(buildZooModel('zoo:mobilenet-v2?input=96'), {
      planner: findPlanner('budgeted/flexnn'),
      budget: 14 * MiB,
      adapt: budgets,
      loading: 'overlapped',
      repetitions: 2,
      warmup: 1,
      seed: 1,
      weightsDir: parent,
    });
    expect(report.withinBudget).toBe(true);
    expect(report.adaptations?.map((phase) => phase.budget)).toEqual(budgets);
    for (const phase of report.adaptations ?? []) {
      expect(phase.matchesUnbudgeted, `${phase.budget}`).toBe(true);
      expect(phase.peakRssDelta, `${phase.budget}`).toBeLessThanOrEqual(phase.budget);
      expect(phase.withinBudget).toBe(true);
      expect(phase.adaptMs).toBeGreaterThan(phase.planMs);
      expect(phase.latencyMs.runs).toBe(2);
      // Each phase is planned for its own buffer: FlexNN fills the room it has.
      expect(phase.footprint).toBeLessThanOrEqual(budgetedRun(buildZooModel('zoo:mobilenet-v2?input=96'), phase.budget).share.buffer);
    }
    const [roomy, tight] = report.adaptations ?? [];
    expect(roomy.footprint).toBeGreaterThan(tight.footprint);
    expect(weightsFolders(parent)).toEqual([]);
  });

  it('refuses a later budget the planner cannot meet before anything runs, naming the smallest that works', async () => {
    const graph = buildZooModel('zoo:mobilenet-v2?input=96');
    const run = executeBudgeted(graph, { planner: findPlanner('budgeted/flexnn'), budget: 14 * MiB, adapt: [2 * MiB], loading: 'overlapped', repetitions: 1, warmup: 0, seed: 1 });
    await expect(run).rejects.toThrow(InfeasibleBudgetError);
    await expect(run).rejects.toThrow(/in a budget of 2\.000 MiB .+ the smallest budget that works is/);
  });

  it('names the layer, the buffer the budget left and the smallest budget that works, which plans and one alignment step below does not', async () => {
    const graph = everyPathNetwork();
    const run = executeBudgeted(graph, { planner: findPlanner('budgeted/flexnn'), budget: 4096, loading: 'overlapped', repetitions: 1, warmup: 0, seed: 1 });
    await expect(run).rejects.toThrow(
      /^budgeted\/flexnn cannot fit operator \d+ \(.+\) in a budget of 0\.004 MiB \(4096 bytes\), which leaves a buffer of 0\.000 MiB \(0 bytes\) beside graph I\/O of 0\.009 MiB \(\d+ bytes\) and the runtime's reserve of 4\.000 MiB \(4194304 bytes\); the smallest budget that works is [\d.]+ MiB \(\d+ bytes\) \(memplan plan --find-min-budget\)\.$/,
    );
    const error = (await run.catch((e: unknown) => e)) as InfeasibleBudgetError;
    const smallest = error.smallestBudget as number;
    const fits = (budget: number): boolean => {
      try {
        return planAndVerify(findPlanner('budgeted/flexnn'), budgetedRun(graph, budget).network.problem, { alignment: 64 }).valid;
      } catch (e) {
        if (e instanceof InfeasibleBudgetError) return false;
        throw e;
      }
    };
    expect(fits(smallest)).toBe(true);
    expect(fits(smallest - 64)).toBe(false);
    // A planner that knows no budget: its arena over the buffer is infeasible too.
    await expect(executeBudgeted(graph, { planner: findPlanner('offsets/greedy-by-size'), budget: 4096, loading: 'overlapped', repetitions: 1, warmup: 0, seed: 1 })).rejects.toThrow(
      /offsets\/greedy-by-size needs \d+ bytes, more than the buffer of 0 bytes in a budget of/,
    );
  });
});
