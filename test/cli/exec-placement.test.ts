import { describe, expect, it } from 'vitest';
import { execPlacement } from '../../src/cli/exec-placement.ts';
import { TOKEN_ENV } from '../../src/cli/agent-token.ts';

const none = { remoteBackend: 'cpu', peer: false };

describe('memplan exec: where the job runs', () => {
  it('on this machine, where the backend runs', () => {
    expect(execPlacement(none, 'cpu')).toEqual({ kind: 'cpu', placement: { on: 'process' } });
    expect(execPlacement({ ...none, browser: 'chromium' }, 'browser')).toEqual({ kind: 'browser', placement: { on: 'page', browser: 'chromium' } });
  });

  it('on an agent: its backend, or the browser of a device', () => {
    const agent = { ...none, url: 'http://host:7878', token: 'a-token-of-sixteen-plus' };
    expect(execPlacement({ ...agent, remoteBackend: 'webgpu' }, 'remote')).toEqual({ kind: 'webgpu', placement: { on: 'agent', url: 'http://host:7878', token: 'a-token-of-sixteen-plus' } });
    expect(execPlacement({ ...agent, device: 'd1' }, 'remote')).toEqual({ kind: 'browser', placement: { on: 'agent', url: 'http://host:7878', token: 'a-token-of-sixteen-plus', device: 'd1' } });
  });

  it('checks the flags only an agent takes', () => {
    const saved = process.env[TOKEN_ENV];
    delete process.env[TOKEN_ENV];
    try {
      expect(() => execPlacement({ ...none, url: 'http://host:7878' }, 'remote')).toThrow(/--backend remote needs --url http:\/\/host:port and --token/);
    } finally {
      if (saved !== undefined) process.env[TOKEN_ENV] = saved;
    }
    const agent = { ...none, url: 'http://host:7878', token: 'a-token-of-sixteen-plus' };
    expect(() => execPlacement({ ...agent, peer: true }, 'remote')).toThrow('--peer times onnxruntime on this machine; it does not combine with --backend remote.');
    expect(() => execPlacement({ ...agent, remoteBackend: 'budgeted' }, 'remote')).toThrow(/^--remote-backend budgeted: an agent cannot serve the budgeted backend/);
  });
});
