import type { DType } from './dtype.ts';
import { UserError } from '../core/user-error.ts';

/**
 * The graph IR every network source is read into. Shapes are static: a dimension the
 * source leaves open must be fixed (e.g. `--input-shape`) before a Graph exists.
 *
 * Layout: TFLite files and the zoo are NHWC, ONNX files NCHW; `Graph.layout` says which,
 * and spatial ops read their axes from it.
 */
export type Layout = 'NHWC' | 'NCHW';

export interface Tensor {
  readonly name: string;
  readonly shape: readonly number[];
  readonly dtype: DType;
  /** Weights and other constants: never a usage record. */
  readonly constant: boolean;
  /** A constant's values, when the source carries them (a zoo network does not). */
  readonly data?: ArrayBufferView;
}

/** Activation fused into an op's output (TFLite's fused_activation_function). */
export type Activation = 'none' | 'relu' | 'relu6' | 'relu-n1-to-1' | 'sigmoid' | 'tanh';

/** `explicit` pads are [top, left, bottom, right]. */
export type Padding = { readonly kind: 'same' } | { readonly kind: 'valid' } | { readonly kind: 'explicit'; readonly pads: readonly [number, number, number, number] };

/**
 * How a convolution's weights are laid out: TFLite conv OHWI, TFLite depthwise 1HWO
 * (O = channels x multiplier), ONNX OIHW (I = input channels / groups).
 */
export type WeightLayout = 'OHWI' | '1HWO' | 'OIHW';

export type OpSpec =
  | {
      readonly op: 'Conv';
      readonly kernel: readonly [number, number];
      readonly strides: readonly [number, number];
      readonly dilations: readonly [number, number];
      readonly padding: Padding;
      readonly groups: number;
      readonly outChannels: number;
      readonly weightLayout: WeightLayout;
      readonly activation: Activation;
    }
  | { readonly op: 'FullyConnected'; readonly outFeatures: number; readonly activation: Activation; readonly keepDims: boolean }
  | { readonly op: 'MatMul' }
  | { readonly op: 'Gemm'; readonly transA: boolean; readonly transB: boolean; readonly alpha: number; readonly beta: number }
  | { readonly op: 'Add' | 'Mul'; readonly activation: Activation }
  | { readonly op: 'Concat'; readonly axis: number; readonly activation: Activation }
  | {
      readonly op: 'AveragePool' | 'MaxPool';
      readonly kernel: readonly [number, number];
      readonly strides: readonly [number, number];
      readonly padding: Padding;
      readonly activation: Activation;
    }
  | { readonly op: 'GlobalAveragePool' }
  | { readonly op: 'Mean'; readonly axes: readonly number[]; readonly keepDims: boolean }
  /** Per dimension [before, after]. */
  | { readonly op: 'Pad'; readonly pads: readonly (readonly [number, number])[] }
  | { readonly op: 'Reshape'; readonly shape: readonly number[] }
  | { readonly op: 'Flatten'; readonly axis: number }
  | { readonly op: 'Squeeze'; readonly axes: readonly number[] }
  | { readonly op: 'Softmax'; readonly axis: number; readonly beta: number }
  | {
      readonly op: 'Resize';
      readonly mode: 'bilinear' | 'nearest';
      /** Output [height, width]. */
      readonly size: readonly [number, number];
      readonly alignCorners: boolean;
      readonly halfPixelCenters: boolean;
    }
  | { readonly op: 'Relu' | 'Relu6' | 'Sigmoid' | 'Tanh' | 'Dequantize' }
  /**
   * ONNX's Gather: inputs [data, indices]; the indices are whole numbers (an int32 graph input
   * holds token ids) and may count from the end. `rows` marks a slice of a larger table (weight
   * slicing, graph/weight-slicing.ts): the data holds rows [start, start + its length) of a table
   * of `of` rows along `axis` 0, an index outside them keeps the value of input 2 (the earlier
   * slices' result) or is zero when there is none.
   */
  | { readonly op: 'Gather'; readonly axis: number; readonly rows?: { readonly start: number; readonly of: number } }
  /** ONNX's LayerNormalization: inputs [x, scale, bias?], normalized over the axes from `axis` to the last. */
  | { readonly op: 'LayerNormalization'; readonly axis: number; readonly epsilon: number }
  /** ONNX's Gelu: `none` is x * Phi(x) with the error function; `tanh` is GPT-2's approximation. */
  | { readonly op: 'Gelu'; readonly approximate: 'none' | 'tanh' }
  /** Output dimension k is input dimension perm[k]. */
  | { readonly op: 'Transpose'; readonly perm: readonly number[] }
  /** Elements [starts[k], ends[k]) along axes[k] (step 1; bounds already clamped to the input). */
  | { readonly op: 'Slice'; readonly axes: readonly number[]; readonly starts: readonly number[]; readonly ends: readonly number[] }
  /**
   * A decoder's causal mask over attention scores [..., T, S]: score (i, j) becomes -Infinity
   * when j > i + S - T (a query never sees a later key), the others pass unchanged. A Softmax
   * after it gives those keys weight 0, as adding a constant mask of 0 and -inf would.
   */
  | { readonly op: 'CausalMask' };

export type OpType = OpSpec['op'];

export type Node = OpSpec & {
  readonly name: string;
  /** Tensor names; '' marks an absent optional input (e.g. no bias). */
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
};

export interface Graph {
  readonly name: string;
  readonly layout: Layout;
  readonly tensors: ReadonlyMap<string, Tensor>;
  /** In execution order. */
  readonly nodes: readonly Node[];
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
}

/** A graph that breaks the IR's rules (cycle, unknown tensor, bad shape): user input. */
export class GraphError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'GraphError';
  }
}

export function elementCount(shape: readonly number[]): number {
  let count = 1;
  for (const dim of shape) count *= dim;
  return count;
}
