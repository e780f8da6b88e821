import type { Activation, Padding } from '../../graph/ir.ts';
import type { Table } from './flatbuffer-reader.ts';

/**
 * The option tables of the BuiltinOptions union (schema.fbs) that the reader needs: the
 * union's type codes and, per table, its fields by id.
 */
export const OPTIONS_TYPE = {
  Conv2DOptions: 1,
  DepthwiseConv2DOptions: 2,
  Pool2DOptions: 5,
  FullyConnectedOptions: 8,
  SoftmaxOptions: 9,
  ConcatenationOptions: 10,
  AddOptions: 11,
  ResizeBilinearOptions: 15,
  ReshapeOptions: 17,
  MulOptions: 21,
  ReducerOptions: 27,
  SqueezeOptions: 30,
  ResizeNearestNeighborOptions: 74,
} as const;

export type OptionsName = keyof typeof OPTIONS_TYPE;

/** The raw union of an operator and what to do when it is wrong. */
export interface OptionsSite {
  readonly optionsType: number;
  readonly options: Table | undefined;
  /** The file is corrupt (an InputError). */
  corrupt(problem: string): never;
  /** The model uses something the IR cannot hold (a GraphError naming the node). */
  unsupported(problem: string): never;
}

/** The operator's options table when it holds `name`; undefined when it has none. */
export function optionsTable(site: OptionsSite, name: OptionsName): Table | undefined {
  if (site.optionsType === 0 || site.options === undefined) return undefined;
  if (site.optionsType !== OPTIONS_TYPE[name]) {
    site.corrupt(`its builtin_options hold union type ${site.optionsType} where ${name} (${OPTIONS_TYPE[name]}) belongs`);
  }
  return site.options;
}

/** Padding enum: SAME 0, VALID 1. */
export function paddingOf(code: number, site: OptionsSite): Padding {
  if (code === 0) return { kind: 'same' };
  if (code === 1) return { kind: 'valid' };
  return site.corrupt(`its padding code ${code} is neither SAME (0) nor VALID (1)`);
}

/** ActivationFunctionType enum: NONE 0, RELU 1, RELU_N1_TO_1 2, RELU6 3, TANH 4, SIGN_BIT 5. */
export function activationOf(code: number, site: OptionsSite): Activation {
  switch (code) {
    case 0:
      return 'none';
    case 1:
      return 'relu';
    case 2:
      return 'relu-n1-to-1';
    case 3:
      return 'relu6';
    case 4:
      return 'tanh';
    case 5:
      return site.unsupported('its fused activation SIGN_BIT is not supported');
    default:
      return site.corrupt(`its fused activation code ${code} is not one TFLite defines`);
  }
}

export interface WindowOptions {
  readonly padding: number;
  readonly strideH: number;
  readonly strideW: number;
  readonly dilationH: number;
  readonly dilationW: number;
  readonly activation: number;
}

/** Conv2DOptions: padding 0, stride_w 1, stride_h 2, fused_activation_function 3, dilation_w_factor 4, dilation_h_factor 5. */
export function conv2dOptions(t: Table): WindowOptions {
  return {
    padding: t.int8(0, 'padding', 0),
    strideW: t.int32(1, 'stride_w', 0),
    strideH: t.int32(2, 'stride_h', 0),
    activation: t.int8(3, 'fused_activation_function', 0),
    dilationW: t.int32(4, 'dilation_w_factor', 1),
    dilationH: t.int32(5, 'dilation_h_factor', 1),
  };
}

/**
 * DepthwiseConv2DOptions: padding 0, stride_w 1, stride_h 2, depth_multiplier 3 (redundant
 * with the filter's shape; not read), fused_activation_function 4, dilation_w_factor 5,
 * dilation_h_factor 6.
 */
export function depthwiseConv2dOptions(t: Table): WindowOptions {
  return {
    padding: t.int8(0, 'padding', 0),
    strideW: t.int32(1, 'stride_w', 0),
    strideH: t.int32(2, 'stride_h', 0),
    activation: t.int8(4, 'fused_activation_function', 0),
    dilationW: t.int32(5, 'dilation_w_factor', 1),
    dilationH: t.int32(6, 'dilation_h_factor', 1),
  };
}

export interface PoolOptions {
  readonly padding: number;
  readonly strideH: number;
  readonly strideW: number;
  readonly filterH: number;
  readonly filterW: number;
  readonly activation: number;
}

/** Pool2DOptions: padding 0, stride_w 1, stride_h 2, filter_width 3, filter_height 4, fused_activation_function 5. */
export function pool2dOptions(t: Table): PoolOptions {
  return {
    padding: t.int8(0, 'padding', 0),
    strideW: t.int32(1, 'stride_w', 0),
    strideH: t.int32(2, 'stride_h', 0),
    filterW: t.int32(3, 'filter_width', 0),
    filterH: t.int32(4, 'filter_height', 0),
    activation: t.int8(5, 'fused_activation_function', 0),
  };
}

/** FullyConnectedOptions: fused_activation_function 0, weights_format 1, keep_num_dims 2. */
export function fullyConnectedOptions(t: Table | undefined): { activation: number; keepNumDims: boolean } {
  return { activation: t?.int8(0, 'fused_activation_function', 0) ?? 0, keepNumDims: t?.bool(2, 'keep_num_dims', false) ?? false };
}

/** AddOptions and MulOptions: fused_activation_function 0. */
export function activationOption(t: Table | undefined): number {
  return t?.int8(0, 'fused_activation_function', 0) ?? 0;
}

/** ConcatenationOptions: axis 0, fused_activation_function 1. */
export function concatenationOptions(t: Table | undefined): { axis: number; activation: number } {
  return { axis: t?.int32(0, 'axis', 0) ?? 0, activation: t?.int8(1, 'fused_activation_function', 0) ?? 0 };
}

/** SoftmaxOptions: beta 0 (float). Without the table, beta is 1 (plain softmax). */
export function softmaxBeta(t: Table | undefined): number {
  return t === undefined ? 1 : t.float32(0, 'beta', 0);
}

/** ReducerOptions: keep_dims 0. */
export function keepDims(t: Table | undefined): boolean {
  return t?.bool(0, 'keep_dims', false) ?? false;
}

/** SqueezeOptions: squeeze_dims 0. */
export function squeezeDims(t: Table | undefined): number[] {
  return t?.int32s(0, 'squeeze_dims') ?? [];
}

/** ReshapeOptions: new_shape 0 (absent: undefined). */
export function reshapeNewShape(t: Table | undefined): number[] | undefined {
  return t !== undefined && t.has(0) ? t.int32s(0, 'new_shape') : undefined;
}

/**
 * ResizeBilinearOptions: new_height 0 and new_width 1 (deprecated), align_corners 2,
 * half_pixel_centers 3. ResizeNearestNeighborOptions: align_corners 0, half_pixel_centers 1.
 */
export function resizeOptions(t: Table | undefined, bilinear: boolean): { alignCorners: boolean; halfPixelCenters: boolean } {
  const first = bilinear ? 2 : 0;
  return {
    alignCorners: t?.bool(first, 'align_corners', false) ?? false,
    halfPixelCenters: t?.bool(first + 1, 'half_pixel_centers', false) ?? false,
  };
}
