/**
 * The memory-aware operator order's benchmark (`npx tsx bench/memory-aware-order.bench.ts`):
 * issue 7 item 4's speed targets, checked on this machine, with the peaks it reaches.
 *
 * - each zoo network at its default input, PAPER_RECORD_OPTIONS: well under a second;
 * - seeded graphs of thousands of nodes (random DAGs narrow and wide, chains of
 *   Inception-like modules stored interleaved): a few seconds each (target: 5 s).
 *
 * stdout: one row per graph (nodes, peak of the given and of the memory-aware order, time,
 * verdict). Exit code 1 when an order is not topological or peaks above the given one.
 */
import { mulberry32 } from '../src/core/synthetic.ts';
import { executionOrder } from '../src/graph/execution-order.ts';
import type { Graph, Node, Tensor } from '../src/graph/ir.ts';
import { PAPER_RECORD_OPTIONS } from '../src/graph/lifetimes.ts';
import { memoryAwareOrder, orderPeak } from '../src/graph/memory-aware-order.ts';
import { buildZooModel } from '../src/models/zoo.ts';

const ZOO = ['mobilenet-v1', 'mobilenet-v2', 'deeplab-v3', 'inception-v3', 'posenet', 'blazeface'];

/** Nodes read 1-`maxInputs` of the last `window` tensors made; sizes 1-1000 bytes. */
function randomDag(n: number, window: number, maxInputs: number, seed: number): Graph {
  const random = mulberry32(seed);
  const pick = (k: number): number => Math.floor(random() * k);
  const tensors = new Map<string, Tensor>();
  const tensor = (name: string): void => void tensors.set(name, { name, shape: [1 + pick(1000)], dtype: 'int8', constant: false });
  tensor('in');
  const made = ['in'];
  const read = new Set<string>();
  const nodes: Node[] = [];
  for (let k = 0; k < n; k++) {
    const inputs = [...new Set(Array.from({ length: 1 + pick(maxInputs) }, () => made[made.length - 1 - pick(Math.min(window, made.length))]))];
    inputs.forEach((name) => read.add(name));
    tensor(`t${k}`);
    made.push(`t${k}`);
    nodes.push({ op: 'Add', activation: 'none', name: `n${k}`, inputs, outputs: [`t${k}`] });
  }
  return { name: `dag-${n}-w${window}`, layout: 'NHWC', tensors, nodes, inputs: ['in'], outputs: made.filter((t) => t !== 'in' && !read.has(t)) };
}

/** Modules of 2-5 branches of 1-4 ops joined by a concat, the branches' ops stored interleaved. */
function interleavedModules(modules: number, seed: number): Graph {
  const random = mulberry32(seed);
  const pick = (k: number): number => Math.floor(random() * k);
  const tensors = new Map<string, Tensor>();
  const tensor = (name: string): string => (tensors.set(name, { name, shape: [1 + pick(200)], dtype: 'int8', constant: false }), name);
  let x = tensor('in');
  const nodes: Node[] = [];
  for (let m = 0; m < modules; m++) {
    const branches = Array.from({ length: 2 + pick(4) }, (_, b) => {
      let from = x;
      return Array.from({ length: 1 + pick(4) }, (_, k): Node => {
        const to = tensor(`m${m}b${b}k${k}`);
        const node: Node = { op: 'Relu', name: to, inputs: [from], outputs: [to] };
        from = to;
        return node;
      });
    });
    for (let k = 0; k < 4; k++) for (const branch of branches) if (branch[k]) nodes.push(branch[k]);
    const joined = tensor(`m${m}`);
    nodes.push({ op: 'Concat', axis: 0, activation: 'none', name: joined, inputs: branches.map((b) => b[b.length - 1].outputs[0]), outputs: [joined] });
    x = joined;
  }
  return { name: `modules-${modules}`, layout: 'NHWC', tensors, nodes, inputs: ['in'], outputs: [x] };
}

function topological(graph: Graph, order: readonly Node[]): boolean {
  const produced = new Set(graph.nodes.flatMap((n) => n.outputs));
  const done = new Set<string>();
  for (const node of order) {
    if (node.inputs.some((i) => produced.has(i) && !done.has(i))) return false;
    node.outputs.forEach((o) => done.add(o));
  }
  return order.length === graph.nodes.length && new Set(order).size === order.length;
}

const rows: string[][] = [['graph', 'nodes', 'given peak', 'memory-aware peak', 'time ms', 'target ms', 'verdict']];
let broken = false;
const measure = (graph: Graph, unit: number, unitName: string, targetMs: number, options = {}): void => {
  const started = performance.now();
  const order = memoryAwareOrder(graph, options);
  const ms = performance.now() - started;
  const given = orderPeak(graph, executionOrder(graph), options);
  const peak = orderPeak(graph, order, options);
  if (!topological(graph, order) || peak > given) broken = true;
  const show = (bytes: number): string => (unit === 1 ? `${bytes} ${unitName}` : `${(bytes / unit).toFixed(3)} ${unitName}`);
  rows.push([graph.name, String(graph.nodes.length), show(given), show(peak), ms.toFixed(1), String(targetMs), ms <= targetMs ? 'met' : 'MISSED']);
};

for (const name of ZOO) measure(buildZooModel(`zoo:${name}`), 2 ** 20, 'MiB', 1000, PAPER_RECORD_OPTIONS);
for (const [n, window, inputs] of [
  [3000, 3, 2],
  [3000, 10, 3],
  [3000, 3000, 2],
  [5000, 8, 3],
]) {
  measure(randomDag(n, window, inputs, 7), 1, 'B', 5000);
}
measure(interleavedModules(500, 3), 1, 'B', 5000);

const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
for (const row of rows) console.log(row.map((cell, c) => cell.padEnd(widths[c])).join('  '));
if (broken) {
  console.error('an order was not topological or peaked above the given order');
  process.exit(1);
}
