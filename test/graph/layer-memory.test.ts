import { describe, expect, it } from 'vitest';
import type { Graph, Node } from '../../src/graph/ir.ts';
import { BAND_BYTES, convGeometryOf, depthwiseFrame, depthwiseLayout, GEMM_PANEL, layerMemory } from '../../src/graph/layer-memory.ts';
import { NetworkBuilder } from '../../src/models/builder.ts';

function network(): Graph {
  const b = new NetworkBuilder('records');
  let x = b.input('input', [1, 32, 32, 8]);
  x = b.conv('stem', x, { out: 16, kernel: 3, stride: 2, activation: 'relu' });
  x = b.depthwise('dw', x, { kernel: 3, activation: 'relu6' });
  x = b.conv('project', x, { out: 32, kernel: 1 });
  x = b.add('add', x, x);
  x = b.globalAveragePool('pool', x);
  x = b.dense('fc', x, 300);
  return b.build([b.softmax('softmax', x)]);
}

describe('layer memory', () => {
  const graph = network();
  const node = (name: string) => graph.nodes.find((n) => n.name === name)!;
  const conv = (name: string) => node(name) as Extract<Node, { op: 'Conv' }>;

  it('sizes weights in the packed form: panels of output channels over k, then the padded bias', () => {
    const panels = (n: number) => Math.ceil(n / GEMM_PANEL) * GEMM_PANEL;
    expect(layerMemory(graph, node('stem')).weightBytes).toBe(panels(16) * (3 * 3 * 8 + 1) * 4);
    expect(layerMemory(graph, node('project')).weightBytes).toBe(panels(32) * (16 + 1) * 4);
    expect(layerMemory(graph, node('fc')).weightBytes).toBe(panels(300) * (32 + 1) * 4);
    expect(layerMemory(graph, node('dw')).weightBytes).toBe((9 * 16 + 16) * 4);
    expect(layerMemory(graph, node('add')).weightBytes).toBe(0);
  });

  it('gives an im2col convolution a band of whole output rows, the fewest that reach the band size', () => {
    const stem = layerMemory(graph, node('stem'));
    const g = convGeometryOf(graph, conv('stem'));
    const rowBytes = g.ow * 3 * 3 * 8 * 4;
    expect(stem.path).toBe('im2col');
    expect(stem.scratchBytes).toBe(stem.bandRows * rowBytes);
    expect(stem.bandRows === g.oh || stem.scratchBytes >= BAND_BYTES).toBe(true);
    expect((stem.bandRows - 1) * rowBytes).toBeLessThan(BAND_BYTES);
  });

  it('gives a 3x3 depthwise convolution the frames its kernel reads at the edges, and a 1x1 convolution nothing', () => {
    const dw = layerMemory(graph, node('dw'));
    const g = convGeometryOf(graph, conv('dw'));
    expect(dw.path).toBe('depthwise3x3');
    expect([g.h, g.w, g.c, g.oh]).toEqual([16, 16, 16, 16]);
    // A band is as many rows as a whole frame of BAND_BYTES holds: here the whole image.
    expect(dw.bandRows).toBe(16);
    expect(depthwiseFrame(g, dw.bandRows)).toEqual({ rows: 18, width: 18 });
    // SAME padding of 1: rows 1-14 and columns 1-14 read in place. The scratch is the larger of a
    // whole-width frame of the one row above (or below): 3 input rows of 18 columns; and the
    // edge frames of the 14 rows inside: 16 input rows of 3 columns at the left and at the right.
    const layout = depthwiseLayout(g);
    expect(layout).toMatchObject({ rows: { start: 1, end: 15 }, cols: { start: 1, end: 15 }, inPlace: true });
    expect(layout.edges.map((edge) => edge.width)).toEqual([3, 3]);
    expect(dw.scratchBytes).toBe(Math.max(3 * 18, 16 * 6) * g.c * 4);
    expect(layerMemory(graph, node('project'))).toMatchObject({ path: 'pointwise', scratchBytes: 0 });
  });

  it('runs a 3x3 stride-1 convolution of 16 or more channels (multiples of 4) by Winograd: 16 packed positions of its taps, bands of whole blocks of 4 tiles', () => {
    const b = new NetworkBuilder('winograd');
    const x = b.input('input', [1, 30, 29, 16]);
    const wide = b.conv('wide', x, { out: 20, kernel: 3 });
    const few = b.conv('few', b.input('few-in', [1, 30, 29, 12]), { out: 20, kernel: 3 });
    const odd = b.conv('odd', b.input('odd-in', [1, 30, 29, 18]), { out: 20, kernel: 3 });
    const strided = b.conv('strided', x, { out: 20, kernel: 3, stride: 2 });
    const g2 = b.build([wide, few, odd, strided]);
    const of = (name: string) => layerMemory(g2, g2.nodes.find((n) => n.name === name)!);
    expect([of('few').path, of('odd').path, of('strided').path]).toEqual(['im2col', 'im2col', 'im2col']);
    const wideMemory = of('wide');
    expect(wideMemory.path).toBe('winograd3x3');
    // 16 positions of 16 rows by 3 panels of 8 output channels, then the bias padded to 24.
    expect(wideMemory.weightBytes).toBe((16 * 16 * 24 + 24) * 4);
    // 15 x 15 tiles of 2x2 pixels; a tile's band holds 16 positions of 16 inputs and 20 products.
    const tileBytes = 16 * (16 + 20) * 4;
    const band = wideMemory.bandRows;
    expect(band % 4).toBe(0);
    expect(wideMemory.scratchBytes).toBe(24 * 4 + band * tileBytes);
    expect(wideMemory.scratchBytes).toBeGreaterThanOrEqual(BAND_BYTES);
    expect(24 * 4 + (band - 4) * tileBytes).toBeLessThan(BAND_BYTES);
  });
});
