import type { Node } from './ir.ts';

/**
 * The layers of the MindSpore Vulkan thesis (../shared/paper/README.md, section 5):
 * L_i = { v : maxdist(v) = i }, where maxdist(v) is the longest path from the graph's
 * inputs to v counted in operators: 0 for a node that reads no other node's output, else
 * one more than the largest maxdist of the nodes it reads from. No node reads a node of its
 * own layer or a later one, so the operators of a layer are independent and may run at once.
 *
 * `order` is a topological order of the graph's nodes (executionOrder); each layer lists
 * its nodes in that order.
 */
export function operatorLevels(order: readonly Node[]): Node[][] {
  const levelOf = new Map<string, number>();
  const levels: Node[][] = [];
  for (const node of order) {
    let level = 0;
    for (const name of node.inputs) {
      const producer = levelOf.get(name);
      if (producer !== undefined && producer + 1 > level) level = producer + 1;
    }
    for (const name of node.outputs) levelOf.set(name, level);
    (levels[level] ??= []).push(node);
  }
  return levels;
}
