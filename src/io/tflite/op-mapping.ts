import type { OpSpec } from '../../graph/ir.ts';
import { BUILTIN } from './builtin-operators.ts';
import {
  activationOf,
  activationOption,
  concatenationOptions,
  conv2dOptions,
  depthwiseConv2dOptions,
  fullyConnectedOptions,
  keepDims,
  optionsTable,
  paddingOf,
  pool2dOptions,
  reshapeNewShape,
  resizeOptions,
  softmaxBeta,
  squeezeDims,
  type OptionsSite,
  type WindowOptions,
} from './builtin-options.ts';

/** What the mapping of one operator may ask about it. */
export interface OperatorSite extends OptionsSite {
  /** Input tensor names; '' marks an absent optional input. */
  readonly inputs: readonly string[];
  /** The shape of input `k`; fails (GraphError) when the operator lacks it or its rank is not `rank`. */
  inputShape(k: number, rank?: number): readonly number[];
  /** Output 0's shape as the file gives it, with -1 where a dimension is dynamic. */
  outputPattern(): readonly number[];
  /** The values of input `k` when it is an integer constant; undefined when it is not a constant. */
  constantInts(k: number): number[] | undefined;
  /** The operator's parameters do not make sense (a GraphError naming the node). */
  invalid(problem: string): never;
}

function positive(value: number, what: string, site: OperatorSite): number {
  if (!(value > 0)) site.invalid(`its ${what} ${value} is not positive`);
  return value;
}

function windowParameters(o: WindowOptions, filter: readonly number[], site: OperatorSite) {
  return {
    kernel: [positive(filter[1], 'filter height', site), positive(filter[2], 'filter width', site)] as const,
    strides: [positive(o.strideH, 'stride_h', site), positive(o.strideW, 'stride_w', site)] as const,
    dilations: [positive(o.dilationH, 'dilation_h_factor', site), positive(o.dilationW, 'dilation_w_factor', site)] as const,
    padding: paddingOf(o.padding, site),
    activation: activationOf(o.activation, site),
  };
}

function conv(site: OperatorSite): OpSpec {
  const t = optionsTable(site, 'Conv2DOptions') ?? site.invalid('it has no Conv2DOptions');
  const x = site.inputShape(0, 4);
  const filter = site.inputShape(1, 4); // OHWI
  const depth = positive(filter[3], "filter's input depth", site);
  if (x[3] % depth !== 0) site.invalid(`its ${x[3]} input channels do not split into groups of ${depth}, the filter's input depth`);
  return {
    op: 'Conv',
    ...windowParameters(conv2dOptions(t), filter, site),
    groups: x[3] / depth,
    outChannels: positive(filter[0], 'filter output count', site),
    weightLayout: 'OHWI',
  };
}

function depthwiseConv(site: OperatorSite): OpSpec {
  const t = optionsTable(site, 'DepthwiseConv2DOptions') ?? site.invalid('it has no DepthwiseConv2DOptions');
  const x = site.inputShape(0, 4);
  const filter = site.inputShape(1, 4); // 1HWO
  const channels = positive(x[3], 'input channel count', site);
  const outChannels = positive(filter[3], 'filter output count', site);
  if (outChannels % channels !== 0) site.invalid(`its ${outChannels} output channels are not a multiple of its ${channels} input channels`);
  return { op: 'Conv', ...windowParameters(depthwiseConv2dOptions(t), filter, site), groups: channels, outChannels, weightLayout: '1HWO' };
}

function pool(site: OperatorSite, op: 'AveragePool' | 'MaxPool'): OpSpec {
  const t = optionsTable(site, 'Pool2DOptions') ?? site.invalid('it has no Pool2DOptions');
  site.inputShape(0, 4);
  const o = pool2dOptions(t);
  return {
    op,
    kernel: [positive(o.filterH, 'filter_height', site), positive(o.filterW, 'filter_width', site)],
    strides: [positive(o.strideH, 'stride_h', site), positive(o.strideW, 'stride_w', site)],
    padding: paddingOf(o.padding, site),
    activation: activationOf(o.activation, site),
  };
}

function fullyConnected(site: OperatorSite): OpSpec {
  site.inputShape(0);
  const weights = site.inputShape(1, 2); // [outputs, inputs]
  const o = fullyConnectedOptions(optionsTable(site, 'FullyConnectedOptions'));
  return { op: 'FullyConnected', outFeatures: weights[0], activation: activationOf(o.activation, site), keepDims: o.keepNumDims };
}

function constantOperand(site: OperatorSite, k: number, what: string): number[] {
  site.inputShape(k);
  return site.constantInts(k) ?? site.invalid(`its ${what} (input ${k}) is not a constant, so the output shape is not static`);
}

function pad(site: OperatorSite): OpSpec {
  site.inputShape(0);
  const values = constantOperand(site, 1, 'paddings');
  if (values.length % 2 !== 0) site.invalid(`its paddings hold ${values.length} values, not pairs`);
  const pads: [number, number][] = [];
  for (let k = 0; k < values.length; k += 2) {
    if (values[k] < 0 || values[k + 1] < 0) site.invalid(`its paddings [${values}] include a negative value`);
    pads.push([values[k], values[k + 1]]);
  }
  return { op: 'Pad', pads };
}

function resize(site: OperatorSite, mode: 'bilinear' | 'nearest'): OpSpec {
  site.inputShape(0, 4);
  const options = optionsTable(site, mode === 'bilinear' ? 'ResizeBilinearOptions' : 'ResizeNearestNeighborOptions');
  let size = site.constantInts(1);
  if (size === undefined) {
    const out = site.outputPattern();
    size = out.length === 4 ? [out[1], out[2]] : [];
  }
  if (size.length !== 2) site.invalid(`its output size [${size}] is not [height, width]`);
  return {
    op: 'Resize',
    mode,
    size: [positive(size[0], 'output height', site), positive(size[1], 'output width', site)],
    ...resizeOptions(options, mode === 'bilinear'),
  };
}

/** Reshape's target: the output's shape; where it has several dynamic dimensions, the requested shape. */
function reshape(site: OperatorSite): OpSpec {
  site.inputShape(0);
  const out = site.outputPattern();
  if (out.filter((d) => d < 0).length <= 1) return { op: 'Reshape', shape: out };
  const requested = (site.inputs.length > 1 && site.inputs[1] !== '' ? site.constantInts(1) : undefined) ?? reshapeNewShape(optionsTable(site, 'ReshapeOptions'));
  if (requested === undefined || requested.filter((d) => d < 0).length > 1) {
    site.invalid(`its output shape [${out}] has several dynamic dimensions and no static target shape`);
  }
  return { op: 'Reshape', shape: requested };
}

/**
 * The IR's op for one TFLite builtin operator, or undefined when the reader does not map
 * that operator. Layout is NHWC throughout.
 */
export function opSpecOf(code: number, site: OperatorSite): OpSpec | undefined {
  switch (code) {
    case BUILTIN.CONV_2D:
      return conv(site);
    case BUILTIN.DEPTHWISE_CONV_2D:
      return depthwiseConv(site);
    case BUILTIN.FULLY_CONNECTED:
      return fullyConnected(site);
    case BUILTIN.ADD:
    case BUILTIN.MUL: {
      site.inputShape(0);
      site.inputShape(1);
      const table = optionsTable(site, code === BUILTIN.ADD ? 'AddOptions' : 'MulOptions');
      return { op: code === BUILTIN.ADD ? 'Add' : 'Mul', activation: activationOf(activationOption(table), site) };
    }
    case BUILTIN.CONCATENATION: {
      site.inputShape(0);
      const o = concatenationOptions(optionsTable(site, 'ConcatenationOptions'));
      return { op: 'Concat', axis: o.axis, activation: activationOf(o.activation, site) };
    }
    case BUILTIN.AVERAGE_POOL_2D:
      return pool(site, 'AveragePool');
    case BUILTIN.MAX_POOL_2D:
      return pool(site, 'MaxPool');
    case BUILTIN.MEAN: {
      site.inputShape(0);
      const axes = constantOperand(site, 1, 'axis tensor');
      return { op: 'Mean', axes, keepDims: keepDims(optionsTable(site, 'ReducerOptions')) };
    }
    case BUILTIN.PAD:
      return pad(site);
    case BUILTIN.RESHAPE:
      return reshape(site);
    case BUILTIN.SQUEEZE:
      site.inputShape(0);
      return { op: 'Squeeze', axes: squeezeDims(optionsTable(site, 'SqueezeOptions')) };
    case BUILTIN.SOFTMAX:
      site.inputShape(0);
      return { op: 'Softmax', axis: -1, beta: softmaxBeta(optionsTable(site, 'SoftmaxOptions')) };
    case BUILTIN.RESIZE_BILINEAR:
      return resize(site, 'bilinear');
    case BUILTIN.RESIZE_NEAREST_NEIGHBOR:
      return resize(site, 'nearest');
    case BUILTIN.RELU:
    case BUILTIN.RELU6:
    case BUILTIN.LOGISTIC:
    case BUILTIN.TANH:
    case BUILTIN.DEQUANTIZE: {
      site.inputShape(0);
      const op = ({ [BUILTIN.RELU]: 'Relu', [BUILTIN.RELU6]: 'Relu6', [BUILTIN.LOGISTIC]: 'Sigmoid', [BUILTIN.TANH]: 'Tanh', [BUILTIN.DEQUANTIZE]: 'Dequantize' } as const)[code];
      return { op };
    }
    default:
      return undefined;
  }
}
