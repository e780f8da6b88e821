import { balancedRuns } from './balanced-runs.ts';
import { DTYPE_BYTES } from './dtype.ts';
import { executionOrder } from './execution-order.ts';
import { elementCount, type Graph, type Node } from './ir.ts';
import { operatorLevels } from './operator-levels.ts';

/**
 * How the operators of a graph are grouped into steps that run one after another; the
 * operators of one step may run at the same time (a parallel executor runs them at once,
 * a barrier ends the step). The records of a scheduled graph live over steps, not
 * operators (lifetimes.ts), so two tensors used by one step never share memory, whatever
 * the planner.
 *
 * - `sequential`: one operator per step, in the planned order (what memplan always did).
 * - `levels`: one step per layer L_i = { v : maxdist(v) = i } (operator-levels.ts), the
 *   thesis' layer-wise parallel execution.
 * - `groups:K`: each layer split into K groups run one after another (the thesis' method,
 *   a memory barrier between groups). A layer's operators, in planned order, are cut into
 *   min(K, its size) contiguous runs balanced by output bytes (balanced-runs.ts: the largest
 *   run's bytes as small as possible; ties to longer earlier runs). `groups:1` is `levels`.
 */
export type Schedule = 'sequential' | 'levels' | `groups:${number}`;

/** What parseSchedule accepts, for error messages. */
export const SCHEDULE_FORMS = 'sequential, levels or groups:K (K a whole number >= 1)';

/** The steps of a schedule: each step's nodes, steps in the order they run. */
export type Steps = readonly (readonly Node[])[];

/** A schedule from a command line or a file, or undefined when the value is none of SCHEDULE_FORMS. */
export function parseSchedule(value: unknown): Schedule | undefined {
  if (value === 'sequential' || value === 'levels') return value;
  const match = typeof value === 'string' ? /^groups:([1-9][0-9]*)$/.exec(value) : null;
  if (match === null || !Number.isSafeInteger(Number(match[1]))) return undefined;
  return `groups:${Number(match[1])}`;
}

/** Does the schedule put several operators in one step (anything but sequential)? */
export function isParallelSchedule(schedule: Schedule | undefined): boolean {
  return schedule !== undefined && schedule !== 'sequential';
}

/**
 * The steps of `graph` under `schedule`. Every step reads only tensors written in earlier
 * steps (or graph inputs and constants). Sequential steps follow executionOrder; the layers
 * keep it within each layer. Laying the steps of a layered schedule end to end gives an
 * order whose steps under the same schedule are the same again (layers do not depend on
 * the order, and a layer's contiguous runs laid end to end are its nodes in the same order).
 */
export function scheduleSteps(graph: Graph, schedule: Schedule = 'sequential'): Steps {
  const order = executionOrder(graph);
  if (schedule === 'sequential') return order.map((node) => [node]);
  const groups = schedule === 'levels' ? 1 : Number(schedule.slice('groups:'.length));
  const bytes = (node: Node): number => node.outputs.reduce((sum, name) => sum + tensorBytes(graph, name), 0);
  return operatorLevels(order).flatMap((level) => balancedRuns(level.map(bytes), groups).map(([start, end]) => level.slice(start, end)));
}

function tensorBytes(graph: Graph, name: string): number {
  const tensor = graph.tensors.get(name);
  return tensor === undefined ? 0 : elementCount(tensor.shape) * DTYPE_BYTES[tensor.dtype];
}
