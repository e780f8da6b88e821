import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeviceHub, type HubOptions } from '../../src/agent/device-hub.ts';
import type { HubEvent, PageResult } from '../../src/backends/browser/protocol.ts';

/** A hub on a loopback server of its own, as `--backend browser` runs it. */
export async function hubServer(options: HubOptions = {}): Promise<{ hub: DeviceHub; url: string; close(): Promise<void> }> {
  const hub = new DeviceHub(options);
  const server = createServer((req, res) => {
    if (hub.handles((req.url ?? '/').split('?')[0])) void hub.handle(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    hub,
    url,
    async close() {
      hub.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const GPU_INFO = { backend: 'browser', adapter: 'test adapter (software)', software: true, userAgent: 'test' };

/** A page's result as the hub expects it, for `repetitions` timed inferences. */
export function pageResult(repetitions: number, footprint = 1024): PageResult {
  return {
    planner: 'offsets/greedy-by-size',
    footprint,
    samples: Array.from({ length: repetitions }, (_, k) => 1 + k),
    deviceSamples: Array.from({ length: repetitions }, () => 0.5),
    matchesNaive: true,
    memory: { intermediates: 1024, io: 64, weights: 256, scratch: 0, device: { intermediates: 1024, io: 32, weights: 256, other: 48 } },
    device: GPU_INFO,
    dispatches: 4,
    clockResolutionMs: 0.005,
  };
}

/**
 * A device page played by the test in Node: joins, keeps its event stream open, and
 * answers what the test tells it to. `leave()` drops the stream as a closed tab does.
 */
export class FakeDevice {
  readonly events: HubEvent[] = [];
  private readonly stream = new AbortController();
  private waiters: (() => void)[] = [];
  private constructor(
    readonly url: string,
    readonly id: string,
    readonly session: string,
  ) {}

  static async join(url: string, code: string, gpu: unknown = { ok: true, info: GPU_INFO, alignment: 256 }, openEvents = true): Promise<FakeDevice> {
    const response = await fetch(`${url}/v1/device/join`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code, name: 'fake phone', gpu }) });
    if (!response.ok) throw new Error(`join: ${response.status} ${await response.text()}`);
    const welcome = (await response.json()) as { id: string; session: string };
    const device = new FakeDevice(url, welcome.id, welcome.session);
    if (openEvents) await device.open();
    return device;
  }

  private async open(): Promise<void> {
    const response = await fetch(`${this.url}/v1/device/events`, { headers: this.auth(), signal: this.stream.signal });
    if (!response.ok || response.body === null) throw new Error(`events: ${response.status}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      let pending = '';
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          pending += value;
          let newline;
          while ((newline = pending.indexOf('\n')) >= 0) {
            this.events.push(JSON.parse(pending.slice(0, newline)) as HubEvent);
            pending = pending.slice(newline + 1);
            for (const wake of this.waiters.splice(0)) wake();
          }
        }
      } catch {
        // the stream was cut (leave())
      }
    })();
  }

  auth(): Record<string, string> {
    return { Authorization: `Bearer ${this.session}` };
  }

  /** The number of the next job the hub announces. */
  async nextJob(): Promise<number> {
    for (;;) {
      const job = this.events.find((e): e is Extract<HubEvent, { type: 'job' }> => e.type === 'job');
      if (job !== undefined) {
        this.events.splice(this.events.indexOf(job), 1);
        return job.job;
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  async fetchJob(number: number): Promise<Response> {
    return fetch(`${this.url}/v1/device/jobs/${number}`, { headers: this.auth() });
  }

  async answer(number: number, outcome: unknown): Promise<Response> {
    return fetch(`${this.url}/v1/device/jobs/${number}/result`, { method: 'POST', headers: { ...this.auth(), 'Content-Type': 'application/json' }, body: JSON.stringify(outcome) });
  }

  leave(): void {
    this.stream.abort();
  }
}
