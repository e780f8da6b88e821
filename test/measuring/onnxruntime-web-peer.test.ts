import { describe, expect, it } from 'vitest';
import { seededInputs, weightedGraph } from '../../src/backends/run-data.ts';
import { buildZooModel } from '../../src/models/zoo.ts';
import { runOnnxRuntime } from '../../src/measuring/onnxruntime-peer.ts';
import { runOnnxRuntimeWeb } from '../../src/measuring/onnxruntime-web-peer.ts';
import { peerJob, relativeError } from '../../src/measuring/peer-session.ts';

describe("onnxruntime-web's WebAssembly build as a peer", () => {
  it('runs the same ONNX file in a process of its own: the repetitions asked for, outputs equal to onnxruntime-node to float32 rounding', async () => {
    const graph = weightedGraph(buildZooModel('zoo:mobilenet-v2?input=32&width=0.35'), 'seeded', 5);
    const runs = { warmup: 1, repetitions: 3 };
    const job = await peerJob(graph, seededInputs(graph, 5));
    const [web, native] = [await runOnnxRuntimeWeb(job, runs), await runOnnxRuntime(job, runs)];
    expect(web.runtime).toMatch(/^onnxruntime-web 1\.\d+\.\d+ \(WebAssembly, 1 thread\)$/);
    expect(web.samples).toHaveLength(3);
    expect(web.samples.every((ms) => ms > 0)).toBe(true);
    expect([...web.outputs.keys()]).toEqual(graph.outputs);
    expect(relativeError(web.outputs, native.outputs)).toBeLessThan(1e-4);
  }, 60_000);
});
