import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { guardedServer, type GuardedServer } from '../../../src/agent/http/guarded-server.ts';
import { httpLimits } from '../../../src/agent/http/limits.ts';

let served: GuardedServer | undefined;
afterEach(async () => {
  served?.server.closeAllConnections();
  await new Promise<void>((resolve) => (served ? served.server.close(() => resolve()) : resolve()));
  served = undefined;
});

describe('a guarded server', () => {
  it('cuts an answer its client stops reading, once it has made no progress for sendStallMs', async () => {
    const big = Buffer.alloc(64 * 2 ** 20, 0x61);
    served = guardedServer(
      httpLimits({ sendStallMs: 300 }),
      (_req, res) => res.end(big),
      (message) => ({ error: message }),
    );
    await new Promise<void>((resolve) => served!.server.listen(0, '127.0.0.1', resolve));
    const { port } = served.server.address() as AddressInfo;
    const client = connect(port, '127.0.0.1', () => client.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    // Reads nothing: the answer fills the socket buffers and stops moving.
    client.pause();
    client.on('error', () => {});
    await expect.poll(() => served!.guard.count()).toBe(1);
    const started = performance.now();
    await expect.poll(() => served!.guard.count(), { timeout: 5000 }).toBe(0);
    expect(performance.now() - started).toBeGreaterThan(200);
    // The client, reading again, gets the part of the answer that was on its way, and the end of the connection.
    let received = 0;
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.on('data', (chunk: Buffer) => (received += chunk.length));
    client.resume();
    await closed;
    expect(received).toBeLessThan(big.length);
  });
});
