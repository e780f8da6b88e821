import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { memplan, ROOT, userErrorLine } from './run-memplan.ts';

const TOKEN = 'devices-token-0123456789';

/** `memplan agent --devices` as a user starts it; resolves with what it printed once it serves the device page. */
function startAgent(quiet = true): Promise<{ url: string; code: string; pages: string[]; stderr(): string; stop(): void }> {
  const child = spawn(process.execPath, ['bin/memplan.js', 'agent', '--listen', '127.0.0.1:0', '--token', TOKEN, '--devices', ...(quiet ? ['--quiet'] : [])], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the agent did not print its device page within 30 s:\n${stdout}\n${stderr}`));
    }, 30_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      const code = /pairing code ([A-Z0-9]+)\)/.exec(stdout)?.[1];
      const pages = [...stdout.matchAll(/^ {2}(http:\S+\/device#code=\S+)$/gm)].map((m) => m[1]);
      if (url !== undefined && code !== undefined && pages.length > 0) {
        clearTimeout(timer);
        resolve({ url, code, pages, stderr: () => stderr, stop: () => child.kill('SIGTERM') });
      }
    });
    child.once('exit', (status) => {
      clearTimeout(timer);
      reject(new Error(`the agent exited with ${status}:\n${stderr}`));
    });
  });
}

describe('memplan agent --devices and memplan list devices', () => {
  it('prints the device page with its pairing code, serves it without the token, and lists no device until one joins', async () => {
    const agent = await startAgent();
    try {
      expect(agent.code).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
      expect(agent.pages).toEqual([`${agent.url}/device#code=${agent.code}`]);
      expect((await fetch(`${agent.url}/device`)).status).toBe(200);
      // The agent's own API still wants the token.
      expect((await fetch(`${agent.url}/v1/info`)).status).toBe(401);
      const empty = await memplan('list', 'devices', '--url', agent.url, '--token', TOKEN);
      expect(empty.status).toBe(0);
      expect(empty.stdout).toBe('no device is connected; open the device page the agent printed in a browser.\n');
      const json = await memplan('list', 'devices', '--url', agent.url, '--token', TOKEN, '--json');
      expect(JSON.parse(json.stdout)).toEqual([]);
    } finally {
      agent.stop();
    }
  }, 60_000);

  it("prints a device's name and adapter as printable text, in the list and the agent's log; list devices takes the token from MEMPLAN_AGENT_TOKEN", async () => {
    const agent = await startAgent(false);
    try {
      const gpu = { ok: true, info: { backend: 'browser', adapter: 'evil\u001b[2J\u0007gpu', software: false, userAgent: 'ua\u001b[0m' }, alignment: 256 };
      const joined = await fetch(`${agent.url}/v1/device/join`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ code: agent.code, name: 'phone\u001b]0;owned\u0007', gpu }),
      });
      expect(joined.status).toBe(200);
      // No --token: the token comes from the environment, as the agent's does.
      process.env.MEMPLAN_AGENT_TOKEN = TOKEN;
      let listed;
      try {
        listed = await memplan('list', 'devices', '--url', agent.url);
      } finally {
        delete process.env.MEMPLAN_AGENT_TOKEN;
      }
      expect(listed.status, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(/phone\\x1b\]0;owned\\x07 +evil\\x1b\[2J\\x07gpu +idle/);
      const control = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
      expect(listed.stdout).not.toMatch(control);
      await expect.poll(() => agent.stderr()).toMatch(/device d1 joined from 127\.0\.0\.1: phone\\x1b\]0;owned\\x07, evil\\x1b\[2J\\x07gpu/);
      expect(agent.stderr()).not.toMatch(control);
    } finally {
      agent.stop();
    }
  }, 60_000);

  it('list devices needs an agent, and one that serves devices', async () => {
    expect(userErrorLine(await memplan('list', 'devices'))).toBe('memplan: list devices asks a memplan agent: give --url http://host:port and --token (or set MEMPLAN_AGENT_TOKEN).');
    expect(userErrorLine(await memplan('list', 'planners', '--url', 'http://127.0.0.1:1'))).toBe('memplan: --url and --token go with list devices.');
    expect(userErrorLine(await memplan('list', 'devices', '--url', 'http://127.0.0.1:1', '--token', TOKEN))).toMatch(/^memplan: cannot reach agent http:\/\/127\.0\.0\.1:1: connection refused/);
  });
});
