import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, type RunningAgent } from '../../src/agent/agent.ts';
import { agentInfo, RemoteError } from '../../src/measuring/remote-executor.ts';
import { findPlanner } from '../../src/planners/registry.ts';
import { FakeDevice, pageResult } from './hub-helpers.ts';
import { TOKEN, tinyGraph, onAgent } from './helpers.ts';

/**
 * `memplan agent --devices` with a device page played in Node (FakeDevice): the agent's side
 * of devices, without a browser (test/backends/browser/device-page.test.ts has a real one).
 */
describe('an agent with devices', () => {
  let agent: RunningAgent;
  const options = { planner: findPlanner('offsets/greedy-by-size'), repetitions: 2, warmup: 0, seed: 1 };

  beforeAll(async () => {
    agent = await startAgent({ token: TOKEN, devices: { pairingCode: 'PAIRME2345' }, maxRunSeconds: 30 });
  }, 60_000);

  afterAll(async () => {
    await agent?.close();
  });

  it('lists its devices in its info, and sends a job for one there: checked, planned with its alignment, reported as the browser backend', async () => {
    const device = await FakeDevice.join(agent.url, 'PAIRME2345');
    try {
      const info = await agentInfo(agent.url, TOKEN);
      expect(info.devices).toMatchObject([{ id: device.id, name: 'fake phone', requiredAlignment: 256 }]);
      const running = onAgent(tinyGraph(), { url: agent.url, token: TOKEN, device: device.id, ...options });
      const number = await device.nextJob();
      const job = (await (await device.fetchJob(number)).json()) as { run: { backend: string; device: string }; plan: { alignment: number; footprint: number } };
      expect(job.run).toMatchObject({ backend: 'browser', device: device.id, repetitions: 2 });
      expect(job.plan.alignment).toBe(256);
      await device.answer(number, { result: pageResult(2, job.plan.footprint) });
      const report = await running;
      expect(report).toMatchObject({ backend: 'browser', footprint: job.plan.footprint, matchesNaive: true });
      expect(report.device).toMatchObject({ backend: 'browser', deviceId: device.id, deviceName: 'fake phone', remote: { url: agent.url } });
      expect(report.memory.peakRss).toBeNull();
      expect(agent.counters()).toMatchObject({ completed: 1 });
    } finally {
      device.leave();
    }
  });

  it('a device that disconnects in the middle of a job: the client gets 502 and a sentence naming it', async () => {
    const device = await FakeDevice.join(agent.url, 'PAIRME2345');
    const running = onAgent(tinyGraph(), { url: agent.url, token: TOKEN, device: device.id, ...options });
    running.catch(() => undefined);
    await device.fetchJob(await device.nextJob());
    device.leave();
    const error = await running.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RemoteError);
    expect(error).toMatchObject({ status: 502 });
    expect((error as Error).message).toMatch(
      new RegExp(`^agent http://127\\.0\\.0\\.1:\\d+ lost its device during the job for tiny \\(502\\): device ${device.id} \\(fake phone\\) disconnected in the middle of the job`),
    );
  });

  it("a page's failure is the job's (500); a device that is gone or never was is named (404)", async () => {
    const device = await FakeDevice.join(agent.url, 'PAIRME2345');
    try {
      const running = onAgent(tinyGraph(), { url: agent.url, token: TOKEN, device: device.id, ...options });
      running.catch(() => undefined);
      await device.answer(await device.nextJob(), { error: 'out of GPU memory' });
      await expect(running).rejects.toThrow(/could not run the job for tiny \(500\): device d\d+ \(fake phone\) could not run the job: out of GPU memory\./);
    } finally {
      device.leave();
    }
    await expect(onAgent(tinyGraph(), { url: agent.url, token: TOKEN, device: 'd77', ...options })).rejects.toThrow(/has no device d77; connected: |has no device d77; no device is connected/);
  });

  it('the device page needs no token, the device API the pairing code; the agent API still needs the token', async () => {
    expect((await fetch(`${agent.url}/device`)).status).toBe(200);
    await expect(FakeDevice.join(agent.url, 'WRONG-CODE')).rejects.toThrow(/401/);
    expect((await fetch(`${agent.url}/v1/info`)).status).toBe(401);
  });
});

describe('an agent without devices', () => {
  it('has no device page, and refuses a job that names a device', async () => {
    const agent = await startAgent({ token: TOKEN });
    try {
      expect((await fetch(`${agent.url}/device`, { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
      await expect(onAgent(tinyGraph(), { url: agent.url, token: TOKEN, device: 'd1', planner: findPlanner('offsets/greedy-by-size'), repetitions: 1, warmup: 0, seed: 1 })).rejects.toThrow(
        /serves no devices; start it with --devices/,
      );
    } finally {
      await agent.close();
    }
  }, 60_000);
});
