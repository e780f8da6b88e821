import { describe, expect, it } from 'vitest';
import { jobDevice } from '../../src/agent/job-device.ts';
import { jobRequest, tinyGraph } from './helpers.ts';

const device = (text: string): string | undefined => jobDevice(Buffer.from(text, 'utf8'));

/** What JSON.parse finds at run.device, for comparison. */
const parsed = (text: string): string | undefined => {
  try {
    const value = JSON.parse(text) as { run?: { device?: unknown } };
    return typeof value?.run?.device === 'string' ? value.run.device : undefined;
  } catch {
    return undefined;
  }
};

describe('the device a job body names, read without parsing the body', () => {
  it('is what JSON.parse finds, on real jobs with and without a device, however they are laid out', () => {
    const request = jobRequest(tinyGraph());
    const bodies = [
      JSON.stringify(request),
      JSON.stringify({ ...request, run: { ...request.run, device: 'd7' } }),
      JSON.stringify({ ...request, run: { ...request.run, device: 'd7' } }, null, 2),
      // run before the graph, as another encoder might write it.
      JSON.stringify({ run: { ...request.run, device: 'phone_2' }, protocol: 1, graph: request.graph, plan: request.plan }),
    ];
    for (const body of bodies) expect(device(body)).toBe(parsed(body));
    expect(device(bodies[1])).toBe('d7');
    expect(device(bodies[3])).toBe('phone_2');
  });

  it('reads only the top-level run, through strings with quotes, backslashes and braces', () => {
    const cases = [
      '{"graph": {"name": "a \\"run\\": {\\"device\\": \\"x\\"} }", "run": {"device": "fake"}}, "run": {"device": "real"}}',
      '{"graph": {"run": {"device": "nested"}}, "run": {"backend": "cpu"}}',
      '{"name": "\\\\", "run": {"device": "after-backslash"}}',
      '{"a": [1, {"b": "}]"}, true, null, -2.5e3], "run" : { "device" : "spaced" } }',
      // JSON.parse keeps the last of a duplicated key.
      '{"run": {"device": "first"}, "run": {"device": "second"}}',
      '{"run": {"device": "d\\u0031"}}',
    ];
    for (const body of cases) expect(device(body), body).toBe(parsed(body));
    expect(device(cases[4])).toBe('second');
  });

  it('finds none in what is not a JSON object, and leaves saying why to the job process', () => {
    for (const body of [
      '',
      'null',
      '[{"run": {"device": "x"}}]',
      '{"run": {"device": "x"}',
      '{"run": {"device": "x"}} trailing',
      '{"run": "d1"}',
      '{"run": {"device": 7}}',
      '{"run": {"device": "x"}, }',
      '{"run" {"device": "x"}}',
    ]) {
      expect(device(body), body).toBeUndefined();
    }
  });
});
