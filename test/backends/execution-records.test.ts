import { describe, expect, it } from 'vitest';
import { cpuBackend } from '../../src/backends/cpu/cpu-backend.ts';
import { cpuParallelBackend } from '../../src/backends/cpu-parallel/cpu-parallel-backend.ts';
import { executionRecords } from '../../src/backends/execution-records.ts';
import { webgpuBackend } from '../../src/backends/webgpu/webgpu-backend.ts';
import { plannedProblem } from '../../src/graph/lifetimes.ts';
import { buildZooModel } from '../../src/models/zoo.ts';

describe('the records a backend runs a network with', () => {
  it('are fp32, laid out NHWC, with scratch records and activations fused where the backend plans and runs them so, whatever was asked', () => {
    for (const backend of [cpuBackend, cpuParallelBackend]) {
      expect(executionRecords(backend, { scratch: false, fuseActivations: false, nhwc: false, includeGraphIO: true })).toEqual({
        includeGraphIO: true,
        elementSize: 4,
        nhwc: true,
        scratch: true,
        fuseActivations: true,
      });
    }
    // WebGPU fuses activations too, plans no scratch, whatever was asked, and runs either layout: NHWC where asked.
    expect(executionRecords(webgpuBackend, { fuseActivations: false, scratch: true, elementSize: 2 })).toEqual({ fuseActivations: true, elementSize: 4 });
    expect(executionRecords(webgpuBackend, { nhwc: true })).toEqual({ nhwc: true, fuseActivations: true, elementSize: 4 });
  });

  it.each([cpuBackend, webgpuBackend])(
    "plan no sum a ReLU alone reads on the CPU executors and WebGPU ($kind): BlazeFace's 17 standalone ReLUs run fused, and their sums are never written",
    (backend) => {
      const source = buildZooModel('zoo:blazeface');
      const { graph, problem } = plannedProblem(source, executionRecords(backend));
      const relus = source.nodes.filter((node) => node.op === 'Relu');
      expect(relus).toHaveLength(17);
      expect(graph.nodes).toHaveLength(source.nodes.length - relus.length);
      const ids = new Set(problem.records.map((record) => record.id));
      for (const relu of relus) {
        expect(ids.has(relu.inputs[0]), relu.inputs[0]).toBe(false);
        expect(ids.has(relu.outputs[0]), relu.outputs[0]).toBe(true);
      }
    },
  );
});
