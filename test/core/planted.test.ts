import { describe, expect, it } from 'vitest';
import { lowerBounds } from '../../src/core/bounds.ts';
import { offsetsPlan } from '../../src/core/plans.ts';
import { PLANTED_FAMILIES, PLANTED_GRAIN, PLANTED_HEIGHT, PLANTED_SUITE, plantedProblem, plantedSuite } from '../../src/core/planted.ts';
import { verifyPlan } from '../../src/core/verify.ts';

describe.each(PLANTED_FAMILIES)('plantedProblem, family %s', (family) => {
  it.each([1, 2, 7, 50, 300, 1000])('cuts the rectangle into %i records whose planted packing is valid at the optimum, the max-breadth bound', (n) => {
    const { problem, optimum, offsets } = plantedProblem(n, 5, family);
    expect(problem.records).toHaveLength(n);
    expect(new Set(problem.records.map((r) => r.id)).size).toBe(n);
    expect(optimum).toBe(PLANTED_HEIGHT);
    for (const r of problem.records) {
      expect(r.size % PLANTED_GRAIN).toBe(0);
      expect(r.size).toBeGreaterThan(0);
      expect(r.last).toBeLessThan(problem.operatorCount);
    }
    const check = verifyPlan(problem, offsetsPlan(problem, Float64Array.from(offsets)));
    expect(check.valid).toBe(true);
    expect(check.footprint).toBe(PLANTED_HEIGHT);
    expect(lowerBounds(problem).offsets).toBe(PLANTED_HEIGHT);
    // No slack anywhere: every operator's breadth is the whole height.
    const breadth = new Array<number>(problem.operatorCount).fill(0);
    for (const r of problem.records) for (let t = r.first; t <= r.last; t++) breadth[t] += r.size;
    expect(breadth.every((b) => b === PLANTED_HEIGHT)).toBe(true);
  });

  it('gives the same problem for the same seed and another for another seed', () => {
    expect(plantedProblem(200, 3, family)).toEqual(plantedProblem(200, 3, family));
    const shape = (seed: number) => plantedProblem(200, seed, family).problem.records.map((r) => [r.size, r.first, r.last]);
    expect(shape(3)).not.toEqual(shape(4));
  });

  it('takes a finer grain: sizes become multiples of it', () => {
    const { problem } = plantedProblem(300, 2, family, 64);
    expect(problem.records.every((r) => r.size % 64 === 0)).toBe(true);
    expect(problem.records.some((r) => r.size % PLANTED_GRAIN !== 0)).toBe(true);
    expect(problem.name).toBe(`planted-${family}-300-s2-g64`);
  });
});

describe('plantedProblem', () => {
  it('keeps the families apart (the same seed, other draws) and names the instance', () => {
    const [a, b] = ['guillotine', 'lanes'] as const;
    expect(plantedProblem(100, 1, a).problem.records).not.toEqual(plantedProblem(100, 1, b).problem.records);
    expect(plantedProblem(100, 1, a).problem.name).toBe('planted-guillotine-100-s1');
  });

  it('gives shapes of inference tensors in the dnn family: mostly short-lived, some long-lived and small', () => {
    const { problem } = plantedProblem(1000, 1, 'dnn');
    const life = (r: { first: number; last: number }) => r.last - r.first + 1;
    const short = problem.records.filter((r) => life(r) <= 3);
    const long = problem.records.filter((r) => life(r) >= 4);
    expect(short.length).toBeGreaterThan(0.8 * problem.records.length);
    expect(long.length).toBeGreaterThan(0.05 * problem.records.length);
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1];
    expect(median(long.map((r) => r.size))).toBeLessThan(median(short.map((r) => r.size)));
  });

  it('refuses what it cannot make, with a sentence', () => {
    expect(() => plantedProblem(0, 1)).toThrow(/record count must be a whole number >= 1/);
    expect(() => plantedProblem(10, -1)).toThrow(/seed must be a whole number >= 0/);
    expect(() => plantedProblem(10, 1, 'bricks' as never)).toThrow(/unknown planted family "bricks"/);
    expect(() => plantedProblem(10, 1, 'dnn', 3000)).toThrow(/grain must divide/);
  });
});

describe('plantedSuite', () => {
  it('lists every family at every size and seed, the largest size at its first seed only', () => {
    const suite = plantedSuite();
    const largest = PLANTED_SUITE.sizes[PLANTED_SUITE.sizes.length - 1];
    expect(suite).toHaveLength(PLANTED_FAMILIES.length * ((PLANTED_SUITE.sizes.length - 1) * PLANTED_SUITE.seeds.length + 1));
    expect(suite.filter((p) => p.n === largest).every((p) => p.seed === PLANTED_SUITE.seeds[0])).toBe(true);
    expect(suite[0].source).toBe(`synthetic:planted?n=${PLANTED_SUITE.sizes[0]}&seed=${PLANTED_SUITE.seeds[0]}&family=${PLANTED_FAMILIES[0]}`);
    expect(plantedSuite([11, 12]).every((p) => p.seed === 11 || p.seed === 12)).toBe(true);
  });
});
