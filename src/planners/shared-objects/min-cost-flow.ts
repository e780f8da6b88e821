import { sharedObjectsPlan } from '../../core/plans.ts';
import type { TensorUsageRecord } from '../../core/records.ts';
import { inFirstUseOrder, type ObjectAssignment } from '../first-use-order.ts';
import { withAlignedSizes, type SharedObjectsPlanner } from '../planner.ts';

/**
 * Min-cost Flow, Lee et al. 2019 as TFLite ships it (MinCostFlowAssignment).
 *
 * Network: source -> L_i (cap 1, cost 0); R_i -> sink (cap 1, cost 0); source -> R_i
 * (cap 1, cost size_i: tensor i opens a new object); L_j -> R_i when tensor j dies
 * before tensor i is first used (cap 1, cost max(0, size_i - size_j): i reuses j's
 * object, growing it). A flow of n by successive shortest paths (queue-based
 * Bellman-Ford, which tolerates the negative costs of residual edges); each saturated
 * source -> R_i starts an object, and saturated L_j -> R_i edges chain tensors into it.
 * Edge order and strict improvements follow TFLite so that ties resolve the same way.
 */
export const minCostFlow: SharedObjectsPlanner = {
  id: 'shared-objects/min-cost-flow',
  approach: 'shared-objects',
  title: 'Min-cost Flow',
  citation: 'Lee et al. 2019, "On-Device Neural Net Inference with Mobile GPUs"',
  complexity: 'n^3',
  plan(problem, options) {
    const { objectIds, objectSizes } = inFirstUseOrder(withAlignedSizes(problem, options), solveMinCostFlow);
    return sharedObjectsPlan(objectIds, objectSizes);
  },
};

class FlowNetwork {
  readonly to: number[] = [];
  readonly from: number[] = [];
  readonly capacity: number[] = [];
  readonly cost: number[] = [];
  readonly outgoing: number[][];

  constructor(vertices: number) {
    this.outgoing = Array.from({ length: vertices }, () => []);
  }

  /** Adds an edge and its residual twin (id ^ 1). */
  addEdge(from: number, to: number, capacity: number, cost: number): void {
    for (const [a, b, cap, c] of [
      [from, to, capacity, cost],
      [to, from, 0, -cost],
    ]) {
      this.outgoing[a].push(this.to.length);
      this.from.push(a);
      this.to.push(b);
      this.capacity.push(cap);
      this.cost.push(c);
    }
  }
}

function solveMinCostFlow(records: readonly TensorUsageRecord[]): ObjectAssignment {
  const n = records.length;
  const source = 2 * n;
  const sink = source + 1;
  const right = (i: number): number => n + i;
  const isRight = (v: number): boolean => v >= n && v < 2 * n;
  const net = new FlowNetwork(2 * n + 2);

  // Records are in first-use order, so "died before i starts" only grows with i.
  const byLast = records.map((_, i) => i).sort((a, b) => records[a].last - records[b].last || a - b);
  const dead: number[] = [];
  let nextToDie = 0;
  const deadMark = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    // TFLite pops finished tensors from a queue ordered by (last, id): same order here.
    while (nextToDie < n && records[byLast[nextToDie]].last < records[i].first) {
      const j = byLast[nextToDie++];
      if (j < i && !deadMark[j]) {
        deadMark[j] = 1;
        dead.push(j);
      }
    }
    net.addEdge(source, i, 1, 0);
    net.addEdge(right(i), sink, 1, 0);
    net.addEdge(source, right(i), 1, records[i].size);
    for (const j of dead) net.addEdge(j, right(i), 1, Math.max(0, records[i].size - records[j].size));
  }

  const vertices = 2 * n + 2;
  const distance = new Float64Array(vertices);
  const viaEdge = new Int32Array(vertices);
  const queued = new Uint8Array(vertices);
  const queue = new Int32Array(vertices + 1);
  for (let flow = 0; flow < n; flow++) {
    distance.fill(Infinity);
    viaEdge.fill(-1);
    distance[source] = 0;
    // A ring buffer: each vertex is in the queue at most once.
    let head = 0;
    let tail = 0;
    queue[tail++] = source;
    queued[source] = 1;
    while (head !== tail) {
      const v = queue[head];
      head = (head + 1) % queue.length;
      queued[v] = 0;
      for (const e of net.outgoing[v]) {
        if (net.capacity[e] <= 0) continue;
        const u = net.to[e];
        const candidate = distance[v] + net.cost[e];
        if (candidate < distance[u]) {
          distance[u] = candidate;
          viaEdge[u] = e;
          if (!queued[u]) {
            queue[tail] = u;
            tail = (tail + 1) % queue.length;
            queued[u] = 1;
          }
        }
      }
    }
    if (distance[sink] === Infinity) break;
    for (let v = sink; v !== source; v = net.from[viaEdge[v]]) {
      net.capacity[viaEdge[v]] -= 1;
      net.capacity[viaEdge[v] ^ 1] += 1;
    }
  }

  const objectIds = new Array<number>(n).fill(-1);
  const objectSizes: number[] = [];
  const follow = (tensor: number, object: number): number => {
    objectIds[tensor] = object;
    let size = records[tensor].size;
    for (const e of net.outgoing[tensor]) {
      const v = net.to[e];
      if (net.capacity[e] === 0 && isRight(v) && objectIds[v - n] < 0) size = Math.max(size, follow(v - n, object));
    }
    return size;
  };
  for (const e of net.outgoing[source]) {
    if (net.capacity[e] === 0 && isRight(net.to[e])) {
      const object = objectSizes.push(0) - 1;
      objectSizes[object] = follow(net.to[e] - n, object);
    }
  }
  return { objectIds, objectSizes };
}
