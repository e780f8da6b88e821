import { elementCount, type Graph } from '../graph/ir.ts';

/**
 * What onnxruntime's two JavaScript packages share (onnxruntime-common): a tensor and an
 * inference session. onnxruntime-node runs native code in this process, onnxruntime-web its
 * WebAssembly build; both are timed the same way, by timeSession.
 */
export interface OrtTensor {
  readonly data: unknown;
}
export interface OrtLike {
  readonly Tensor: new (type: PeerFeed['type'], data: PeerFeed['data'], dims: readonly number[]) => OrtTensor;
  readonly InferenceSession: {
    create(model: Uint8Array, options?: object): Promise<{ run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>; release(): Promise<void> }>;
  };
}

/** One graph input as the ONNX file declares it: NCHW where the graph is NHWC, token ids as integers. Plain data, so that it crosses to a child process. */
export interface PeerFeed {
  readonly name: string;
  readonly type: 'float32' | 'int32' | 'int64';
  readonly data: Float32Array | Int32Array | BigInt64Array;
  readonly dims: readonly number[];
}

/**
 * What every peer runs: the ONNX file `memplan export` writes for the graph (its weights in
 * it) and the inputs as that file declares them. Made once and given to each peer (a large
 * network's file is hundreds of MiB).
 */
export interface PeerJob {
  readonly graph: Graph;
  readonly model: Uint8Array;
  readonly feeds: readonly PeerFeed[];
  /** Intra-op threads each peer runs with: ours' (the records' `threads`), 1 by default. */
  readonly threads: number;
}

/**
 * The ONNX file and feeds every peer runs. The ONNX writer (onnx-proto, about 85 ms to load)
 * is imported here, when a peer is to run: not by every command or process that imports this
 * module (the web peer's process, `memplan run`).
 */
export async function peerJob(graph: Graph, inputs: ReadonlyMap<string, Float32Array>, threads = 1): Promise<PeerJob> {
  const { writeOnnx } = await import('../io/onnx/write-onnx.ts');
  return { graph, model: writeOnnx(graph, { weights: 'random' }), feeds: peerFeeds(graph, inputs), threads };
}

/** How a peer says its threads in its runtime's name. */
export function threadsWord(threads: number): string {
  return `${threads} thread${threads === 1 ? '' : 's'}`;
}

/** A peer runtime's run of a network: its outputs in the graph's own layout and its latency samples. */
export interface PeerRun {
  readonly runtime: string;
  readonly samples: readonly number[];
  readonly outputs: Map<string, Float32Array>;
}

/** NHWC <-> NCHW for one 4-D tensor's values (its NHWC shape given): to NCHW order, or from it. */
export function transpose4(values: Float32Array, [n, a, b, c]: readonly number[], toNchw: boolean): Float32Array {
  const out = new Float32Array(values.length);
  for (let i = 0; i < n; i++)
    for (let y = 0; y < a; y++)
      for (let x = 0; x < b; x++)
        for (let ch = 0; ch < c; ch++) {
          const nhwc = ((i * a + y) * b + x) * c + ch;
          const nchw = ((i * c + ch) * a + y) * b + x;
          if (toNchw) out[nchw] = values[nhwc];
          else out[nhwc] = values[nchw];
        }
  return out;
}

/** The graph's inputs as the ONNX file `memplan export` writes declares them (write-onnx.ts). */
export function peerFeeds(graph: Graph, inputs: ReadonlyMap<string, Float32Array>): PeerFeed[] {
  const nhwc = graph.layout === 'NHWC';
  return graph.inputs.map((name) => {
    const tensor = graph.tensors.get(name);
    const shape = tensor?.shape ?? [];
    const values = inputs.get(name) ?? new Float32Array(elementCount(shape));
    // Token ids are whole numbers in float32 here; the ONNX file declares them int32 or int64.
    const dtype = tensor?.dtype;
    if (graph.nodes.some((node) => node.op === 'Gather' && node.inputs[1] === name) && (dtype === 'int32' || dtype === 'int64')) {
      return dtype === 'int32'
        ? { name, type: 'int32', data: Int32Array.from(values), dims: [...shape] }
        : { name, type: 'int64', data: BigInt64Array.from(values, (v) => BigInt(v)), dims: [...shape] };
    }
    const four = nhwc && shape.length === 4;
    return { name, type: 'float32', data: four ? transpose4(values, shape, true) : values, dims: four ? [shape[0], shape[3], shape[1], shape[2]] : [...shape] };
  });
}

/** A peer's outputs (by name, NCHW where the graph is NHWC) in the graph's own layout. */
export function graphOutputs(graph: Graph, raw: Readonly<Record<string, Float32Array>>): Map<string, Float32Array> {
  const nhwc = graph.layout === 'NHWC';
  const outputs = new Map<string, Float32Array>();
  for (const name of graph.outputs) {
    const shape = graph.tensors.get(name)?.shape ?? [];
    const values = raw[name];
    outputs.set(name, nhwc && shape.length === 4 ? transpose4(values, shape, false) : Float32Array.from(values));
  }
  return outputs;
}

/**
 * Creates a session on the model, runs it once and `warmup` times untimed, then times
 * `repetitions` runs; returns the samples and the last run's outputs (float32, by name).
 */
export async function timeSession(
  ort: OrtLike,
  model: Uint8Array,
  feeds: readonly PeerFeed[],
  runs: { readonly warmup: number; readonly repetitions: number },
  sessionOptions: object,
): Promise<{ samples: number[]; outputs: Record<string, Float32Array> }> {
  const session = await ort.InferenceSession.create(model, sessionOptions);
  const tensors: Record<string, OrtTensor> = {};
  for (const feed of feeds) tensors[feed.name] = new ort.Tensor(feed.type, feed.data, feed.dims);
  let result = await session.run(tensors);
  for (let k = 0; k < runs.warmup; k++) result = await session.run(tensors);
  const samples: number[] = [];
  for (let k = 0; k < runs.repetitions; k++) {
    const started = performance.now();
    result = await session.run(tensors);
    samples.push(performance.now() - started);
  }
  const outputs: Record<string, Float32Array> = {};
  for (const [name, tensor] of Object.entries(result)) outputs[name] = Float32Array.from(tensor.data as Float32Array);
  await session.release();
  return { samples, outputs };
}

/** Largest absolute difference over the largest magnitude of the reference, over all outputs. */
export function relativeError(ours: ReadonlyMap<string, Float32Array>, reference: ReadonlyMap<string, Float32Array>): number {
  let worst = 0;
  for (const [name, expected] of reference) {
    const actual = ours.get(name);
    if (actual === undefined || actual.length !== expected.length) return Infinity;
    let scale = 0;
    let difference = 0;
    for (let k = 0; k < expected.length; k++) {
      scale = Math.max(scale, Math.abs(expected[k]));
      difference = Math.max(difference, Math.abs(actual[k] - expected[k]));
    }
    worst = Math.max(worst, difference / Math.max(scale, Number.MIN_VALUE));
  }
  return worst;
}
