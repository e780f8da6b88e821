import { GraphError, type Graph, type Node } from './ir.ts';

/**
 * The order operators run in: the order stored in the graph when it is topological (TFLite
 * and ONNX files store one), else a topological order that keeps stored order among
 * ready nodes. A cycle is an error naming a node on it.
 */
export function executionOrder(graph: Graph): readonly Node[] {
  const producer = new Map<string, number>();
  graph.nodes.forEach((node, index) => {
    for (const output of node.outputs) {
      if (producer.has(output)) {
        throw new GraphError(`tensor ${output} is written by both node ${graph.nodes[producer.get(output) as number].name} and node ${node.name}.`);
      }
      producer.set(output, index);
    }
  });
  const dependsOn = graph.nodes.map((node) => node.inputs.filter((name) => name !== '' && producer.has(name)).map((name) => producer.get(name) as number));
  if (dependsOn.every((deps, index) => deps.every((d) => d < index))) return graph.nodes;

  // Kahn's algorithm, always taking the earliest stored node that is ready.
  const waiting = dependsOn.map((deps) => new Set(deps).size);
  const users: number[][] = graph.nodes.map(() => []);
  dependsOn.forEach((deps, index) => new Set(deps).forEach((d) => users[d].push(index)));
  const ready = waiting.flatMap((count, index) => (count === 0 ? [index] : []));
  const order: Node[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => a - b);
    const next = ready.shift() as number;
    order.push(graph.nodes[next]);
    for (const user of users[next]) if (--waiting[user] === 0) ready.push(user);
  }
  if (order.length < graph.nodes.length) {
    const stuck = graph.nodes.find((_, index) => waiting[index] > 0) as Node;
    throw new GraphError(`the graph has a cycle through node ${stuck.name} (${stuck.op}).`);
  }
  return order;
}
