import { elementCount, type Graph } from '../graph/ir.ts';
import { BackendError } from './backend-error.ts';

/**
 * The tensors of the graph that a plan leaves out and a backend places beside it, with their
 * bytes as float32: graph inputs and outputs only (the records' default), in the graph's
 * order. Any other tensor without a record (constants aside) means the plan was made for
 * another graph than the one run, say before its activations were fused; its records' steps
 * would not be this graph's, so the run is refused rather than given a buffer of its own.
 */
export function tensorsOutsidePlan(graph: Graph, planned: (name: string) => boolean): { name: string; bytes: number }[] {
  const handed = new Set([...graph.inputs, ...graph.outputs]);
  const outside: { name: string; bytes: number }[] = [];
  for (const [name, tensor] of graph.tensors) {
    if (tensor.constant || planned(name)) continue;
    if (!handed.has(name)) throw new BackendError(`tensor ${name} has no record in the plan: plan the graph this backend runs (its records' transforms applied, plannedProblem).`);
    outside.push({ name, bytes: elementCount(tensor.shape) * 4 });
  }
  return outside;
}
