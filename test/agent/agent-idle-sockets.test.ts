import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startAgent, type AgentOptions, type RunningAgent } from '../../src/agent/agent.ts';
import { raw, TOKEN, waitFor } from './helpers.ts';

/**
 * Sockets that never finish their headers, or trickle a body, against a real agent on
 * loopback: proper clients keep getting their answers (http/connection-guard.ts,
 * http/read-body.ts). Every socket here comes from 127.0.0.1, the address of the proper
 * client too: the per-address cap must make room for it, not keep it out.
 */

interface Watched {
  readonly socket: Socket;
  text(): string;
  closed(): boolean;
}

let agent: RunningAgent | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await agent?.close();
  agent = undefined;
});

async function started(options: Partial<AgentOptions> = {}): Promise<RunningAgent> {
  agent = await startAgent({ token: TOKEN, ...options });
  return agent;
}

/** A socket that sends `first` and then what the test says, and records what comes back. */
function open(url: string, first: string): Promise<Watched> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  sockets.push(socket);
  let text = '';
  let closed = false;
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => {});
  socket.on('close', () => (closed = true));
  return new Promise((resolve) => socket.once('connect', () => resolve({ socket, text: () => text, closed: () => closed }))).then((watched) => {
    if (first !== '') socket.write(first);
    return watched as Watched;
  });
}

const HALF_HEADER = 'GET /v1/info HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthoriz';

/** An authenticated job whose body comes a byte every 200 ms. */
async function trickler(url: string): Promise<Watched> {
  const watched = await open(url, `POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`);
  const drip = setInterval(() => (watched.closed() ? clearInterval(drip) : watched.socket.write(' ')), 200);
  return watched;
}

/** The JSON sentence of an answer written on a socket, with its status. */
function answer(text: string): { status: number; error: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1]);
  const body = text.slice(text.indexOf('\r\n\r\n') + 4);
  return { status, error: (JSON.parse(body) as { error?: unknown }).error };
}

async function timedInfo(url: string): Promise<{ status: number; ms: number }> {
  const start = performance.now();
  const info = await raw(url, '/v1/info');
  return { status: info.status, ms: performance.now() - start };
}

describe('an agent under idle and slow sockets', () => {
  it('answers a proper client within 2 s while 200 sockets hold half a header and others trickle a job body, then cuts them all', async () => {
    const { url } = await started({ http: { headersTimeoutMs: 1000, bodyGraceMs: 300, minBodyBytesPerSecond: 1000 } });
    const trickling = await Promise.all([1, 2, 3].map(() => trickler(url)));
    await waitFor(() => trickling.every((t) => t.socket.bytesWritten > 100), 2000, 'the tricklers to send their headers');
    const idle = await Promise.all(Array.from({ length: 200 }, () => open(url, HALF_HEADER)));

    const info = await timedInfo(url);
    expect(info.status).toBe(200);
    expect(info.ms).toBeLessThan(2000);

    // The tricklers are cut one after another (each waits its turn to send a body: one per client), with a sentence.
    await waitFor(() => trickling.every((t) => t.closed()), 8000, 'the tricklers to be cut');
    for (const t of trickling) expect(answer(t.text())).toEqual({ status: 408, error: 'the body came slower than 1000 bytes a second; send it at once.' });
    // The idle ones: closed to make room, or told after 1 s that their headers did not come.
    await waitFor(() => idle.every((s) => s.closed()), 4000, 'the idle sockets to be closed');
    const told = idle.filter((s) => s.text() !== '');
    expect(told.length).toBeGreaterThan(0);
    for (const s of told) expect(answer(s.text())).toEqual({ status: 408, error: "the request's headers did not arrive within 1 s." });
    expect(agent!.counters().started).toBe(0);
  });

  it('with its default limits, answers a proper client within 2 s under 200 idle sockets (and listens on loopback only)', async () => {
    const { url, host } = await started();
    expect(host).toBe('127.0.0.1');
    await Promise.all(Array.from({ length: 200 }, () => open(url, HALF_HEADER)));
    for (let k = 0; k < 3; k++) {
      const info = await timedInfo(url);
      expect(info.status).toBe(200);
      expect(info.ms).toBeLessThan(2000);
    }
  });

  it('refuses a new connection (503, one sentence) only when every connection of its address is busy with a request', async () => {
    const { url } = await started({ http: { maxConnectionsPerAddress: 3, maxConnections: 8, bodyGraceMs: 10_000 } });
    const busy = await Promise.all([1, 2, 3].map(() => trickler(url)));
    await waitFor(() => busy.every((t) => t.socket.bytesWritten > 100), 2000, 'the tricklers to send their headers');
    // The agent sees their headers: every connection of 127.0.0.1 is busy.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refused = await open(url, '');
    await waitFor(() => refused.closed(), 3000, 'the refused connection to close');
    expect(answer(refused.text())).toEqual({ status: 503, error: 'this address has 3 connections busy with requests already; try again when one is done.' });
    for (const t of busy) t.socket.destroy();
    await waitFor(() => busy.every((t) => t.closed()), 2000, 'the tricklers to go');
    expect((await timedInfo(url)).status).toBe(200);
  });

  it('closes a connection that sends no request in time: 408 to one that began one, nothing to one that is silent or done', async () => {
    const { url } = await started({ http: { headersTimeoutMs: 500 } });
    const half = await open(url, HALF_HEADER);
    const silent = await open(url, '');
    const kept = await open(url, `GET /v1/info HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
    const start = performance.now();
    await waitFor(() => half.closed() && silent.closed() && kept.closed(), 3000, 'the three to be closed');
    expect(performance.now() - start).toBeGreaterThan(400);
    expect(answer(half.text())).toEqual({ status: 408, error: "the request's headers did not arrive within 0.5 s." });
    expect(silent.text()).toBe('');
    // Its answer, and nothing after it.
    expect(kept.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(kept.text().match(/HTTP\/1\.1/g)).toHaveLength(1);
  });
});
