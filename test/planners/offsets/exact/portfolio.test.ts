import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PLANTED_HEIGHT, plantedProblem } from '../../../../src/core/planted.ts';
import { offsetsPlan } from '../../../../src/core/plans.ts';
import { verifyPlan } from '../../../../src/core/verify.ts';
import { exact } from '../../../../src/planners/offsets/exact.ts';
import { improveProblem } from '../../../../src/planners/offsets/exact/improver.ts';
import { solveWithThreads } from '../../../../src/planners/offsets/exact/portfolio.ts';
import { SYNC_NODES } from '../../../../src/planners/offsets/exact/solve.ts';
import { trajectoryOf } from '../../../../src/planners/offsets/exact/trajectory.ts';
import { positiveProblems } from '../../../fixtures/arbitraries.ts';

const valid = (problem: Parameters<typeof verifyPlan>[0], offsets: Float64Array): boolean => verifyPlan(problem, offsetsPlan(problem, offsets)).valid;

describe('offsets/exact on two threads', () => {
  // A planted problem no search packs at its optimum within these nodes: both threads run
  // to their node limit and meet many times on the way. (A 64-byte grain: at the default
  // grain cut-rebuild.ts packs this cut at once.)
  const { problem } = plantedProblem(200, 7, 'guillotine', 64);
  const options = { alignment: 1, timeLimitMs: Infinity, nodeLimit: 6 * SYNC_NODES, threads: 2, improverSeed: 1 };

  // Solved once here and once more below: two solves tell determinism, and offsets/exact must give the same plan.
  let first: ReturnType<typeof solveWithThreads> | undefined;
  const solvedOnce = (): ReturnType<typeof solveWithThreads> => {
    first ??= solveWithThreads(problem, options);
    return first;
  };

  it('gives the same plan every time it stops on nodes, with a claim it can back', () => {
    const a = solvedOnce();
    const b = solveWithThreads(problem, options);
    expect(a.offsets).toEqual(b.offsets);
    expect(a.trajectory).toHaveLength(b.trajectory.length);
    // The second thread ran: more nodes than one thread may count.
    expect(a.nodes).toBeGreaterThan(options.nodeLimit);
    expect(valid(problem, a.offsets)).toBe(true);
    expect(a.bound).toBeLessThanOrEqual(PLANTED_HEIGHT);
    expect(a.bound).toBeLessThanOrEqual(a.arena);
    expect(a.optimal).toBe(a.arena === a.bound);
    const last = a.trajectory[a.trajectory.length - 1];
    expect([last.footprint, last.bound]).toEqual([a.arena, a.bound]);
  });

  it('starts no thread for a problem proven at once, and claims the optimum there', () => {
    const { problem: easy } = plantedProblem(1000, 2, 'dnn');
    const outcome = solveWithThreads(easy, { ...options, nodeLimit: Infinity, timeLimitMs: 20_000 });
    expect(outcome.nodes).toBeLessThan(SYNC_NODES);
    expect(outcome).toMatchObject({ arena: PLANTED_HEIGHT, bound: PLANTED_HEIGHT, optimal: true });
    expect(valid(easy, outcome.offsets)).toBe(true);
  });

  it('is what offsets/exact plans with, its trajectory beside the plan', () => {
    const plan = exact.plan(problem, { nodeLimit: options.nodeLimit, timeLimitMs: Infinity, seed: 1 });
    expect(plan.offsets).toEqual([...solvedOnce().offsets]);
    expect(trajectoryOf(plan)!.length).toBeGreaterThan(0);
    expect(() => exact.plan(problem, { threads: 3 })).toThrow(/threads must be 1 or 2/);
  });
});

describe('improveProblem (the second thread, alone)', () => {
  const small = positiveProblems({ maxRecords: 12, maxTime: 8, maxLifetime: 5 });
  it('packs validly, never above the first search alone, and proves nothing false', () => {
    fc.assert(
      fc.property(small, fc.integer({ min: 0, max: 3 }), (problem, seed) => {
        const alone = exact.plan(problem, { threads: 1, timeLimitMs: Infinity });
        expect(alone.optimal).toBe(true);
        const outcome = improveProblem(problem, { alignment: 1, timeLimitMs: Infinity, nodeLimit: 20_000, seed });
        expect(valid(problem, outcome.offsets)).toBe(true);
        expect(outcome.bound).toBeLessThanOrEqual(alone.footprint);
        expect(outcome.arena).toBeGreaterThanOrEqual(alone.footprint);
        expect(outcome.optimal).toBe(outcome.arena === outcome.bound);
      }),
      { numRuns: 60 },
    );
  });

  it('packs a planted cut of 400 records at its bound by the rebuild restarts it runs there (the improver never asks at the bound itself)', () => {
    const { problem } = plantedProblem(400, 5, 'guillotine');
    const outcome = improveProblem(problem, { alignment: 1, timeLimitMs: Infinity, nodeLimit: 400_000, seed: 0 });
    expect(outcome.arena).toBe(PLANTED_HEIGHT);
    expect(outcome.optimal).toBe(true);
    expect(valid(problem, outcome.offsets)).toBe(true);
  });

  it('improves on the greedy start of a planted problem', () => {
    const { problem } = plantedProblem(200, 7, 'lanes');
    const outcome = improveProblem(problem, { alignment: 1, timeLimitMs: Infinity, nodeLimit: 4 * SYNC_NODES, seed: 1 });
    expect(valid(problem, outcome.offsets)).toBe(true);
    expect(outcome.trajectory.length).toBeGreaterThan(2);
    expect(outcome.arena).toBeLessThan(outcome.trajectory[0].footprint);
  });
});
