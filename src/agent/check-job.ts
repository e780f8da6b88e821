import type { Problem } from '../core/problem.ts';
import { executionOrder } from '../graph/execution-order.ts';
import { elementCount, type Graph } from '../graph/ir.ts';
import { plannedGraphOptions, plannedProblem } from '../graph/lifetimes.ts';
import { inferOutputShapes } from '../graph/shape-inference.ts';
import type { VerifiedResult } from '../planners/plan-and-verify.ts';
import { verifyReceived } from '../planners/plan-handover.ts';
import { WireError, type Job } from './wire.ts';

/** What the agent knows about a backend it serves. */
export interface ServedBackend {
  readonly kind: string;
  readonly requiredAlignment: number;
  /** It plans its kernels' scratch (Backend.plansScratch): jobs for it carry records.scratch. */
  readonly plansScratch?: boolean;
}

export interface CheckedJob {
  /**
   * The job to run: its graph is the planned graph the plan was verified against (record
   * options' transforms and order applied), its record options those that apply nothing again.
   */
  readonly job: Job;
  readonly problem: Problem;
  /** The alignment the plan was verified with: max(plan's, backend's). */
  readonly alignment: number;
  /** The job's plan as the verifier found it for `problem` (valid: checkJob refuses any other). */
  readonly plan: VerifiedResult;
}

const same = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((d, k) => d === b[k]);

/**
 * A received graph as a runnable network: every name it uses exists, every tensor a node
 * reads is a constant, a graph input or some node's output, the order has no cycle, and
 * every node's declared output shape is what shape inference gives for its inputs.
 */
export function checkGraph(graph: Graph): void {
  const tensor = (name: string, where: string) => {
    const found = graph.tensors.get(name);
    if (found === undefined) throw new WireError(`${where} names tensor ${name}, which the graph does not list.`);
    return found;
  };
  for (const name of graph.inputs) if (tensor(name, 'the graph inputs').constant) throw new WireError(`graph input ${name} is a constant.`);
  for (const name of graph.outputs) tensor(name, 'the graph outputs');
  const produced = new Set<string>();
  for (const node of graph.nodes) {
    for (const name of node.outputs) {
      if (tensor(name, `node ${node.name}`).constant) throw new WireError(`node ${node.name} writes constant ${name}.`);
      if (graph.inputs.includes(name)) throw new WireError(`node ${node.name} writes graph input ${name}.`);
      produced.add(name);
    }
  }
  for (const node of graph.nodes) {
    for (const name of node.inputs) {
      if (name === '') continue;
      const t = tensor(name, `node ${node.name}`);
      if (!t.constant && !produced.has(name) && !graph.inputs.includes(name)) {
        throw new WireError(`node ${node.name} reads ${name}, which is neither a constant, a graph input nor any node's output.`);
      }
    }
  }
  for (const name of graph.outputs) {
    if (!produced.has(name) && !graph.inputs.includes(name)) throw new WireError(`graph output ${name} is not written by any node.`);
  }
  let order;
  try {
    order = executionOrder(graph);
  } catch (error) {
    throw new WireError((error as Error).message);
  }
  for (const node of order) {
    const inputs = node.inputs.map((name) => (name === '' ? [] : (graph.tensors.get(name)?.shape ?? [])));
    let inferred: number[][];
    try {
      inferred = inferOutputShapes(node, inputs, graph.layout);
    } catch (error) {
      const message = (error as Error).message;
      throw new WireError(message.startsWith('node ') ? message : `node ${node.name} (${node.op}) does not shape-check: ${message}`);
    }
    if (inferred.length !== node.outputs.length) {
      throw new WireError(`node ${node.name} (${node.op}) lists ${node.outputs.length} outputs; the op has ${inferred.length}.`);
    }
    node.outputs.forEach((name, k) => {
      const declared = graph.tensors.get(name)?.shape ?? [];
      if (!same(declared, inferred[k])) {
        throw new WireError(`node ${node.name} (${node.op}) declares output ${name} as [${declared}] but its inputs give [${inferred[k]}].`);
      }
    });
  }
}

/**
 * Everything the agent checks before it runs a job; each failure is one sentence (a 400).
 * `memoryBytes`: the most the job's tensors may take together (naive, as the proof against
 * the naive plan allocates).
 */
export function checkJob(job: Job, served: readonly ServedBackend[], memoryBytes: number): CheckedJob {
  const backend = served.find((b) => b.kind === job.run.backend);
  if (backend === undefined) throw new WireError(`this agent serves ${served.map((b) => b.kind).join(', ')}; the job asks for ${JSON.stringify(job.run.backend)}.`);
  checkGraph(job.graph);
  let tensorBytes = 0;
  for (const t of job.graph.tensors.values()) {
    const count = elementCount(t.shape);
    if (t.constant) {
      // The graph runs with the values it carries (execute's 'file' weights): float32, one per element.
      if (!(t.data instanceof Float32Array)) {
        throw new WireError(`constant ${t.name} carries ${t.data === undefined ? 'no values' : `a ${t.data.constructor.name}`}; jobs run with float32 values for every constant.`);
      }
      if (t.data.length !== count) throw new WireError(`constant ${t.name} has ${t.data.length} values for shape [${t.shape}] (${count} elements).`);
    } else {
      tensorBytes += count * 4;
    }
  }
  if (tensorBytes > memoryBytes) {
    throw new WireError(`the network's tensors need ${mib(tensorBytes)} MiB, more than the ${mib(memoryBytes)} MiB this agent allows a job.`);
  }
  let planned: { readonly graph: Graph; readonly problem: Problem };
  try {
    planned = plannedProblem(job.graph, { ...job.records, elementSize: 4 });
  } catch (error) {
    throw new WireError((error as Error).message);
  }
  const { problem } = planned;
  if (backend.plansScratch && !job.records.scratch) {
    throw new WireError(`the ${backend.kind} backend plans its kernels' scratch: send the job with records.scratch, planned with those records.`);
  }
  for (const record of problem.records) {
    // Scratch is a kernel's, sized by the records' own rules (graph/layer-memory.ts), not a tensor's.
    if (record.kind === 'scratch') continue;
    const bytes = elementCount(planned.graph.tensors.get(record.id)?.shape ?? []) * 4;
    if (record.size !== bytes) {
      throw new WireError(`record ${record.id} is ${record.size} bytes but its tensor holds ${bytes} as float32; jobs run with records of the tensors' own size (no roundChannelsTo4).`);
    }
  }
  const ids = problem.records.map((r) => r.id);
  if (ids.length !== job.plan.records.length) {
    throw new WireError(`the plan is for ${job.plan.records.length} records but the graph gives ${ids.length} with these record options.`);
  }
  const differs = ids.findIndex((id, k) => id !== job.plan.records[k]);
  if (differs >= 0) throw new WireError(`the plan's record ${differs} is ${job.plan.records[differs]} but the graph's is ${ids[differs]}.`);
  if (job.plan.alignment < backend.requiredAlignment) {
    throw new WireError(`the plan is aligned to ${job.plan.alignment} bytes but the ${backend.kind} backend needs offsets aligned to ${backend.requiredAlignment}.`);
  }
  const alignment = Math.max(job.plan.alignment, backend.requiredAlignment);
  const plan = verifyReceived(job.plan, problem, alignment);
  if (!plan.valid) {
    throw new WireError(`the plan of ${job.plan.planner} fails the verifier: ${plan.violations[0]?.message}`);
  }
  return { job: { ...job, graph: planned.graph, records: plannedGraphOptions(job.records) }, problem, alignment, plan };
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}
