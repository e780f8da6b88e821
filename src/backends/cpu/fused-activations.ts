import { elementCount, type Graph, type Node } from '../../graph/ir.ts';

/** Where the graph's tensors lie (node-kernels.ts' MemoryView has it): float offsets, -1 where absent. */
interface Placement {
  readonly graph: Graph;
  at(id: string): number;
}

type BinaryNode = Extract<Node, { op: 'Add' | 'Mul' }>;

/**
 * An Add or Mul whose one reader is the ReLU (or ReLU6) right after it, as a graph written
 * op for op has them (BlazeFace's blocks, an ONNX ResNet's shortcuts): run as one op with
 * the activation fused, writing where the ReLU's output lies. The Add's own output is then
 * never written, and the ReLU has nothing left to do. Only where that computes the same:
 * the sum is not read by anyone else or handed out, and the ReLU's output lies apart from
 * both operands or exactly on the one of the output's shape (each value is read before it
 * is written there); anything else runs as the graph says. For node k of `order`, the op
 * that stands for it and the next node, or undefined.
 */
export function fusedWithNext(view: Placement, order: readonly Node[], k: number, readers: ReadonlyMap<string, number>): BinaryNode | undefined {
  const [node, next] = [order[k], order[k + 1]];
  if (next === undefined || (node.op !== 'Add' && node.op !== 'Mul') || node.activation !== 'none') return undefined;
  if (next.op !== 'Relu' && next.op !== 'Relu6') return undefined;
  const sum = node.outputs[0];
  if (next.inputs[0] !== sum || readers.get(sum) !== 1 || view.graph.outputs.includes(sum)) return undefined;
  const floats = (name: string): number => elementCount(view.graph.tensors.get(name)?.shape ?? []);
  const out = { at: view.at(next.outputs[0]), length: floats(next.outputs[0]) };
  if (out.at < 0 || out.length !== floats(sum)) return undefined;
  for (const input of node.inputs) {
    const operand = { at: view.at(input), length: floats(input) };
    if (operand.at < 0) return undefined;
    const apart = operand.at + operand.length <= out.at || out.at + out.length <= operand.at;
    const same = operand.at === out.at && operand.length === out.length;
    if (!apart && !same) return undefined;
  }
  return { ...node, activation: next.op === 'Relu' ? 'relu' : 'relu6', outputs: [next.outputs[0]] };
}

/** How many nodes read each tensor. */
export function readerCounts(nodes: readonly Node[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const node of nodes) for (const input of node.inputs) counts.set(input, (counts.get(input) ?? 0) + 1);
  return counts;
}
