import { elementCount, GraphError, type Graph, type Layout, type Node } from './ir.ts';
import { inferOutputShapes } from './shape-inference.ts';

// What both layout conversions (to-nchw.ts, to-nhwc.ts) share.

/** An axis of a tensor of `rank` dimensions, counted from 0 (a negative one from the end). */
export function normalizeAxis(axis: number, rank: number, node: Node): number {
  const normalized = axis < 0 ? axis + rank : axis;
  if (!Number.isInteger(normalized) || normalized < 0 || normalized >= rank) {
    throw new GraphError(`node ${node.name} (${node.op}): axis ${axis} is out of range for rank ${rank}.`);
  }
  return normalized;
}

/**
 * Whether `shape` permuted by `perm` (dimension i of the result is dimension perm[i]) orders
 * its elements as `shape` does: the dimensions that are not 1 keep their relative order.
 */
export function keepsOrder(shape: readonly number[], perm: readonly number[]): boolean {
  const kept = (order: readonly number[]): string => order.filter((k) => shape[k] !== 1).join();
  return kept(shape.map((_, k) => k)) === kept(perm);
}

/**
 * Fails (through `fail`) unless every node of a converted graph has the output shapes shape
 * inference gives in its layout: a conversion must leave a consistent graph.
 */
export function checkConvertedShapes(graph: Graph, from: Layout, fail: (node: Node, why: string) => never): void {
  for (const node of graph.nodes) {
    const inputs = node.inputs.map((name) => (name === '' ? [] : (graph.tensors.get(name)?.shape ?? [])));
    let inferred: number[][];
    try {
      inferred = inferOutputShapes(node, inputs, graph.layout);
    } catch (error) {
      if (error instanceof GraphError) fail(node, error.message.replace(/\.$/, ''));
      throw error;
    }
    node.outputs.forEach((name, k) => {
      const have = graph.tensors.get(name)?.shape;
      if (have !== undefined && inferred[k] !== undefined && have.join() !== inferred[k].join()) {
        fail(node, `its output ${name} would be [${inferred[k]}] but the ${from} shape permutes to [${have}]`);
      }
    });
  }
}

/**
 * The operands of an Add or Mul with a 4-D result that broadcast from fewer dimensions, as
 * constants padded to 4-D with leading ones (a per-channel vector): what a conversion
 * permutes with the result's layout. A non-constant one of more than one element fails.
 */
export function broadcastConstants(graph: Graph, node: Node, fail: (node: Node, why: string) => never): { readonly name: string; readonly padded: readonly number[] }[] {
  const out = graph.tensors.get(node.outputs[0] ?? '')?.shape ?? [];
  if ((node.op !== 'Add' && node.op !== 'Mul') || out.length !== 4) return [];
  const operands: { name: string; padded: number[] }[] = [];
  for (const name of node.inputs) {
    const tensor = graph.tensors.get(name);
    if (tensor === undefined || tensor.shape.length >= 4) continue;
    if (!tensor.constant) {
      if (elementCount(tensor.shape) > 1) fail(node, `input ${name} [${tensor.shape}] broadcasts against a 4-D tensor`);
      continue;
    }
    operands.push({ name, padded: [...new Array<number>(4 - tensor.shape.length).fill(1), ...tensor.shape] });
  }
  return operands;
}

/**
 * The axis of a Flatten of a converted 4-D input (`shape`, in the new layout) that gives the
 * same [outer, inner] output as before: the node's own axis where it still does, else the first
 * that does. Fails where none does.
 */
export function flattenAxis(node: Extract<Node, { op: 'Flatten' }>, shape: readonly number[], out: readonly number[], fail: (node: Node, why: string) => never): number {
  const head = (axis: number): number => elementCount(shape.slice(0, axis));
  const original = node.axis < 0 ? node.axis + 4 : node.axis;
  const axis = [original, 0, 1, 2, 3, 4].find((a) => a >= 0 && a <= 4 && head(a) === out[0]);
  return axis === undefined ? fail(node, `no axis flattens [${shape}] into [${out}]`) : axis;
}
