import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { weightedGraph } from '../../../src/backends/run-data.ts';
import { elementCount } from '../../../src/graph/ir.ts';
import { streamConstantsFile, withConstantsFile, writeConstantsFile } from '../../../src/measuring/isolation/constants-file.ts';
import { withoutWeights } from '../../../src/backends/run-data.ts';
import { buildZooModel } from '../../../src/models/zoo.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memplan-constants-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a graph's own weights through a file", () => {
  const graph = weightedGraph(buildZooModel('zoo:mobilenet-v2?input=96'), 'seeded', 3);
  const constants = [...graph.tensors.values()].filter((t) => t.constant && t.data instanceof Float32Array);

  it('holds every float32 constant once, in order', async () => {
    const file = writeConstantsFile(graph, dir);
    expect(file.entries).toEqual(constants.map((t) => [t.name, elementCount(t.shape)]));
    expect((await stat(file.path)).size).toBe(4 * constants.reduce((sum, t) => sum + elementCount(t.shape), 0));
  });

  it('streams them back in runs of at most 65536 values, and fills a graph without values with them', () => {
    const file = writeConstantsFile(graph, dir);
    const runs = new Map<string, number[]>();
    let longest = 0;
    streamConstantsFile(file, (name, values, at) => {
      const expected = graph.tensors.get(name)!.data as Float32Array;
      expect([...values], `${name} at ${at}`).toEqual([...expected.subarray(at, at + values.length)]);
      runs.set(name, [...(runs.get(name) ?? []), at]);
      longest = Math.max(longest, values.length);
    });
    expect([...runs.keys()]).toEqual(constants.map((t) => t.name));
    expect(longest).toBeLessThanOrEqual(65536);
    const filled = withConstantsFile(withoutWeights(graph), file);
    for (const t of constants) expect(filled.tensors.get(t.name)!.data).toEqual(t.data);
  });

  it('says which constant a short file cuts off', async () => {
    const file = writeConstantsFile(graph, dir);
    const cut = { ...file, entries: [...file.entries, ['extra', 4] as const] };
    expect(() => streamConstantsFile(cut, () => {})).toThrow(/ends before constant extra's values do\.$/);
  });
});
