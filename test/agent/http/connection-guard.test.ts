import { describe, expect, it } from 'vitest';
import { addressKey } from '../../../src/agent/http/connection-guard.ts';
import { DEFAULT_HTTP_LIMITS, httpLimits } from '../../../src/agent/http/limits.ts';

describe('connection limits', () => {
  it('count an IPv6 /64 as one address (a host there has all of it), and IPv4 as it is', () => {
    expect(addressKey('192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::5')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('default to what a slow phone and a harness need, and cut what neither does', () => {
    const d = DEFAULT_HTTP_LIMITS;
    // Headers are a few hundred bytes: a few seconds is ample on any network, and short for a socket that stalls.
    expect(d.headersTimeoutMs).toBeGreaterThanOrEqual(2000);
    expect(d.headersTimeoutMs).toBeLessThanOrEqual(10_000);
    // A 256 MiB job at the minimum pace still arrives (a slow uplink); a byte a second does not hold on.
    expect(d.minBodyBytesPerSecond).toBeGreaterThanOrEqual(1024);
    expect(d.minBodyBytesPerSecond).toBeLessThanOrEqual(256 * 1024);
    expect(d.bodyGraceMs).toBeLessThanOrEqual(10_000);
    // A browser opens 6 connections per origin; a harness a few.
    expect(d.maxConnectionsPerAddress).toBeGreaterThanOrEqual(8);
    expect(d.maxConnectionsPerAddress).toBeLessThanOrEqual(64);
    expect(d.maxConnections).toBeGreaterThanOrEqual(4 * d.maxConnectionsPerAddress);
    expect(d.sendStallMs).toBeGreaterThanOrEqual(10_000);
    expect(httpLimits()).toEqual(d);
  });

  it('are checked, each by name', () => {
    expect(() => httpLimits({ headersTimeoutMs: 0 })).toThrow('the HTTP limit headersTimeoutMs must be a number > 0, got 0.');
    expect(() => httpLimits({ maxConnections: 2.5 })).toThrow('the HTTP limit maxConnections must be a whole number, got 2.5.');
    expect(() => httpLimits({ maxConnectionsPerAddress: 300, maxConnections: 100 })).toThrow('the HTTP limit maxConnectionsPerAddress (300) is more than maxConnections (100).');
  });
});
