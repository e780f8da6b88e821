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
 * object, growing it). A flow of n by successive shortest paths (Bellman-Ford in passes,
 * TFLite's SPFA); each saturated source -> R_i starts an object, and saturated L_j -> R_i
 * edges chain tensors into it. Many flows have the same cost: the edge order, the pass
 * order of the search and strict improvements follow TFLite so that the same one is found.
 *
 * Arithmetic as TFLite's: costs are 32-bit ints and distances unsigned, so a path whose
 * running cost goes negative (through a residual edge) is never taken, and sizes of 2 GiB
 * or more wrap. The search is then not an exact shortest path, but it is the authors'.
 */
export const minCostFlow: SharedObjectsPlanner = {
  id: 'shared-objects/min-cost-flow',
  approach: 'shared-objects',
  title: 'Min-cost Flow',
  citation: 'Lee et al. 2019, "On-Device Neural Net Inference with Mobile GPUs"',
  complexity: 'n^3',
  ordersByFirstUse: true,
  // n^2 edges, n shortest-path rounds: about 4 s at 800 records here (a random DAG).
  maxRecords: 1_000,
  plan(problem, options) {
    const { objectIds, objectSizes } = inFirstUseOrder(withAlignedSizes(problem, options), solveMinCostFlow);
    return sharedObjectsPlan(objectIds, objectSizes);
  },
};

/**
 * Edges are collected in insertion order, then frozen into compressed rows: each vertex's
 * edges lie together, in that order (the tie-breaking depends on it), with their target,
 * cost and capacity side by side, so that a scan of a vertex reads memory in sequence.
 * Slot k of the rows is one edge; twin[k] is the slot of its residual twin.
 */
class FlowNetwork {
  private readonly pending: number[] = [];
  /** Edges of vertex v: slots rowStart[v] .. rowStart[v + 1]. */
  rowStart!: Int32Array;
  to!: Int32Array;
  cost!: Int32Array;
  capacity!: Int8Array;
  twin!: Int32Array;

  constructor(private readonly vertices: number) {}

  /** Adds an edge of capacity 1 and its residual twin (capacity 0); the cost is kept as a 32-bit int. */
  addEdge(from: number, to: number, cost: number): void {
    this.pending.push(from, to, cost);
  }

  freeze(): void {
    const { pending, vertices } = this;
    const slots = (pending.length / 3) * 2;
    const degree = new Int32Array(vertices + 1);
    for (let k = 0; k < pending.length; k += 3) {
      degree[pending[k] + 1]++;
      degree[pending[k + 1] + 1]++;
    }
    this.rowStart = new Int32Array(vertices + 1);
    for (let v = 0; v < vertices; v++) this.rowStart[v + 1] = this.rowStart[v] + degree[v + 1];
    this.to = new Int32Array(slots);
    this.cost = new Int32Array(slots);
    this.capacity = new Int8Array(slots);
    this.twin = new Int32Array(slots);
    // Edge e (insertion order) and then its twin take the next free slot of their rows:
    // within a row, slots follow edge ids, as TFLite's adjacency lists do.
    const fill = this.rowStart.slice(0, vertices);
    for (let k = 0; k < pending.length; k += 3) {
      const [a, b, c] = [pending[k], pending[k + 1], pending[k + 2]];
      const forward = fill[a]++;
      const backward = fill[b]++;
      this.to[forward] = b;
      this.cost[forward] = c;
      this.capacity[forward] = 1;
      this.twin[forward] = backward;
      this.to[backward] = a;
      this.cost[backward] = -c;
      this.twin[backward] = forward;
    }
    pending.length = 0;
  }
}

const INT_MAX = 2 ** 31 - 1;

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
    net.addEdge(source, i, 0);
    net.addEdge(right(i), sink, 0);
    net.addEdge(source, right(i), records[i].size);
    for (const j of dead) net.addEdge(j, right(i), Math.max(0, records[i].size - records[j].size));
  }
  net.freeze();
  const { to, capacity, cost, rowStart, twin } = net;

  const vertices = 2 * n + 2;
  // Unsigned in TFLite, starting at INT_MAX: a negative candidate compares as huge.
  const distance = new Int32Array(vertices);
  /** The slot of the edge a vertex's shortest path arrives by. */
  const viaEdge = new Int32Array(vertices);
  // The pass in which a vertex last joined the next pass's queue.
  const joinedPass = new Int32Array(vertices);
  let current = new Int32Array(vertices);
  let next = new Int32Array(vertices);
  for (let flow = 0; flow < n; flow++) {
    distance.fill(INT_MAX);
    joinedPass.fill(0);
    distance[source] = 0;
    // Shortest paths in passes, as TFLite's SPFA runs them: the vertices improved during a
    // pass form the next pass's queue, each once, even when one of them is still waiting
    // in the current pass (it is then scanned in both). A single FIFO with an in-queue flag
    // scans in another order and, among flows of equal cost, finds another one.
    let pass = 1;
    let currentLength = 0;
    current[currentLength++] = source;
    joinedPass[source] = pass;
    while (currentLength > 0) {
      pass++;
      let nextLength = 0;
      for (let q = 0; q < currentLength; q++) {
        const v = current[q];
        // No edge leads from v to itself: its distance holds through its scan.
        const base = distance[v];
        for (let k = rowStart[v], end = rowStart[v + 1]; k < end; k++) {
          if (capacity[k] <= 0) continue;
          const u = to[k];
          const candidate = (base + cost[k]) | 0;
          if (candidate >= 0 && candidate < distance[u]) {
            distance[u] = candidate;
            viaEdge[u] = k;
            if (joinedPass[u] !== pass) {
              next[nextLength++] = u;
              joinedPass[u] = pass;
            }
          }
        }
      }
      [current, next] = [next, current];
      currentLength = nextLength;
    }
    if (distance[sink] === INT_MAX) break;
    for (let v = sink; v !== source; v = to[twin[viaEdge[v]]]) {
      capacity[viaEdge[v]] -= 1;
      capacity[twin[viaEdge[v]]] += 1;
    }
  }

  const objectIds = new Array<number>(n).fill(-1);
  const objectSizes: number[] = [];
  const follow = (tensor: number, object: number): number => {
    objectIds[tensor] = object;
    let size = records[tensor].size;
    for (let k = rowStart[tensor]; k < rowStart[tensor + 1]; k++) {
      const v = to[k];
      if (capacity[k] === 0 && isRight(v) && objectIds[v - n] < 0) size = Math.max(size, follow(v - n, object));
    }
    return size;
  };
  for (let k = rowStart[source]; k < rowStart[source + 1]; k++) {
    if (capacity[k] === 0 && isRight(to[k])) {
      const object = objectSizes.push(0) - 1;
      objectSizes[object] = follow(to[k] - n, object);
    }
  }
  return { objectIds, objectSizes };
}
