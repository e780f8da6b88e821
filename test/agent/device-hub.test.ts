import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DeviceError } from '../../src/agent/device-hub.ts';
import { FakeDevice, GPU_INFO, hubServer, pageResult } from './hub-helpers.ts';

const CODE = 'TESTCODE42';
const JOB = JSON.stringify({ protocol: 1, note: 'the hub passes job text through untouched' });

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function started(options: Parameters<typeof hubServer>[0] = {}) {
  const server = await hubServer({ pairingCode: CODE, ...options });
  stop = server.close;
  return server;
}

describe('the device hub', () => {
  it('joins a page with the pairing code, lists it, and runs a job on it: the job text goes out as it is, the page result comes back checked', async () => {
    const { hub, url } = await started();
    const device = await FakeDevice.join(url, CODE.toLowerCase());
    expect(hub.list()).toMatchObject([{ id: device.id, name: 'fake phone', adapter: 'test adapter (software)', software: true, requiredAlignment: 256, busy: false, jobs: 0 }]);
    const running = hub.run(device.id, JOB, { repetitions: 3, maxRunMs: 10_000 });
    const number = await device.nextJob();
    expect(hub.list()[0].busy).toBe(true);
    const fetched = await device.fetchJob(number);
    expect(fetched.status).toBe(200);
    expect(await fetched.text()).toBe(JOB);
    expect((await device.answer(number, { result: pageResult(3) })).status).toBe(204);
    const result = await running;
    expect(result).toMatchObject({ planner: 'offsets/greedy-by-size', samples: [1, 2, 3], matchesNaive: true });
    expect(hub.list()[0]).toMatchObject({ busy: false, jobs: 1 });
  });

  it('refuses a wrong pairing code (401), and an address after ten wrong ones (429), even with the right code', async () => {
    const { url } = await started();
    await expect(FakeDevice.join(url, 'WRONGCODE')).rejects.toThrow(/^join: 401 .*pairing code is wrong/);
    for (let k = 1; k < 10; k++) await expect(FakeDevice.join(url, 'WRONGCODE')).rejects.toThrow(/401/);
    await expect(FakeDevice.join(url, CODE)).rejects.toThrow(/^join: 429 .*too many wrong pairing codes/);
  });

  it('holds the limit on wrong pairing codes when they come at once: 500 sent 50 at a time get ten 401s and 490 429s', async () => {
    const { url } = await started();
    const statuses: number[] = [];
    // Each batch: 50 joins whose headers all arrive before any of their bodies, as on a slow network.
    for (let batch = 0; batch < 10; batch++)
      statuses.push(
        ...(await joinsAtOnce(
          url,
          Array.from({ length: 50 }, (_, k) => `WRONG${batch}X${k}`),
        )),
      );
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(490);
    // The address is blocked, for the right code too.
    expect(await joinsAtOnce(url, [CODE])).toEqual([429]);
  });

  it('reads a join and a result at most 256 KiB and 4 MiB large (413), and cuts one that trickles in (408)', async () => {
    const { hub, url } = await started({ pace: { minBytesPerSecond: 1000, graceMs: 200 } });
    const big = await fetch(`${url}/v1/device/join`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code: CODE, name: 'x'.repeat(300 * 1024) }) });
    expect(big.status).toBe(413);
    const device = await FakeDevice.join(url, CODE);
    const running = hub.run(device.id, JOB, { repetitions: 1, maxRunMs: 10_000 });
    running.catch(() => undefined);
    const number = await device.nextJob();
    const result = await fetch(`${url}/v1/device/jobs/${number}/result`, {
      method: 'POST',
      headers: { ...device.auth(), 'Content-Type': 'application/json' },
      body: JSON.stringify({ error: 'x'.repeat(5 * 2 ** 20) }),
    });
    expect(result.status).toBe(413);
    const { port } = new URL(url);
    const slow = connect(Number(port), '127.0.0.1');
    let text = '';
    slow.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    slow.write('POST /v1/device/join HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    const drip = setInterval(() => slow.write(' '), 100);
    try {
      await expect.poll(() => text, { timeout: 3000 }).toMatch(/^HTTP\/1\.1 408 /);
      expect(text).toMatch(/"error":"the body came slower than 1000 bytes a second; send it at once\."/);
    } finally {
      clearInterval(drip);
      slow.destroy();
    }
  });

  it('prints only printable text of what a device says it is: control characters in its name or adapter arrive escaped, in lists and in the log', async () => {
    const lines: string[] = [];
    const { hub, url } = await started({ log: (line) => lines.push(line) });
    const gpu = { ok: true, info: { ...GPU_INFO, adapter: 'evil\u001b[2J\u001b]0;owned\u0007gpu', vendor: 'v\u0007' }, alignment: 256 };
    const response = await fetch(`${url}/v1/device/join`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code: CODE, name: 'phone\u001b[31m\u0007', gpu }),
    });
    expect(response.status).toBe(200);
    const [listed] = hub.list();
    expect(listed).toMatchObject({ name: 'phone\\x1b[31m\\x07', adapter: 'evil\\x1b[2J\\x1b]0;owned\\x07gpu', info: { vendor: 'v\\x07' } });
    const joined = lines.find((line) => line.includes('joined'));
    expect(joined).toBe(`device ${listed.id} joined from 127.0.0.1: phone\\x1b[31m\\x07, evil\\x1b[2J\\x1b]0;owned\\x07gpu`);
    const control = /[\u0000-\u001f\u007f-\u009f]/;
    const strings = (value: unknown): string[] =>
      typeof value === 'string' ? [value] : value !== null && typeof value === 'object' ? Object.entries(value).flatMap(([key, item]) => [key, ...strings(item)]) : [];
    for (const text of [...strings(hub.list()), ...lines]) expect(text).not.toMatch(control);
  });

  it('answers only joined devices on its API (401), and serves the page and its bundle with cross-origin isolation', async () => {
    const { url } = await started();
    expect((await fetch(`${url}/v1/device/events`)).status).toBe(401);
    expect((await fetch(`${url}/v1/device/events`, { headers: { Authorization: 'Bearer nope' } })).status).toBe(401);
    const html = await fetch(`${url}/device`);
    expect(html.status).toBe(200);
    expect(html.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(html.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(html.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(await html.text()).toMatch(/<script type="module" src="\/device\/page\.js">/);
    const bundle = await fetch(`${url}/device/page.js`);
    expect(bundle.headers.get('content-type')).toMatch(/^text\/javascript/);
    const code = await bundle.text();
    // The WebGPU backend's own code, bundled (its WGSL assembly and memory layout), nothing of Node.
    expect(code).toMatch(/@workgroup_size/);
    expect(code).toMatch(/minStorageBufferOffsetAlignment/);
    expect(code).not.toMatch(/from ["']node:/);
    expect(code).not.toMatch(/require\(["']node:/);
  }, 30_000);

  it('a page that fails the job gives its sentence, naming the device', async () => {
    const { hub, url } = await started();
    const device = await FakeDevice.join(url, CODE);
    const running = hub.run(device.id, JOB, { repetitions: 3, maxRunMs: 10_000 });
    // The job fails while the device's answer is still in flight: observe the rejection from the start.
    running.catch(() => undefined);
    await device.answer(await device.nextJob(), { error: 'the WebGPU device was lost' });
    await expect(running).rejects.toThrow(new RegExp(`^device ${device.id} \\(fake phone\\) could not run the job: the WebGPU device was lost\\.$`));
  });

  it('a result of the wrong shape fails the job (the page is trusted no further than its pairing)', async () => {
    const { hub, url } = await started();
    const device = await FakeDevice.join(url, CODE);
    const running = hub.run(device.id, JOB, { repetitions: 3, maxRunMs: 10_000 });
    running.catch(() => undefined);
    await device.answer(await device.nextJob(), { result: { ...pageResult(3), samples: [1, 2] } });
    await expect(running).rejects.toThrow(/samples are not 3 times in ms/);
  });

  it('a device that disconnects in the middle of a job fails it at once, with a clear sentence, and is no longer listed', async () => {
    const { hub, url } = await started();
    const device = await FakeDevice.join(url, CODE);
    const running = hub.run(device.id, JOB, { repetitions: 3, maxRunMs: 60_000 });
    const number = await device.nextJob();
    await device.fetchJob(number);
    const left = performance.now();
    device.leave();
    const error = await running.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DeviceError);
    expect((error as DeviceError).reason).toBe('gone');
    expect((error as Error).message).toMatch(new RegExp(`^device ${device.id} \\(fake phone\\) disconnected in the middle of the job`));
    expect(performance.now() - left).toBeLessThan(2000);
    expect(hub.list()).toEqual([]);
    // Its session is gone with it.
    expect((await device.answer(number, { result: pageResult(3) })).status).toBe(401);
  });

  it('a device that stops saying it is alive is dropped, and its job fails', async () => {
    const { hub, url } = await started({ silenceSeconds: 1 });
    const device = await FakeDevice.join(url, CODE);
    const running = hub.run(device.id, JOB, { repetitions: 3, maxRunMs: 60_000 });
    await expect(running).rejects.toThrow(/disconnected in the middle of the job \(it said nothing for 1 s\)/);
    expect(hub.list()).toEqual([]);
  });

  it('runs one job per device (busy), refuses unknown devices and devices without WebGPU, and calls a job off at its time limit', async () => {
    const { hub, url } = await started();
    const device = await FakeDevice.join(url, CODE);
    const blind = await FakeDevice.join(url, CODE, { ok: false, error: 'navigator.gpu is absent' });
    expect(hub.list().find((d) => d.id === blind.id)).toMatchObject({ adapter: 'no WebGPU', requiredAlignment: null, error: 'navigator.gpu is absent.' });
    await expect(hub.run(blind.id, JOB, { repetitions: 1, maxRunMs: 1000 })).rejects.toThrow(/has no WebGPU: navigator\.gpu is absent/);
    await expect(hub.run('d99', JOB, { repetitions: 1, maxRunMs: 1000 })).rejects.toThrow(/^no device d99 is connected; connected: d1, d2\.$/);
    const slow = hub.run(device.id, JOB, { repetitions: 1, maxRunMs: 300 });
    await expect(hub.run(device.id, JOB, { repetitions: 1, maxRunMs: 1000 })).rejects.toThrow(/is busy with a job/);
    const number = await device.nextJob();
    await expect(slow).rejects.toThrow(/ran past the limit of 0\.3 s on device d1 \(fake phone\) and was called off/);
    // The page hears that the job was called off, and its result is no longer taken.
    await expect.poll(() => device.events.some((e) => e.type === 'cancel' && e.job === number)).toBe(true);
    expect((await device.answer(number, { result: pageResult(1) })).status).toBe(404);
  });

  it('a job called off by its caller (the client went away) tells the page', async () => {
    const { hub, url } = await started();
    const device = await FakeDevice.join(url, CODE);
    const controller = new AbortController();
    const running = hub.run(device.id, JOB, { repetitions: 1, maxRunMs: 10_000, signal: controller.signal });
    const number = await device.nextJob();
    controller.abort();
    await expect(running).rejects.toMatchObject({ reason: 'aborted' });
    await expect.poll(() => device.events.some((e) => e.type === 'cancel' && e.job === number)).toBe(true);
  });

  it('announces a job again to a page that opens its event stream late', async () => {
    const { hub, url } = await started();
    const device = await FakeDevice.join(url, CODE, undefined, false);
    const running = hub.run(device.id, JOB, { repetitions: 1, maxRunMs: 10_000 });
    running.catch(() => undefined);
    // The stream opens after the job was given.
    const late = await fetch(`${url}/v1/device/events`, { headers: device.auth() });
    const reader = late.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('"job"')) text += (await reader.read()).value ?? '';
    expect(text).toMatch(/\{"type":"welcome","id":"d1"\}\n\{"type":"job","job":\d+\}\n/);
    await reader.cancel();
  });

  it('a closing hub fails the jobs it holds', async () => {
    const { hub, url } = await started();
    const device = await FakeDevice.join(url, CODE);
    const running = hub.run(device.id, JOB, { repetitions: 1, maxRunMs: 10_000 });
    await device.nextJob();
    hub.close();
    await expect(running).rejects.toMatchObject({ reason: 'closing' });
  });

  it('draws pairing codes of 8 characters that are easy to read off a screen', async () => {
    const { hubServer: make } = await import('./hub-helpers.ts');
    const server = await make();
    try {
      expect(server.hub.pairingCode).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
    } finally {
      await server.close();
    }
  });
});

/** Joins with these codes, on a connection each: every request's headers first, then (once all are in) every body. Resolves with their statuses. */
async function joinsAtOnce(url: string, codes: readonly string[]): Promise<number[]> {
  const { port } = new URL(url);
  const sockets = await Promise.all(
    codes.map(
      (code) =>
        new Promise<{ send(): void; status: Promise<number> }>((resolve) => {
          const body = JSON.stringify({ code, name: 'guesser', gpu: { ok: true, info: GPU_INFO, alignment: 256 } });
          const socket = connect(Number(port), '127.0.0.1', () => {
            socket.write(`POST /v1/device/join HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`);
            resolve({ send: () => socket.write(body), status });
          });
          let text = '';
          const status = new Promise<number>((done) => {
            socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
            socket.on('close', () => done(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
            socket.on('error', () => {});
          });
        }),
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  for (const socket of sockets) socket.send();
  return Promise.all(sockets.map((s) => s.status));
}
