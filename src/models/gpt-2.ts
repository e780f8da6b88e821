import { GraphError, type Graph } from '../graph/ir.ts';
import { NetworkBuilder } from './builder.ts';
import type { ModelParameters, ZooModel } from './model.ts';
import { baseShape, transformerStack } from './transformer.ts';

const VOCABULARY = 50257;
const POSITIONS = 1024;

/**
 * GPT-2 small (Radford et al. 2019; 124M, as FlexNN runs it) over one sequence of `tokens`
 * token ids (default 128): the input [1, T] int32, the token embedding [50257, 768] gathered
 * by id and the first T rows of the position embedding [1024, 768] (a Slice) added; 12
 * pre-LayerNorm decoder blocks (12 heads, causal mask, MLP 3072, GPT-2's tanh GELU, LayerNorm
 * epsilon 1e-5; transformer.ts), the final LayerNorm and the LM head. The head is tied to the
 * token embedding: a FullyConnected without bias whose weights are that same constant [50257,
 * 768], so the network has 124,439,808 parameters (Hugging Face's gpt2). Executors hold the
 * tied tensor in each reader's form: raw rows for the Gather, packed panels for the head (and
 * under a budget each is a weight record of its own layer). The output is the logits of every
 * position [1, T, 50257] (the last row predicts the next token).
 */
export const gpt2: ZooModel = {
  name: 'gpt-2',
  title: 'GPT-2 small',
  reference: 'GPT-2 small of Radford et al. 2019 (Hugging Face gpt2, 124.4M parameters, LM head tied to the token embedding); logits of every position, 128 tokens by default',
  defaults: { inputSize: 0, widthMultiplier: 1, batch: 1, dtype: 'float32', tokens: 128, layers: 12 },
  tunable: ['tokens', 'widthMultiplier', 'layers', 'dtype'],
  build(p: ModelParameters): Graph {
    const shape = baseShape(p, 'gpt-2', { epsilon: 1e-5, gelu: 'tanh', causal: true });
    const tokens = p.tokens ?? 128;
    if (tokens > POSITIONS) throw new GraphError(`gpt-2: ${tokens} tokens are more than its ${POSITIONS} positions.`);
    const b = new NetworkBuilder('gpt-2', p.dtype);
    const ids = b.input('input_ids', [1, tokens], 'int32');
    const wte = b.parameter('gpt2/wte', [VOCABULARY, shape.hidden]);
    const positions = b.slice('gpt2/positions', b.parameter('gpt2/wpe', [POSITIONS, shape.hidden]), 0, 0, tokens);
    let x = b.add('gpt2/embedding', b.gather('gpt2/token_embedding', wte, ids), positions);
    x = transformerStack(b, 'gpt2/h', x, shape);
    x = b.layerNorm('gpt2/ln_f', x, shape.epsilon);
    return b.build([b.dense('gpt2/lm_head', x, VOCABULARY, 'none', { keepDims: true, weights: wte, bias: false })]);
  },
};
