import { BackendError } from '../backend-error.ts';
import type { GpuContext } from './gpu-context.ts';
import type { DispatchSpec } from './kernel.ts';
import type { GpuMemory } from './memory.ts';
import { assembleDispatch, type AssembledDispatch } from './shader.ts';

/** A dispatch with everything the device needs, made once in prepare and replayed every inference. */
export interface CompiledDispatch {
  readonly label: string;
  readonly pipeline: GPUComputePipeline;
  readonly bindGroup: GPUBindGroup;
  readonly workgroups: readonly [number, number];
}

/**
 * Binds every dispatch to memory and creates its pipeline. Pipelines are cached on the
 * device by their WGSL (shapes are in the source, places in memory only in the bind group),
 * so the same network in another plan creates no new pipeline. A shader the device rejects,
 * or a binding it refuses, becomes a BackendError naming the node.
 */
export async function compileDispatches(context: GpuContext, memory: GpuMemory, specs: readonly DispatchSpec[]): Promise<CompiledDispatch[]> {
  const { device, limits } = context;
  const assembled = specs.map((spec) => {
    const dispatch = assembleDispatch(
      spec,
      (arg) => (arg.kind === 'tensor' ? memory.tensor(arg.tensor) : memory.upload(`${spec.label}: ${arg.name}`, arg.data)),
      (params) => memory.upload(`${spec.label}: parameters`, params, 'other'),
      limits.maxWorkgroupsPerDimension,
    );
    if (dispatch.bindings.length > limits.maxStorageBuffersPerShaderStage) {
      throw new BackendError(`${spec.label} needs ${dispatch.bindings.length} storage buffers; this WebGPU device allows ${limits.maxStorageBuffersPerShaderStage} per shader.`);
    }
    return dispatch;
  });
  const checks: Promise<void>[] = [];
  const compiled = assembled.map((dispatch): CompiledDispatch => {
    const layout = bindGroupLayout(context, dispatch.signature);
    const pipeline = pipelineFor(context, dispatch, layout, checks);
    device.pushErrorScope('validation');
    const bindGroup = device.createBindGroup({
      label: dispatch.label,
      layout,
      entries: dispatch.bindings.map((b, binding) => ({ binding, resource: { buffer: b.range.buffer, offset: b.range.offset, size: b.range.size } })),
    });
    checks.push(scopeCheck(context, `the WebGPU device refused the bindings of ${dispatch.label}`));
    return { label: dispatch.label, pipeline, bindGroup, workgroups: dispatch.workgroups };
  });
  const results = await Promise.allSettled(checks);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return compiled;
}

async function scopeCheck(context: GpuContext, what: string): Promise<void> {
  const error = await context.settle(context.device.popErrorScope());
  if (error) throw new BackendError(`${what}: ${error.message}`);
}

function bindGroupLayout(context: GpuContext, signature: string): GPUBindGroupLayout {
  let layout = context.layouts.get(signature);
  if (layout === undefined) {
    layout = context.device.createBindGroupLayout({
      label: `bindings ${signature}`,
      entries: [...signature].map((access, binding) => ({
        binding,
        visibility: context.flags.COMPUTE_STAGE,
        buffer: { type: access === 'w' ? ('storage' as const) : ('read-only-storage' as const) },
      })),
    });
    context.layouts.set(signature, layout);
  }
  return layout;
}

function pipelineFor(context: GpuContext, dispatch: AssembledDispatch, layout: GPUBindGroupLayout, checks: Promise<void>[]): GPUComputePipeline {
  const key = `${dispatch.signature}\n${dispatch.code}`;
  let pipeline = context.pipelines.get(key);
  if (pipeline === undefined) {
    const { device } = context;
    device.pushErrorScope('validation');
    pipeline = device.createComputePipeline({
      label: dispatch.label,
      layout: device.createPipelineLayout({ bindGroupLayouts: [layout] }),
      compute: { module: device.createShaderModule({ label: dispatch.label, code: dispatch.code }), entryPoint: 'main' },
    });
    context.pipelines.set(key, pipeline);
    checks.push(
      scopeCheck(context, `the WebGPU device could not compile the shader of ${dispatch.label}`).catch((error: unknown) => {
        context.pipelines.delete(key);
        throw error;
      }),
    );
  }
  return pipeline;
}
