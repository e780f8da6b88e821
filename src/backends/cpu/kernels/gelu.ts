import type { Node } from '../../../graph/ir.ts';
import type { Kernel } from '../kernel.ts';
import { input } from './common.ts';
import { erf } from './erf.ts';

type GeluNode = Extract<Node, { op: 'Gelu' }>;

const SQRT_HALF = Math.SQRT1_2;
const SQRT_TWO_OVER_PI = Math.sqrt(2 / Math.PI);

/**
 * GELU (ONNX Gelu, opset 20), computed in float64 and stored as float32:
 * `none` (ViT, BERT): x/2 (1 + erf(x / sqrt 2));
 * `tanh` (GPT-2's gelu_new): x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
 */
export const gelu: Kernel = (call) => {
  const node = call.node as GeluNode;
  const x = input(call, 0);
  const out = call.output;
  if (x.length !== out.length) throw new Error(`node ${node.name} (Gelu): the input has ${x.length} elements, the output ${out.length}.`);
  if (node.approximate === 'tanh') {
    for (let i = 0; i < x.length; i++) {
      const v = x[i];
      out[i] = 0.5 * v * (1 + Math.tanh(SQRT_TWO_OVER_PI * (v + 0.044715 * v * v * v)));
    }
  } else {
    for (let i = 0; i < x.length; i++) {
      const v = x[i];
      out[i] = 0.5 * v * (1 + erf(v * SQRT_HALF));
    }
  }
};
