import { afterEach, describe, expect, it, vi } from 'vitest';

const bytes = Uint8Array.from({ length: 70_000 }, (_, k) => (k * 7919) % 256);

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

describe('base64 of the wire format', () => {
  it("in Node: Buffer's base64, into a fresh aligned buffer of its own", async () => {
    const { base64ToBytes, bytesToBase64 } = await import('../../src/agent/base64.ts');
    const text = bytesToBase64(bytes.subarray(3));
    expect(text).toBe(Buffer.from(bytes.subarray(3)).toString('base64'));
    const back = base64ToBytes(text);
    expect(back.byteOffset).toBe(0);
    expect(back.buffer.byteLength).toBe(bytes.length - 3);
    expect([...back]).toEqual([...bytes.subarray(3)]);
  });

  it('in a page (no Buffer): the same text both ways, whole arrays larger than one slice of the encoder', async () => {
    vi.stubGlobal('Buffer', undefined);
    vi.resetModules();
    const { base64ToBytes, bytesToBase64 } = await import('../../src/agent/base64.ts');
    const text = bytesToBase64(bytes);
    vi.unstubAllGlobals();
    expect(text).toBe(Buffer.from(bytes).toString('base64'));
    expect([...base64ToBytes(text)]).toEqual([...bytes]);
  });
});
