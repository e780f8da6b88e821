import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { weightForm } from '../../../src/backends/budgeted/weight-forms.ts';
import { WeightsFile, weightsFileLayout } from '../../../src/backends/budgeted/weights-file.ts';
import { weightedGraph } from '../../../src/backends/run-data.ts';
import { budgetedNetwork } from '../../../src/graph/budget-records.ts';
import { everyPathNetwork } from './networks.ts';

describe('the weights file', () => {
  const graph = weightedGraph(everyPathNetwork(), 'seeded', 2);
  const network = budgetedNetwork(graph, { budget: 48 * 1024 });

  it('holds each weight record, in the form its kernel reads, at 4 KiB steps in record order; dispose removes it', () => {
    const file = new WeightsFile(network, network.graph);
    const bytes = readFileSync(file.path);
    const { offsets } = weightsFileLayout(network.problem);
    let previous = -1;
    for (const [name, layer] of network.layers) {
      if (layer.weight === undefined) continue;
      const at = offsets[layer.weight];
      expect(at % 4096).toBe(0);
      const form = weightForm(network.graph, network.graph.nodes.find((n) => n.name === name)!);
      expect(new Float32Array(bytes.buffer.slice(bytes.byteOffset + at, bytes.byteOffset + at + form.byteLength))).toEqual(form);
      expect(at).toBeGreaterThan(previous);
      previous = at;
    }
    file.dispose();
    expect(existsSync(dirname(file.path))).toBe(false);
  });

  it('packs a convolution as the CPU backend computes with it: B[k][j] = W[j][k] in panels of 8, then the bias', () => {
    const stem = network.graph.nodes.find((n) => n.name === 'stem')!;
    const form = weightForm(network.graph, stem);
    const w = network.graph.tensors.get(stem.inputs[1])!.data as Float32Array;
    const bias = network.graph.tensors.get(stem.inputs[2])!.data as Float32Array;
    const k = 3 * 3 * 6;
    // Output channel 9 is column 1 of panel 1; its kk-th value is W[9][kk] (OHWI rows are the k values).
    for (const kk of [0, 17, k - 1]) expect(form[1 * 8 * k + kk * 8 + 1]).toBe(w[9 * k + kk]);
    expect(form.subarray(3 * 8 * k, 3 * 8 * k + 24)).toEqual(bias);
  });
});
