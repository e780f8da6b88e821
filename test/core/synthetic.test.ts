import { describe, expect, it } from 'vitest';
import type { Problem } from '../../src/core/problem.ts';
import { chainProblem, mulberry32, randomDagProblem } from '../../src/core/synthetic.ts';

const GENERATORS = { chainProblem, randomDagProblem } as const;

function expectWellFormed(problem: Problem, n: number): void {
  expect(problem.records).toHaveLength(n);
  expect(new Set(problem.records.map((r) => r.id)).size).toBe(n);
  for (const r of problem.records) {
    expect(Number.isSafeInteger(r.first) && Number.isSafeInteger(r.last)).toBe(true);
    expect(r.first).toBeGreaterThanOrEqual(0);
    expect(r.last).toBeGreaterThanOrEqual(r.first);
    expect(r.last).toBeLessThan(problem.operatorCount);
    expect(Number.isSafeInteger(r.size)).toBe(true);
    expect(r.size).toBeGreaterThanOrEqual(1024);
    expect(r.size).toBeLessThanOrEqual(4 * 1024 * 1024);
  }
}

describe('mulberry32', () => {
  it('is deterministic and uniform in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const draws = Array.from({ length: 1000 }, () => a());
    expect(draws).toEqual(Array.from({ length: 1000 }, () => b()));
    for (const x of draws) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
    const mean = draws.reduce((s, x) => s + x, 0) / draws.length;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.05);
  });
});

describe.each(Object.entries(GENERATORS))('%s', (_name, generate) => {
  it('gives the same problem for the same seed', () => {
    expect(generate(500, 7)).toEqual(generate(500, 7));
  });

  it('gives a different problem for a different seed', () => {
    const a = generate(500, 7).records;
    const b = generate(500, 8).records;
    expect(a.map((r) => [r.size, r.first, r.last])).not.toEqual(b.map((r) => [r.size, r.first, r.last]));
  });

  it.each([0, 1, 2, 1000])('makes %i records with valid closed intervals', (n) => {
    expectWellFormed(generate(n, 1), n);
  });

  it('spreads sizes over several orders of magnitude', () => {
    const sizes = new Set(generate(2000, 3).records.map((r) => r.size));
    expect(sizes.size).toBeGreaterThan(20);
    expect(Math.max(...sizes) / Math.min(...sizes)).toBeGreaterThan(256);
  });

  it('generates 100k valid records quickly', () => {
    const started = performance.now();
    const problem = generate(100_000, 5);
    const elapsed = performance.now() - started;
    // Generous for slow CI machines; locally this is tens of milliseconds.
    expect(elapsed).toBeLessThan(2000);
    expect(problem.records).toHaveLength(100_000);
    // One plain check over all records (100k expect calls would dominate the test).
    const bad = problem.records.findIndex((r) => !(r.first >= 0 && r.last >= r.first && r.last < problem.operatorCount && r.size > 0));
    expect(bad).toBe(-1);
  });
});

describe('chainProblem', () => {
  it('gives record i the interval [i, i + 1]', () => {
    const problem = chainProblem(100, 11);
    expect(problem.operatorCount).toBe(101);
    problem.records.forEach((r, i) => {
      expect([r.first, r.last]).toEqual([i, i + 1]);
    });
  });
});

describe('randomDagProblem', () => {
  it('starts record i at operator i and mixes short lifetimes with long skips', () => {
    const problem = randomDagProblem(5000, 13);
    problem.records.forEach((r, i) => expect(r.first).toBe(i));
    const lifetimes = problem.records.map((r) => r.last - r.first);
    const short = lifetimes.filter((l) => l <= 4).length;
    const long = lifetimes.filter((l) => l > 32).length;
    expect(short / lifetimes.length).toBeGreaterThan(0.5);
    expect(long).toBeGreaterThan(0);
  });
});
