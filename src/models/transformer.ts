import { GraphError } from '../graph/ir.ts';
import type { NetworkBuilder } from './builder.ts';
import type { ModelParameters } from './model.ts';

/** What a stack of pre-LayerNorm transformer blocks is made of. */
export interface TransformerShape {
  /** Features per token. */
  readonly hidden: number;
  readonly heads: number;
  /** Width of the MLP's hidden layer. */
  readonly mlp: number;
  readonly layers: number;
  readonly epsilon: number;
  readonly gelu: 'none' | 'tanh';
  /** A decoder: every token attends only to itself and the tokens before it. */
  readonly causal: boolean;
}

/**
 * The shape of a published base model (768 features, 12 heads, MLP 3072, 12 layers) as a
 * zoo network's parameters change it: `width` scales the features and the MLP (the 12 heads
 * stay, each of hidden / 12 features), `layers` takes fewer blocks; both for quick runs.
 */
export function baseShape(p: ModelParameters, network: string, rest: Pick<TransformerShape, 'epsilon' | 'gelu' | 'causal'>): TransformerShape {
  const heads = 12;
  const hidden = 768 * p.widthMultiplier;
  if (!Number.isInteger(hidden) || hidden % heads !== 0)
    throw new GraphError(`${network}: width ${p.widthMultiplier} gives ${hidden} features, which do not split into ${heads} heads of whole features.`);
  if (p.batch !== 1) throw new GraphError(`${network}: the transformers run one sequence at a time (batch 1).`);
  return { hidden, heads, mlp: 4 * hidden, layers: p.layers ?? 12, ...rest };
}

/**
 * One pre-LayerNorm block, x + Attention(LN(x)) then x + MLP(LN(x)), on tokens [1, T, hidden]:
 *
 * - query, key and value are three FullyConnected layers (GPT-2's checkpoint holds them as one
 *   768 x 2304 matrix, c_attn: the same weights, split by columns), each [1, T, hidden];
 * - heads are split by a Reshape to [T, heads, size] and a Transpose to [heads, T, size] (keys to
 *   [heads, size, T]), so that the scores are one batched MatMul [heads, T, T] and no tensor is
 *   4-D (an NHWC graph's 4-D tensors are images to the ONNX writer);
 * - the causal mask (decoders) and the Softmax, whose beta 1 / sqrt(size) is the attention's
 *   scale; the weighted values are a second batched MatMul, merged back to [1, T, hidden] and
 *   projected by a fourth FullyConnected;
 * - the MLP: FullyConnected to `mlp` features, GELU, FullyConnected back.
 */
export function transformerBlock(b: NetworkBuilder, scope: string, x: string, s: TransformerShape): string {
  const [batch, tokens, hidden] = b.shapeOf(x);
  if (batch !== 1 || hidden !== s.hidden) throw new GraphError(`${scope}: tokens [${b.shapeOf(x)}] are not [1, T, ${s.hidden}].`);
  const size = hidden / s.heads;
  const linear = (name: string, input: string, out: number): string => b.dense(`${scope}/${name}`, input, out, 'none', { keepDims: true });
  const heads = (name: string, input: string, perm: readonly number[]): string =>
    b.transpose(`${scope}/attention/${name}_heads`, b.reshape(`${scope}/attention/${name}_split`, input, [tokens, s.heads, size]), perm);

  const normed = b.layerNorm(`${scope}/ln_1`, x, s.epsilon);
  const query = heads('query', linear('attention/query', normed, hidden), [1, 0, 2]);
  const key = heads('key', linear('attention/key', normed, hidden), [1, 2, 0]);
  const value = heads('value', linear('attention/value', normed, hidden), [1, 0, 2]);
  let scores = b.matMul(`${scope}/attention/scores`, query, key);
  if (s.causal) scores = b.causalMask(`${scope}/attention/causal_mask`, scores);
  // The scale in float32, as an ONNX file holds it (exact for the base models' 64 features a head).
  const weights = b.softmax(`${scope}/attention/softmax`, scores, Math.fround(1 / Math.sqrt(size)));
  const context = b.matMul(`${scope}/attention/context`, weights, value);
  const merged = b.reshape(`${scope}/attention/merge`, b.transpose(`${scope}/attention/merge_heads`, context, [1, 0, 2]), [1, tokens, hidden]);
  const attended = b.add(`${scope}/attention/residual`, x, linear('attention/output', merged, hidden));

  const expanded = linear('mlp/fc_1', b.layerNorm(`${scope}/ln_2`, attended, s.epsilon), s.mlp);
  const mlp = linear('mlp/fc_2', b.gelu(`${scope}/mlp/gelu`, expanded, s.gelu), hidden);
  return b.add(`${scope}/mlp/residual`, attended, mlp);
}

/** `shape.layers` blocks, named `<scope>/block_<k>`. */
export function transformerStack(b: NetworkBuilder, scope: string, x: string, shape: TransformerShape): string {
  let y = x;
  for (let k = 0; k < shape.layers; k++) y = transformerBlock(b, `${scope}/block_${k}`, y, shape);
  return y;
}
