import type { Node } from '../../../graph/ir.ts';
import type { Kernel } from '../kernel.ts';
import { checkLength, input, normalizeAxis } from './common.ts';

type GatherNode = Extract<Node, { op: 'Gather' }>;

/**
 * Gather (ONNX): for every index, the slab of `data` at that position along `axis` (an
 * embedding's row per token). Indices arrive as float32 like every tensor of the executors
 * (token ids are whole numbers far below 2^24, which float32 holds exactly); a negative one
 * counts from the end. An index that is not a whole number inside the table is an error, as
 * in onnxruntime, not a silent zero.
 *
 * A slice of a table (`rows`, weight-slicing.ts) copies the rows it holds and leaves every
 * other index to input 2, the earlier slices' result (copied first), or to zero: the slices
 * in turn write each row exactly once, so the result is the whole table's, bit for bit.
 */
export const gather: Kernel = (call) => {
  const node = call.node as GatherNode;
  const data = input(call, 0);
  const indices = input(call, 1);
  const shape = call.inputShapes[0];
  const out = call.output;
  checkLength(call, data, shape, 'data');
  checkLength(call, indices, call.inputShapes[1], 'indices');
  checkLength(call, out, call.outputShape, 'output');
  const axis = normalizeAxis(call, node.axis, shape.length);
  let outer = 1;
  for (let k = 0; k < axis; k++) outer *= shape[k];
  let inner = 1;
  for (let k = axis + 1; k < shape.length; k++) inner *= shape[k];
  const held = shape[axis];
  const start = node.rows?.start ?? 0;
  const table = node.rows?.of ?? held;
  const sliced = node.rows !== undefined;
  if (sliced) {
    const previous = call.inputs[2];
    if (previous === undefined) out.fill(0);
    else {
      checkLength(call, previous, call.outputShape, 'earlier slices');
      out.set(previous);
    }
  }
  const n = indices.length;
  for (let o = 0; o < outer; o++) {
    for (let t = 0; t < n; t++) {
      let index = indices[t];
      if (!Number.isInteger(index) || index < -table || index >= table) {
        throw new Error(`node ${node.name} (Gather): index ${index} at position ${t} is not a whole number in [-${table}, ${table}).`);
      }
      if (index < 0) index += table;
      const row = index - start;
      if (row < 0 || row >= held) continue;
      const from = (o * held + row) * inner;
      out.set(data.subarray(from, from + inner), (o * n + t) * inner);
    }
  }
};
