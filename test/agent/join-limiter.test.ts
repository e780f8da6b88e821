import { describe, expect, it, vi } from 'vitest';
import { JoinLimiter } from '../../src/agent/join-limiter.ts';

describe('the pairing-code limiter', () => {
  it('takes each try before its code is read: ten at once get ten tries, the eleventh none', () => {
    const limiter = new JoinLimiter(10, 60_000);
    const tries = Array.from({ length: 12 }, () => limiter.begin('10.0.0.9'));
    expect(tries.filter((t) => t !== undefined)).toHaveLength(10);
    // A try whose code was never read gives its place back; a wrong one does not.
    tries[0]!.abandoned();
    expect(limiter.begin('10.0.0.9')).toBeDefined();
    for (const attempt of tries.slice(1, 10)) attempt!.failed();
    // Another address is not held up.
    expect(limiter.begin('10.0.0.10')).toBeDefined();
  });

  it('blocks an address after ten wrong codes, then gives it one try at a time', () => {
    vi.useFakeTimers();
    try {
      const limiter = new JoinLimiter(10, 60_000);
      for (let k = 0; k < 10; k++) limiter.begin('a')!.failed();
      expect(limiter.begin('a')).toBeUndefined();
      vi.advanceTimersByTime(60_001);
      const last = limiter.begin('a');
      expect(last).toBeDefined();
      expect(limiter.begin('a')).toBeUndefined();
      last!.failed();
      expect(limiter.begin('a')).toBeUndefined();
      vi.advanceTimersByTime(60_001);
      // The right code starts the address afresh.
      limiter.begin('a')!.succeeded();
      expect([...Array(10)].map(() => limiter.begin('a')).every((t) => t !== undefined)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
