import { describe, expect, it } from 'vitest';
import { Progress } from '../../src/experiments/progress.ts';

/** A stderr that is a pipe (plain lines), and a clock the test moves. */
function harness(total: number) {
  const lines: string[] = [];
  const stream = { isTTY: false, write: (text: string) => lines.push(...text.split('\n').filter((l) => l !== '')) } as unknown as NodeJS.WriteStream;
  let ms = 0;
  const progress = new Progress(total, 'exp', stream, false, () => ms);
  return { lines, progress, advance: (seconds: number) => (ms += seconds * 1000) };
}

describe('progress of a run', () => {
  it('says where it writes before the first cell, and the time left at the pace of the cells so far', () => {
    const { lines, progress, advance } = harness(4);
    progress.start('results/exp/2026-11-27T00-00-00Z');
    expect(lines).toEqual(['exp: writing to results/exp/2026-11-27T00-00-00Z']);
    advance(30);
    progress.step('MobileNet v2 offsets/greedy-by-size on cpu');
    expect(lines.at(-1)).toBe('exp 1/4 MobileNet v2 offsets/greedy-by-size on cpu (about 2 min left)');
    advance(10);
    progress.step('b');
    expect(lines.at(-1)).toBe('exp 2/4 b (about 40 s left)');
    advance(20);
    progress.step('c');
    progress.step('d');
    expect(lines.at(-1)).toBe('exp 4/4 d');
  });

  it('a resumed run says in one line how many cells were finished before, and paces itself on this session only', () => {
    const { lines, progress, advance } = harness(203);
    progress.start('run');
    advance(600);
    for (let k = 0; k < 200; k++) progress.carry();
    advance(5);
    progress.step('new');
    expect(lines).toEqual(['exp: writing to run', 'exp: 200 cells finished before, kept (200/203)', 'exp 201/203 new (about 10 s left)']);
  });

  it('a run with nothing left to do says so once', () => {
    const { lines, progress } = harness(3);
    for (let k = 0; k < 3; k++) progress.carry();
    expect(lines).toEqual(['exp: 3 cells finished before, kept (3/3)']);
  });

  it('is silent when quiet', () => {
    const lines: string[] = [];
    const progress = new Progress(2, 'exp', { isTTY: false, write: (t: string) => lines.push(t) } as unknown as NodeJS.WriteStream, true);
    progress.start('run');
    progress.step('a');
    progress.carry();
    expect(lines).toEqual([]);
  });
});
