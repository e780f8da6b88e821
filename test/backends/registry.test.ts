import { describe, expect, it } from 'vitest';
import { BACKENDS, findBackend, hasCapability, kindsWhere, servedKinds, unservedBackend } from '../../src/backends/registry.ts';
import { backendKinds } from '../../src/experiments/config.ts';

describe('the one list of backends', () => {
  it('names every backend once', () => {
    const kinds = BACKENDS.map((b) => b.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    for (const kind of kinds) expect(findBackend(kind).kind).toBe(kind);
    expect(() => findBackend('cuda')).toThrow(/unknown backend "cuda"; available: cpu, cpu-parallel, webgpu, budgeted, browser\./);
  });

  it('derives each list from what the backends declare', () => {
    expect(kindsWhere('traces')).toEqual(['cpu', 'cpu-parallel', 'webgpu', 'budgeted']);
    expect(kindsWhere('parallelSteps')).toEqual(['cpu-parallel']);
    expect(kindsWhere('streamsWeights')).toEqual(['budgeted']);
    expect(kindsWhere('measuresRss', false)).toEqual(['browser']);
    expect(servedKinds()).toEqual(['cpu', 'cpu-parallel', 'webgpu', 'browser']);
    expect(backendKinds()).toEqual(['plan-only', 'cpu', 'cpu-parallel', 'webgpu', 'browser', 'remote']);
  });

  it('answers a capability by kind, false for a kind it does not hold', () => {
    expect(hasCapability('cpu-parallel', 'parallelSteps')).toBe(true);
    expect(hasCapability('cpu', 'parallelSteps')).toBe(false);
    expect(hasCapability('remote', 'traces')).toBe(false);
  });

  it('says why an agent cannot serve a kind', () => {
    expect(unservedBackend('webgpu')).toBeUndefined();
    expect(unservedBackend('budgeted')).toBe(
      'an agent cannot serve the budgeted backend (its runs stream weights from a file that a job does not carry); it serves cpu, cpu-parallel, webgpu, browser.',
    );
    expect(unservedBackend('cuda')).toBe('an agent cannot serve the cuda backend; it serves cpu, cpu-parallel, webgpu, browser.');
  });
});
