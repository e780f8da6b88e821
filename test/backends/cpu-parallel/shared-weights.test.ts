import { describe, expect, it } from 'vitest';
import type { KernelCall } from '../../../src/backends/cpu/kernel.ts';
import { SharedWeights } from '../../../src/backends/cpu-parallel/shared-weights.ts';
import type { Node } from '../../../src/graph/ir.ts';

const node = (name: string): Node => ({ op: 'Add', activation: 'none', name, inputs: ['x', 'bias'], outputs: [`${name}:out`] });
const call = (name: string, bias: Float32Array, prepared?: KernelCall['prepared']): KernelCall => ({
  node: node(name),
  layout: 'NHWC',
  inputs: [new Float32Array(4), bias],
  inputShapes: [[4], [4]],
  output: new Float32Array(4),
  outputShape: [4],
  ...(prepared ? { prepared } : {}),
});

describe('SharedWeights', () => {
  it("copies a call's constants and prepared arrays into shared memory, an array read by two calls once, activations left alone", () => {
    const bias = Float32Array.of(1, 2, 3);
    const packed = { replaces: [1], bytes: 24, panels: [{ data: Float64Array.of(5, 6, 7) }] };
    const calls = [call('a', bias), call('b', bias, packed)];
    const shared = new SharedWeights((_, k) => k === 1);
    const [a, b] = calls.map((c) => shared.share(c));
    expect(shared.bytes).toBe(12 + 24);
    expect(a.inputs[1]!.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(a.inputs[1]).toBe(b.inputs[1]);
    expect([...a.inputs[1]!]).toEqual([1, 2, 3]);
    expect(a.inputs[0]).toBe(calls[0].inputs[0]);
    const data = (b.prepared as unknown as typeof packed).panels[0].data;
    expect(data).toBeInstanceOf(Float64Array);
    expect(data.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(data.byteOffset % 8).toBe(0);
    expect([...data]).toEqual([5, 6, 7]);
    expect((b.prepared as unknown as typeof packed).replaces).toEqual([1]);
  });

  it('refuses a prepared form that is not plain data, naming the node', () => {
    class Packed {
      constructor(readonly data: Float32Array) {}
    }
    const prepared = { replaces: [1], bytes: 4, packed: new Packed(new Float32Array(1)) };
    expect(() => new SharedWeights(() => false).share(call('conv7', new Float32Array(4), prepared))).toThrow(/node conv7 \(Add\).*Packed.*plain data/);
  });
});
