import { describe, expect, it } from 'vitest';
import type { Graph, Tensor } from '../../src/graph/ir.ts';
import { graphOutputs, type OrtLike, type PeerFeed, peerFeeds, relativeError, timeSession } from '../../src/measuring/peer-session.ts';

const tensor = (name: string, shape: number[], dtype: Tensor['dtype'] = 'float32'): Tensor => ({ name, shape, dtype, constant: false });

/** An NHWC graph of one 1x2x2x3 input, a GPT-style int32 token input, and one NHWC output. */
const graph: Graph = {
  name: 'peer-feeds',
  layout: 'NHWC',
  tensors: new Map([tensor('image', [1, 2, 2, 3]), tensor('tokens', [1, 4], 'int32'), tensor('table', [10, 3]), tensor('out', [1, 2, 2, 3])].map((t) => [t.name, t])),
  nodes: [
    { op: 'Gather', name: 'embed', axis: 0, inputs: ['table', 'tokens'], outputs: ['embedded'] },
    { op: 'Relu', name: 'relu', inputs: ['image'], outputs: ['out'] },
  ],
  inputs: ['image', 'tokens'],
  outputs: ['out'],
};

describe('peer-session: what both onnxruntime peers share', () => {
  it('feeds an NHWC input as NCHW and token ids as the integers the ONNX file declares; outputs come back NHWC', () => {
    const image = Float32Array.from({ length: 12 }, (_, k) => k);
    const [feedImage, feedTokens] = peerFeeds(
      graph,
      new Map([
        ['image', image],
        ['tokens', Float32Array.of(3, 1, 4, 1)],
      ]),
    );
    expect(feedImage.dims).toEqual([1, 3, 2, 2]);
    // NHWC element (y, x, c) = 6y + 3x + c lands at NCHW 4c + 2y + x.
    expect([...feedImage.data]).toEqual([0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11]);
    expect(feedTokens).toEqual({ name: 'tokens', type: 'int32', data: Int32Array.of(3, 1, 4, 1), dims: [1, 4] });
    expect([...(graphOutputs(graph, { out: feedImage.data as Float32Array }).get('out') ?? [])]).toEqual([...image]);
  });

  it('times a session: one untimed run, the warm-up, then one sample per repetition; the last outputs as float32', async () => {
    const runs: number[] = [];
    const fake: OrtLike = {
      Tensor: class {
        constructor(
          readonly type: PeerFeed['type'],
          readonly data: PeerFeed['data'],
          readonly dims: readonly number[],
        ) {}
      },
      InferenceSession: {
        create: async () => ({
          run: async () => {
            runs.push(runs.length);
            return { out: { data: Float32Array.of(runs.length) } };
          },
          release: async () => {},
        }),
      },
    };
    const timed = await timeSession(fake, new Uint8Array(), [{ name: 'x', type: 'float32', data: new Float32Array(1), dims: [1] }], { warmup: 2, repetitions: 3 }, {});
    expect(runs).toHaveLength(6);
    expect(timed.samples).toHaveLength(3);
    expect(timed.outputs).toEqual({ out: Float32Array.of(6) });
  });

  it('relative error: the largest difference over the largest magnitude; a missing or resized output is infinitely wrong', () => {
    const reference = new Map([['y', Float32Array.of(2, -4)]]);
    expect(relativeError(new Map([['y', Float32Array.of(2, -3)]]), reference)).toBe(0.25);
    expect(relativeError(new Map(), reference)).toBe(Infinity);
    expect(relativeError(new Map([['y', Float32Array.of(2)]]), reference)).toBe(Infinity);
  });
});
