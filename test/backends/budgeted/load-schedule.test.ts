import { describe, expect, it } from 'vitest';
import { loadSchedule } from '../../../src/backends/budgeted/load-schedule.ts';
import { makeProblem } from '../../../src/core/problem.ts';

/**
 * Operators 0-3. Activations a [0,1] at byte 0 and b [1,2] at byte 100; w1 (layer 1) lies
 * apart at 200, preloaded from operator 0; w2 (layer 2) over a's bytes, loaded at its
 * layer; w3 (layer 3) over b's bytes, loaded at its layer.
 */
const problem = makeProblem(
  'deps',
  [
    { id: 'a', size: 100, first: 0, last: 1 },
    { id: 'b', size: 100, first: 1, last: 2 },
    { id: 'w1', size: 50, first: 1, last: 1, kind: 'weight', earliest: 0 },
    { id: 'w2', size: 80, first: 2, last: 2, kind: 'weight', earliest: 0 },
    { id: 'w3', size: 60, first: 3, last: 3, kind: 'weight', earliest: 0 },
  ],
  4,
);
const offsets = [0, 100, 200, 0, 120];
const loadSteps = [0, 1, 0, 2, 3];
const fileOffsets = new Float64Array([NaN, NaN, 0, 4096, 8192]);

describe('the load schedule', () => {
  it('orders loads by load step and makes each wait for the last step that uses bytes it overwrites', () => {
    const s = loadSchedule(problem, offsets, loadSteps, fileOffsets, 'overlapped');
    expect(s.records).toEqual([2, 3, 4]);
    // w1 overwrites nothing; w2 overwrites a (used through operator 1); w3 overwrites b (used through operator 2).
    expect([...s.after]).toEqual([0, 2, 3]);
    // Operator 1 needs w1, 2 needs w2, 3 needs w3: in loading order, 1, 2 and 3 loads.
    expect([...s.loadsBefore]).toEqual([0, 1, 2, 3]);
    expect([...s.fileOffsets]).toEqual([0, 4096, 8192]);
    expect([...s.bufferOffsets]).toEqual([200, 0, 120]);
    expect([...s.bytes]).toEqual([50, 80, 60]);
  });

  it('on demand, makes each load wait for every step before its layer, in layer order', () => {
    const s = loadSchedule(problem, offsets, loadSteps, fileOffsets, 'on-demand');
    expect(s.records).toEqual([2, 3, 4]);
    expect([...s.after]).toEqual([1, 2, 3]);
  });
});
