import { describe, expect, it } from 'vitest';
import { graphToProblem } from '../../../src/graph/lifetimes.ts';
import { readOnnx } from '../../../src/io/onnx/read-onnx.ts';
import { writeOnnx } from '../../../src/io/onnx/write-onnx.ts';
import { buildZooModel, ZOO } from '../../../src/models/zoo.ts';

describe('import(export(network)) gives the same records', () => {
  it.each(ZOO.map((m) => m.name))('zoo:%s, shapes only', (name) => {
    const graph = buildZooModel(`zoo:${name}`);
    const back = readOnnx(writeOnnx(graph, { weights: 'none' }), `${name}.onnx`);
    expect(graphToProblem(back).records).toEqual(graphToProblem(graph).records);
  });

  it('zoo:blazeface with seeded weights, the same bytes for the same seed', () => {
    const graph = buildZooModel('zoo:blazeface');
    const bytes = writeOnnx(graph, { weights: 'random', seed: 7 });
    expect(writeOnnx(graph, { weights: 'random', seed: 7 })).toEqual(bytes);
    const back = readOnnx(bytes, 'blazeface.onnx');
    expect(graphToProblem(back).records).toEqual(graphToProblem(graph).records);
    const constants = [...back.tensors.values()].filter((t) => t.constant && t.name.endsWith('/weights'));
    expect(constants.length).toBeGreaterThan(0);
    expect(constants.every((t) => t.data !== undefined)).toBe(true);
  });
});
