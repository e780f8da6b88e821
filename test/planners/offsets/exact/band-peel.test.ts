import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PLANTED_GRAIN, PLANTED_HEIGHT, plantedProblem, type PlantedFamily } from '../../../../src/core/planted.ts';
import type { Problem } from '../../../../src/core/problem.ts';
import { offsetsPlan } from '../../../../src/core/plans.ts';
import { verifyPlan } from '../../../../src/core/verify.ts';
import { peelBands } from '../../../../src/planners/offsets/exact/band-peel.ts';
import { Budget } from '../../../../src/planners/offsets/exact/budget.ts';
import { wholePartState } from '../../../../src/planners/offsets/exact/parts.ts';

function peelWhole(problem: Problem, capacity: number, nodes: number) {
  const state = wholePartState(problem, 1);
  return peelBands(state.instances[0], state.grain, capacity, Budget.of(Infinity, nodes));
}

/** The peeled bands with the rest stacked naively above them: always a valid plan when the bands are. */
function withRestStacked(problem: Problem, peeled: NonNullable<ReturnType<typeof peelBands>>): number[] {
  const offsets = Array.from(peeled.offsets);
  let y = peeled.restBase;
  for (const k of peeled.rest) {
    offsets[k] = y;
    y += problem.records[k].size;
  }
  return offsets;
}

describe('peelBands', () => {
  it('packs the bands it peels below restBase without overlap, and leaves every other record in the rest', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 120 }), fc.integer({ min: 0, max: 10_000 }), fc.constantFrom<PlantedFamily>('lanes', 'guillotine', 'dnn'), (n, seed, family) => {
        const { problem } = plantedProblem(n, seed, family);
        const peeled = peelWhole(problem, PLANTED_HEIGHT, 20_000);
        expect(peeled).toBeDefined();
        const rest = new Set(peeled!.rest);
        expect(rest.size).toBe(peeled!.rest.length);
        problem.records.forEach((r, k) => {
          if (rest.has(k)) return;
          expect(peeled!.offsets[k] + r.size).toBeLessThanOrEqual(peeled!.restBase);
        });
        expect(peeled!.restBase % PLANTED_GRAIN).toBe(0);
        const plan = offsetsPlan(problem, withRestStacked(problem, peeled!));
        expect(verifyPlan(problem, plan).valid).toBe(true);
        // With nothing left, the bands are the whole rectangle: the optimum.
        if (peeled!.rest.length === 0) expect(plan.footprint).toBe(PLANTED_HEIGHT);
      }),
      { numRuns: 60 },
    );
  });

  it('declines a part with slack at the capacity', () => {
    const { problem } = plantedProblem(60, 5, 'lanes');
    expect(peelWhole(problem, PLANTED_HEIGHT + PLANTED_GRAIN, 20_000)).toBeUndefined();
  });

  it('peels most of the height of the planted lanes of 1000 records', () => {
    const { problem } = plantedProblem(1000, 3, 'lanes');
    const peeled = peelWhole(problem, PLANTED_HEIGHT, 400_000)!;
    // Seeds 1-3 and 41-42 peel 73-77% (docs/exact-search-notes.md); half is the mark solve.ts acts on.
    expect(2 * peeled.restBase).toBeGreaterThanOrEqual(PLANTED_HEIGHT);
    expect(peeled.rest.length).toBeLessThan(400);
    expect(verifyPlan(problem, offsetsPlan(problem, withRestStacked(problem, peeled))).valid).toBe(true);
  });
});
