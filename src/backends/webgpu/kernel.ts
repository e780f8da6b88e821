import type { Layout, Node, OpType } from '../../graph/ir.ts';

/**
 * A WebGPU kernel turns one node into compute dispatches, once, in prepare. Shapes,
 * strides and attributes are baked into the WGSL as constants, so a node compiles to the
 * same source in every plan and the compiled pipeline is shared (device.ts caches
 * pipelines by source); where the tensors live is only in the bindings.
 *
 * A dispatch's WGSL never names a buffer: it calls accessors that the shader assembly
 * (shader.ts) generates for each argument `x`:
 *
 *   x_ld(i: u32) -> f32            element i               (read arguments)
 *   x_ld4(i: u32) -> vec4<f32>     elements 4i .. 4i+3     (read arguments with vec4)
 *   y_st(i: u32, v: f32)           store element i         (write arguments)
 *   y_st4(i: u32, v: vec4<f32>)    store elements 4i..4i+3 (write arguments with vec4)
 *
 * and defines `fn run(i: u32)`, called for every invocation i in [0, invocations) (and
 * again for the last i by the invocations that pad the grid: a kernel writes only its
 * output, never reads it back, and writes the same values each time).
 * A u32 data argument `t` gets `t_ld(i: u32) -> u32`. Sizes and attributes are NOT in the
 * source but in the dispatch's parameters (kernels/wgsl.ts, Params), read with `prm(k)`;
 * so a shader is compiled once per kernel variant, whatever the shapes.
 */
export interface TensorArg {
  readonly kind: 'tensor';
  /** The WGSL name of the argument. */
  readonly name: string;
  /** A graph tensor: an activation in planned memory, a graph input or output, or a constant. */
  readonly tensor: string;
  readonly access: 'read' | 'write';
  /** Whether the kernel uses the vec4 accessors (the tensor's element count is a multiple of 4). */
  readonly vec4?: boolean;
}

/** Values the kernel derives once (repacked weights, bias, index tables): a read-only buffer of their own. */
export interface DataArg {
  readonly kind: 'data';
  readonly name: string;
  readonly data: Float32Array | Uint32Array;
  readonly vec4?: boolean;
}

export type KernelArg = TensorArg | DataArg;

/** The arguments of a kernel that reads its node's first input as `x` and writes its output as `y`. */
export function inputOutputArgs(node: Node, vec4 = false): [TensorArg, TensorArg] {
  return [
    { kind: 'tensor', name: 'x', tensor: node.inputs[0], access: 'read', vec4 },
    { kind: 'tensor', name: 'y', tensor: node.outputs[0], access: 'write', vec4 },
  ];
}

export interface DispatchSpec {
  /** For error messages and debugging labels. */
  readonly label: string;
  readonly args: readonly KernelArg[];
  /** WGSL defining `fn run(i: u32)` (and any helpers it needs). */
  readonly code: string;
  /** The u32 words `prm(k)` reads (kernels/wgsl.ts, Params.values()). */
  readonly params: Uint32Array;
  readonly invocations: number;
}

/** What a kernel knows about its node. */
export interface KernelContext {
  readonly node: Node;
  readonly layout: Layout;
  /** One per node input ([] for an absent optional input). */
  readonly inputShapes: readonly (readonly number[])[];
  readonly outputShape: readonly number[];
  /** A constant input's values (for repacking); undefined when input `index` is an activation or absent. */
  constantInput(index: number): Float32Array | undefined;
}

export type WebGpuKernel = (context: KernelContext) => DispatchSpec[];
/** Not every op of the IR has a WGSL kernel yet (the transformer ops: Gather, LayerNormalization, Gelu, Slice, CausalMask); a graph with one is refused at prepare. */
export type WebGpuKernelTable = Readonly<Partial<Record<OpType, WebGpuKernel>>>;

/** A kernel that cannot run a node as given (bad shapes, unsupported attributes): the backend reports it as a BackendError. */
export class KernelError extends Error {
  constructor(node: Node, message: string) {
    super(`node ${node.name} (${node.op}): ${message}`);
    this.name = 'KernelError';
  }
}
