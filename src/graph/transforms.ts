import { elementCount, type Activation, type Graph, type Node } from './ir.ts';

const ACTIVATION_OF: Partial<Record<Node['op'], Activation>> = { Relu: 'relu', Relu6: 'relu6', Sigmoid: 'sigmoid', Tanh: 'tanh' };
const TAKES_ACTIVATION = new Set<Node['op']>(['Conv', 'FullyConnected', 'Add', 'Mul', 'Concat', 'AveragePool', 'MaxPool']);

function consumers(graph: Graph): Map<string, Node[]> {
  const users = new Map<string, Node[]>();
  for (const node of graph.nodes) {
    for (const input of node.inputs) {
      if (input === '') continue;
      const list = users.get(input);
      if (list) list.push(node);
      else users.set(input, [node]);
    }
  }
  return users;
}

/**
 * Fuses a standalone activation into the op that produces its input, as GPU delegates
 * do, when that op has no activation of its own and nothing else reads its output. The
 * activation's output takes the producer's place; the producer's output disappears.
 */
export function fuseActivations(graph: Graph): Graph {
  const users = consumers(graph);
  const producerOf = new Map<string, Node>();
  for (const node of graph.nodes) for (const output of node.outputs) producerOf.set(output, node);
  const replaced = new Map<Node, Node>();
  const removed = new Set<Node>();
  for (const node of graph.nodes) {
    const activation = ACTIVATION_OF[node.op];
    if (activation === undefined) continue;
    const producer = producerOf.get(node.inputs[0]);
    if (producer === undefined || removed.has(producer) || replaced.has(producer)) continue;
    if (!TAKES_ACTIVATION.has(producer.op) || !('activation' in producer) || producer.activation !== 'none') continue;
    if ((users.get(node.inputs[0]) ?? []).length !== 1 || graph.outputs.includes(node.inputs[0])) continue;
    replaced.set(producer, { ...producer, activation, outputs: node.outputs } as Node);
    removed.add(node);
  }
  if (removed.size === 0) return graph;
  const nodes = graph.nodes.filter((n) => !removed.has(n)).map((n) => replaced.get(n) ?? n);
  const tensors = new Map(graph.tensors);
  for (const [producer] of replaced) tensors.delete(producer.outputs[0]);
  return { ...graph, nodes, tensors };
}

/**
 * Drops ops that move no data: a resize to the same size, a pad of zeros, a reshape,
 * squeeze or flatten that keeps the shape, a concat of one input. Readers of the output
 * read the input instead. An op whose output is a graph output is kept.
 */
export function dropIdentityOps(graph: Graph): Graph {
  const shapeOf = (name: string): readonly number[] => graph.tensors.get(name)?.shape ?? [];
  const isIdentity = (node: Node): boolean => {
    if (graph.outputs.includes(node.outputs[0])) return false;
    const same = (): boolean => {
      const a = shapeOf(node.inputs[0]);
      const b = shapeOf(node.outputs[0]);
      return a.length === b.length && a.every((d, k) => d === b[k]);
    };
    switch (node.op) {
      case 'Resize':
      case 'Reshape':
      case 'Squeeze':
      case 'Flatten':
        return same();
      case 'Pad':
        return node.pads.every(([before, after]) => before === 0 && after === 0);
      case 'Concat':
        return node.inputs.filter((i) => i !== '').length === 1 && node.activation === 'none';
      default:
        return false;
    }
  };
  const alias = new Map<string, string>();
  const resolve = (name: string): string => alias.get(name) ?? name;
  const nodes: Node[] = [];
  for (const node of graph.nodes) {
    const inputs = node.inputs.map(resolve);
    if (isIdentity(node) && elementCount(shapeOf(node.outputs[0])) === elementCount(shapeOf(inputs[0]))) {
      alias.set(node.outputs[0], inputs[0]);
      continue;
    }
    nodes.push({ ...node, inputs });
  }
  if (alias.size === 0) return graph;
  const tensors = new Map(graph.tensors);
  for (const name of alias.keys()) tensors.delete(name);
  return { ...graph, nodes, tensors };
}
