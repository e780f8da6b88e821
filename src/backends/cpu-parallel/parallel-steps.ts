import type { Graph, Node } from '../../graph/ir.ts';
import type { Steps } from '../../graph/schedule.ts';
import { BackendError } from '../backend-error.ts';

/**
 * The steps as indices into `order` (the graph's nodes as they run), checked: every node in
 * exactly one step, and no step reading a tensor that the same or a later step writes (the
 * operators of a step run at once). Absent steps: one operator per step.
 */
export function stepIndices(graph: Graph, order: readonly Node[], steps: Steps | undefined): number[][] {
  if (steps === undefined) return order.map((_, k) => [k]);
  const position = new Map(order.map((node, k) => [node, k]));
  const stepOfTensor = new Map<string, number>();
  const seen = new Set<number>();
  const indices = steps.map((step, s) =>
    step.map((node) => {
      const k = position.get(node);
      if (k === undefined) throw new BackendError(`step ${s} holds node ${node.name}, which is not a node of ${graph.name}.`);
      if (seen.has(k)) throw new BackendError(`node ${node.name} is in more than one step.`);
      seen.add(k);
      for (const name of node.outputs) stepOfTensor.set(name, s);
      return k;
    }),
  );
  if (seen.size !== order.length) throw new BackendError(`the steps hold ${seen.size} of the ${order.length} nodes of ${graph.name}.`);
  steps.forEach((step, s) => {
    for (const node of step) {
      for (const name of node.inputs) {
        const written = stepOfTensor.get(name);
        if (written !== undefined && written >= s) throw new BackendError(`node ${node.name} in step ${s} reads ${name}, which step ${written} writes: a step may read only what earlier steps wrote.`);
      }
    }
  });
  return indices;
}
