import { describe, expect, it } from 'vitest';
import { footprintAt, mergeTrajectories, TrajectoryRecorder } from '../../../../src/planners/offsets/exact/trajectory.ts';

describe('trajectories', () => {
  it('keeps a point only when the arena or the bound changes', () => {
    const recorder = new TrajectoryRecorder(performance.timeOrigin + performance.now());
    recorder.note(10, 5);
    recorder.note(10, 5);
    recorder.note(9, 5);
    recorder.note(9, 6);
    expect(recorder.points.map((p) => [p.footprint, p.bound])).toEqual([
      [10, 5],
      [9, 5],
      [9, 6],
    ]);
    expect(recorder.points.every((p, k) => k === 0 || p.timeMs >= recorder.points[k - 1].timeMs)).toBe(true);
  });

  it('merges two searches: the better arena and the higher bound at every time', () => {
    const a = [
      { timeMs: 0, footprint: 100, bound: 50 },
      { timeMs: 30, footprint: 80, bound: 50 },
    ];
    const b = [
      { timeMs: 10, footprint: 90, bound: 60 },
      { timeMs: 30, footprint: 85, bound: 70 },
      { timeMs: 40, footprint: 75, bound: 70 },
    ];
    expect(mergeTrajectories(a, b)).toEqual([
      { timeMs: 0, footprint: 100, bound: 50 },
      { timeMs: 10, footprint: 90, bound: 60 },
      { timeMs: 30, footprint: 80, bound: 70 },
      { timeMs: 40, footprint: 75, bound: 70 },
    ]);
  });

  it('reads the best arena at a time', () => {
    const t = [
      { timeMs: 5, footprint: 100, bound: 50 },
      { timeMs: 20, footprint: 80, bound: 50 },
    ];
    expect(footprintAt(t, 0)).toBe(Infinity);
    expect(footprintAt(t, 5)).toBe(100);
    expect(footprintAt(t, 19)).toBe(100);
    expect(footprintAt(t, 1000)).toBe(80);
  });
});
