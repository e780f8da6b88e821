import { describe, expect, it } from 'vitest';
import type { Graph } from '../../../src/graph/ir.ts';
import { graphToProblem } from '../../../src/graph/lifetimes.ts';
import { nhwcWherePossible } from '../../../src/graph/to-nhwc.ts';
import { readOnnx } from '../../../src/io/onnx/read-onnx.ts';
import { writeOnnx } from '../../../src/io/onnx/write-onnx.ts';
import { buildZooModel, ZOO } from '../../../src/models/zoo.ts';

/** The networks that reshape NHWC-ordered data, and the Transposes their files put before those reshapes. */
const TRANSPOSED: Readonly<Record<string, number>> = { blazeface: 4, 'vgg-19': 1, 'vit-b-16': 1 };

describe('import(export(network)) laid out as the CPU executors run it gives the same records', () => {
  it.each(ZOO.map((m) => m.name))('zoo:%s, shapes only', (name) => {
    const graph = buildZooModel(`zoo:${name}`);
    const back = readOnnx(writeOnnx(graph, { weights: 'none' }), `${name}.onnx`);
    expect(graphToProblem(nhwcWherePossible(back)).records).toEqual(graphToProblem(graph).records);
    // As read, NCHW: the file's Transposes are tensors of their own, and nothing else is.
    const count = (g: Graph) => g.nodes.filter((n) => n.op === 'Transpose').length;
    const transposes = count(back) - count(graph);
    expect(transposes).toBe(TRANSPOSED[name] ?? 0);
    expect(graphToProblem(back).records.length).toBe(graphToProblem(graph).records.length + transposes);
  });

  it('zoo:blazeface with seeded weights, the same bytes for the same seed', () => {
    const graph = buildZooModel('zoo:blazeface');
    const bytes = writeOnnx(graph, { weights: 'random', seed: 7 });
    expect(writeOnnx(graph, { weights: 'random', seed: 7 })).toEqual(bytes);
    const back = readOnnx(bytes, 'blazeface.onnx');
    expect(graphToProblem(nhwcWherePossible(back)).records).toEqual(graphToProblem(graph).records);
    const constants = [...back.tensors.values()].filter((t) => t.constant && t.name.endsWith('/weights'));
    expect(constants.length).toBeGreaterThan(0);
    expect(constants.every((t) => t.data !== undefined)).toBe(true);
  });
});
