import { describe, expect, it } from 'vitest';
import { layoutLine, ranLayout } from '../../src/cli/ran-layout.ts';
import { GraphBuilder, nchwNetwork, nhwcNetwork } from '../io/onnx/graphs.ts';

/** An NCHW network with a node that does not convert: a LayerNormalization over a 4-D tensor. */
function normalized() {
  const b = new GraphBuilder('norm', 'NCHW');
  b.input('x', [1, 2, 3, 4]);
  b.op({ op: 'LayerNormalization', axis: -1, epsilon: 1e-5 }, ['x', b.constant('s', [4]), b.constant('o', [4])], 'y');
  return b.build(['y']);
}

describe("what exec says of an NCHW network's layout", () => {
  it('nothing for an NHWC network', () => {
    expect(ranLayout(nhwcNetwork(), true)).toBeUndefined();
  });

  it('laid out NHWC where the backend runs NHWC and every node converts', () => {
    const layout = ranLayout(nchwNetwork(), true)!;
    expect(layout).toEqual({ source: 'NCHW', ran: 'NHWC' });
    expect(layoutLine(layout)).toBe('NCHW as read, run laid out NHWC');
  });

  it('as read where the backend runs either layout', () => {
    expect(layoutLine(ranLayout(nchwNetwork(), false)!)).toBe('NCHW as read, run so');
  });

  it('as read, and the node that does not convert, where it cannot be laid out NHWC', () => {
    const layout = ranLayout(normalized(), true)!;
    expect(layout.ran).toBe('NCHW');
    expect(layoutLine(layout)).toBe('NCHW as read, run so (slower kernels): node y_op (LayerNormalization): converting norm from NCHW to NHWC is not supported: it works on a 4-D tensor.');
  });
});
