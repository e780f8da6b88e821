import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// The package by its name, as a project of a user's own imports it (package.json's exports: dist/).
import { findPlanner, lowerBounds, makeProblem, offsetsPlan, planAndVerify, PLANNERS, verifyPlan, type OffsetsPlanner } from 'memplan-bench';
import firstFit from '../examples/first-fit.ts';

describe("the package's entry point (src/index.ts, built to dist/)", () => {
  const problem = makeProblem('three', [
    { id: 'a', size: 100, first: 0, last: 1 },
    { id: 'b', size: 50, first: 1, last: 2 },
    { id: 'c', size: 100, first: 2, last: 3 },
  ]);

  it("runs the README's example planner, written against the package name, through plan-and-verify", () => {
    const planner: OffsetsPlanner = firstFit;
    const result = planAndVerify(planner, problem, { alignment: 1 });
    expect(result.valid).toBe(true);
    expect(result.footprint).toBe(lowerBounds(problem).offsets);
  });

  it('gives the verifier, which finds an overlap, and the built-in strategies', () => {
    expect(verifyPlan(problem, offsetsPlan(problem, [0, 60, 0])).violations[0]?.kind).toBe('overlap');
    expect(PLANNERS.length).toBeGreaterThan(10);
    expect(planAndVerify(findPlanner('offsets/greedy-by-size'), problem).valid).toBe(true);
  });

  it('declares its types where package.json says', () => {
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { exports: { '.': { types: string; default: string } } };
    expect(existsSync(manifest.exports['.'].types)).toBe(true);
    expect(existsSync(manifest.exports['.'].default)).toBe(true);
  });
});
