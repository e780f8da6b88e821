import { describe, expect, it } from 'vitest';
import { describeDriver, driverCandidates, KNOWN_ICDS, selectDriver } from '../../../src/backends/webgpu/driver.ts';
import type { KernelArg } from '../../../src/backends/webgpu/kernel.ts';
import type { GpuTensor } from '../../../src/backends/webgpu/memory.ts';
import { assembleDispatch } from '../../../src/backends/webgpu/shader.ts';

const LAVAPIPE = '/usr/share/vulkan/icd.d/lvp_icd.json';
const SWIFTSHADER = '/usr/lib/chromium/vk_swiftshader_icd.json';

describe('finding a Vulkan driver (no GPU needed)', () => {
  it('MEMPLAN_VULKAN_ICD wins over everything, and "system" leaves the loader alone', () => {
    const present = (): boolean => true;
    expect(driverCandidates({ MEMPLAN_VULKAN_ICD: '/my/icd.json', VK_ICD_FILENAMES: LAVAPIPE }, present)).toEqual([{ icd: '/my/icd.json', source: 'MEMPLAN_VULKAN_ICD' }]);
    expect(driverCandidates({ MEMPLAN_VULKAN_ICD: 'system' }, present)).toEqual([{ icd: undefined, source: 'MEMPLAN_VULKAN_ICD' }]);
  });

  it('a driver the user gave the Vulkan loader is kept as it is', () => {
    expect(driverCandidates({ VK_ICD_FILENAMES: '/x.json' }, () => true)).toEqual([{ icd: '/x.json', source: 'VK_ICD_FILENAMES' }]);
    const env: NodeJS.ProcessEnv = { VK_DRIVER_FILES: '/y.json' };
    const [choice] = driverCandidates(env, () => true);
    selectDriver(choice, env);
    expect(env).toEqual({ VK_DRIVER_FILES: '/y.json' });
  });

  it('otherwise the software drivers present, lavapipe before SwiftShader, then the system default', () => {
    expect(KNOWN_ICDS.indexOf(LAVAPIPE)).toBeLessThan(KNOWN_ICDS.indexOf(SWIFTSHADER));
    const present = new Set([SWIFTSHADER, LAVAPIPE]);
    expect(driverCandidates({}, (p) => present.has(p))).toEqual([
      { icd: LAVAPIPE, source: 'known path' },
      { icd: SWIFTSHADER, source: 'known path' },
      { icd: undefined, source: 'system default' },
    ]);
    expect(driverCandidates({}, () => false)).toEqual([{ icd: undefined, source: 'system default' }]);
  });

  it('points the Vulkan loader at the chosen driver, or back at its own search', () => {
    const env: NodeJS.ProcessEnv = {};
    selectDriver({ icd: LAVAPIPE, source: 'known path' }, env);
    expect(env).toEqual({ VK_DRIVER_FILES: LAVAPIPE, VK_ICD_FILENAMES: LAVAPIPE });
    selectDriver({ icd: undefined, source: 'system default' }, env);
    expect(env).toEqual({});
    expect(describeDriver({ icd: LAVAPIPE, source: 'known path' })).toContain(LAVAPIPE);
  });
});

describe('assembling a dispatch (no GPU needed)', () => {
  const arena = {} as GPUBuffer;
  const other = {} as GPUBuffer;
  const spec = (args: KernelArg[]) => ({ label: 'test', args, code: 'fn run(i: u32) { y_st(i, x_ld(i)); }', params: new Uint32Array([7]), invocations: 100 });
  const params: GpuTensor = { buffer: other, offset: 0, size: 16 };

  it('binds each tensor at its place: separate ranges of one arena stay separate bindings', () => {
    const ranges: Record<string, GpuTensor> = { a: { buffer: arena, offset: 0, size: 64 }, b: { buffer: arena, offset: 256, size: 64 } };
    const d = assembleDispatch(
      spec([
        { kind: 'tensor', name: 'x', tensor: 'a', access: 'read' },
        { kind: 'tensor', name: 'y', tensor: 'b', access: 'write' },
      ]),
      (arg) => ranges[(arg as { tensor: string }).tensor],
      () => params,
      65535,
    );
    expect(d.bindings.map((b) => [b.range.offset, b.range.size, b.kind])).toEqual([
      [0, 64, 'w'],
      [256, 64, 'w'],
      [0, 16, 'r'],
    ]);
    expect(d.signature).toBe('wwr');
    expect(d.workgroups).toEqual([2, 1]);
    expect(d.code).toContain('fn x_ld(i: u32) -> f32 { return buf_0[i]; }');
  });

  it('overlapping ranges (a plan that bypassed the verifier) share one binding, each tensor at its own element offset', () => {
    const ranges: Record<string, GpuTensor> = { a: { buffer: arena, offset: 32, size: 64 }, b: { buffer: arena, offset: 0, size: 64 } };
    const d = assembleDispatch(
      spec([
        { kind: 'tensor', name: 'x', tensor: 'a', access: 'read' },
        { kind: 'tensor', name: 'y', tensor: 'b', access: 'write' },
      ]),
      (arg) => ranges[(arg as { tensor: string }).tensor],
      () => params,
      65535,
    );
    expect(d.bindings.map((b) => [b.range.offset, b.range.size])).toEqual([
      [0, 96],
      [0, 16],
    ]);
    expect(d.code).toContain('return buf_0[8u + i];');
    expect(d.code).toContain('buf_0[0u + i] = v;');
  });

  it('a grid too large for one dimension spills into the second', () => {
    const d = assembleDispatch(
      spec([{ kind: 'tensor', name: 'y', tensor: 'b', access: 'write' }]),
      () => ({ buffer: arena, offset: 0, size: 4 }),
      () => params,
      1000,
    );
    const big = assembleDispatch(
      { ...spec([{ kind: 'tensor', name: 'y', tensor: 'b', access: 'write' }]), invocations: 64 * 2500 },
      () => ({ buffer: arena, offset: 0, size: 4 }),
      () => params,
      1000,
    );
    expect(d.workgroups).toEqual([2, 1]);
    expect(big.workgroups).toEqual([1000, 3]);
    expect(big.code).toBe(d.code);
  });
});
