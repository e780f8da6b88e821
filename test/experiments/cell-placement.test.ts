import { afterEach, describe, expect, it } from 'vitest';
import { backendLabel, cellPlacement, probedHere, recordedSpec } from '../../src/experiments/cell-placement.ts';
import type { BackendSpec } from '../../src/experiments/config.ts';

const settings = { repetitions: 1, warmup: 0, rounds: 1, peer: false, verifyByExecution: true };
const remote = { kind: 'remote' as const, url: 'http://host:7878', token: 'a-token-of-sixteen-plus', backend: 'cpu', label: 'remote:cpu@host:7878', ...settings };

describe('an experiment cell: where it runs', () => {
  afterEach(() => {
    delete process.env.MEMPLAN_TEST_CELL_TOKEN;
  });

  it('on this machine, as the backend runs there', () => {
    expect(cellPlacement({ kind: 'cpu', ...settings }, 'e.json')).toMatchObject({ backend: { kind: 'cpu' }, placement: { on: 'process' } });
    expect(cellPlacement({ kind: 'browser', ...settings }, 'e.json')).toMatchObject({ backend: { kind: 'browser' }, placement: { on: 'page' } });
  });

  it("on an agent, with the token read when the run starts, or on an agent's device", () => {
    expect(cellPlacement({ ...remote, timeoutSeconds: 30 }, 'e.json')).toMatchObject({
      backend: { kind: 'cpu' },
      placement: { on: 'agent', url: 'http://host:7878', token: 'a-token-of-sixteen-plus', timeoutSeconds: 30 },
    });
    process.env.MEMPLAN_TEST_CELL_TOKEN = 'from-the-environment-123';
    expect(cellPlacement({ ...remote, token: 'env:MEMPLAN_TEST_CELL_TOKEN', backend: 'browser', device: 'd2' }, 'e.json')).toMatchObject({
      backend: { kind: 'browser' },
      placement: { on: 'agent', token: 'from-the-environment-123', device: 'd2' },
    });
    expect(() => cellPlacement({ ...remote, token: 'env:MEMPLAN_TEST_CELL_UNSET' }, 'e.json')).toThrow("e.json: the agent's token comes from $MEMPLAN_TEST_CELL_UNSET, which is not set.");
  });

  it('is recorded without a written token, labelled, and probed here only where it runs in a process here', () => {
    expect(recordedSpec(remote)).toMatchObject({ token: '(redacted)' });
    expect(recordedSpec({ ...remote, token: 'env:NAME' })).toMatchObject({ token: 'env:NAME' });
    expect(backendLabel(remote)).toBe('remote:cpu@host:7878');
    expect(backendLabel({ kind: 'webgpu', ...settings })).toBe('webgpu');
    const specs: BackendSpec[] = [
      { kind: 'plan-only' },
      { kind: 'cpu', ...settings },
      { kind: 'cpu-parallel', ...settings },
      { kind: 'webgpu', ...settings },
      { kind: 'browser', ...settings },
      remote,
    ];
    expect(specs.map((s) => probedHere(s)?.kind)).toEqual([undefined, 'cpu', 'cpu-parallel', 'webgpu', undefined, undefined]);
  });
});
