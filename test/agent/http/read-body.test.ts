import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readBody, type BodyOptions } from '../../../src/agent/http/read-body.ts';
import { Refusal } from '../../../src/agent/http/refusal.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A loopback server that reads each body with `options` and tells the test what came of it. */
async function reader(options: BodyOptions): Promise<{ port: number; outcomes: Promise<unknown>[] }> {
  const outcomes: Promise<unknown>[] = [];
  server = createServer((req: IncomingMessage, res) => {
    const outcome = readBody(req, options).then(
      (body) => body,
      (error: unknown) => error,
    );
    outcomes.push(outcome);
    void outcome.then((value) => res.end(value instanceof Refusal ? String(value.status) : 'ok'));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, outcomes };
}

const pace = { minBytesPerSecond: 1000, graceMs: 200 };

describe('readBody', () => {
  it('reads a declared body and a chunked one, whole', async () => {
    const { port, outcomes } = await reader({ maxBytes: 1 << 20, pace });
    const body = Buffer.alloc(300_000, 7);
    for (const chunked of [false, true]) {
      await new Promise<void>((resolve) => {
        const req = request({ port, method: 'POST', headers: chunked ? {} : { 'Content-Length': body.length } }, (res) => res.resume().on('end', resolve));
        if (chunked) for (let at = 0; at < body.length; at += 65536) req.write(body.subarray(at, at + 65536));
        req.end(chunked ? undefined : body);
      });
    }
    const [declared, streamed] = (await Promise.all(outcomes)) as Buffer[];
    expect(declared.equals(body)).toBe(true);
    expect(streamed.equals(body)).toBe(true);
  });

  it('refuses a body larger than its limit (413), declared or found out while reading', async () => {
    const { port, outcomes } = await reader({ maxBytes: 1000, pace, tooLarge: (declared) => `too large (${declared ?? 'chunked'}).` });
    for (const headers of [{ 'Content-Length': 2000 }, {}]) {
      const req = request({ port, method: 'POST', headers });
      req.on('error', () => {});
      req.write(Buffer.alloc(2000));
      req.end();
    }
    await expect.poll(() => outcomes.length).toBe(2);
    const refusals = (await Promise.all(outcomes)) as Refusal[];
    expect(refusals.map((r) => [r.status, r.message]).sort()).toEqual([
      [413, 'too large (2000).'],
      [413, 'too large (chunked).'],
    ]);
  });

  it('cuts a body that trickles in (408), after its grace, and resolves undefined for a client that goes away', async () => {
    const { port, outcomes } = await reader({ maxBytes: 1000, pace });
    const trickler = connect(port, '127.0.0.1');
    trickler.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nx');
    const drip = setInterval(() => trickler.write('x'), 100);
    const started = Date.now();
    let answer = '';
    trickler.on('data', (chunk) => (answer += chunk));
    await expect.poll(() => outcomes.length).toBe(1);
    const refusal = (await outcomes[0]) as Refusal;
    clearInterval(drip);
    expect(refusal).toBeInstanceOf(Refusal);
    expect(refusal.status).toBe(408);
    expect(refusal.message).toBe('the body came slower than 1000 bytes a second; send it at once.');
    expect(Date.now() - started).toBeLessThan(2000);
    await expect.poll(() => answer).toMatch(/408$/);
    trickler.destroy();

    const quitter = connect(port, '127.0.0.1');
    quitter.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc');
    await expect.poll(() => outcomes.length).toBe(2);
    quitter.destroy();
    expect(await outcomes[1]).toBeUndefined();
  });
});
