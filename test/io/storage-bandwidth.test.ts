import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseStorageBandwidth, readDueMs } from '../../src/io/storage-bandwidth.ts';

describe('parseStorageBandwidth', () => {
  it('reads a speed as users write it, per second with or without /s', () => {
    expect(parseStorageBandwidth('150MB')).toEqual({ bytesPerSecond: 150e6, label: '150MB/s' });
    expect(parseStorageBandwidth('150 MB/s')).toEqual({ bytesPerSecond: 150e6, label: '150MB/s' });
    expect(parseStorageBandwidth('1.5GiB/s').bytesPerSecond).toBe(1.5 * 2 ** 30);
    expect(parseStorageBandwidth(2_000_000).bytesPerSecond).toBe(2_000_000);
  });

  it('refuses what is no speed in one sentence', () => {
    expect(() => parseStorageBandwidth('fast')).toThrow(/^"fast" is not a read speed; write bytes per second .+\(e\.g\. 150MB or 150MB\/s\)\.$/);
    expect(() => parseStorageBandwidth('0MB/s')).toThrow(/must be more than 0 bytes per second/);
    expect(() => parseStorageBandwidth('150MB/h')).toThrow(/is not a read speed/);
  });
});

describe('readDueMs', () => {
  it('takes bytes / rate for a read, whatever the size and rate', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.integer({ min: 0, max: 2 ** 31 }), fc.integer({ min: 1, max: 2 ** 33 }), (start, bytes, rate) => {
        const due = readDueMs(start, bytes, { bytesPerSecond: rate, label: '' });
        expect(due).toBeGreaterThanOrEqual(start);
        // Relative: due is up to ~1e10 ms here, where doubles keep ~1e-6 ms, not 1e-7.
        expect(Math.abs(due - start - (bytes / rate) * 1000)).toBeLessThanOrEqual(1e-9 * Math.max(1, due));
      }),
    );
  });
});
