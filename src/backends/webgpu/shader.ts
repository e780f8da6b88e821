import type { DispatchSpec, KernelArg } from './kernel.ts';
import { ACTIVATION_WGSL } from './kernels/wgsl.ts';
import type { GpuTensor } from './memory.ts';

export const WORKGROUP_SIZE = 64;

/** One storage binding of an assembled dispatch. */
export interface Binding {
  readonly range: GpuTensor;
  /** 'w' read-write storage, 'r' read-only storage. */
  readonly kind: 'w' | 'r';
}

/** A dispatch ready for the device: its full WGSL, its bindings in order, its workgroup grid. */
export interface AssembledDispatch {
  readonly label: string;
  readonly code: string;
  /** One letter per binding (its kind): the bind group layout. */
  readonly signature: string;
  readonly bindings: readonly Binding[];
  readonly workgroups: readonly [number, number];
}

/**
 * Binds a kernel's arguments and writes the WGSL around its `run` (see kernel.ts): one
 * storage binding per argument, at the tensor's place in planned memory.
 *
 * Tensor arguments are bound as read-write storage, inputs too: WebGPU tracks usage per
 * buffer, and a dispatch may not use one buffer (the arena) both as read-only storage and as
 * writable storage. It may bind it writable several times, as long as the ranges do not
 * overlap. A verified plan never overlaps them (a node's inputs and output are live
 * together), but a plan that bypassed the verifier may, and so does a node that reads one
 * tensor twice (Add(x, x)): such arguments share ONE binding over the union of their ranges,
 * each addressed from its own element offset, so the dispatch runs, and a bad plan computes
 * the wrong values it deserves (the outputs then differ from the naive plan's).
 * Data arguments (the kernel's own buffers, never written) are bound read-only, and so are
 * the parameters (`prm(k)`), after every argument: a storage buffer, not a uniform one, as
 * Mesa's lavapipe can inline the values of small uniform buffers that loops depend on into
 * the shader, which would bring back a compilation per shape.
 */
export function assembleDispatch(spec: DispatchSpec, rangeOf: (arg: KernelArg) => GpuTensor, paramsRange: (params: Uint32Array) => GpuTensor, maxWorkgroupsPerDimension: number): AssembledDispatch {
  const ranges = spec.args.map(rangeOf);
  const group = mergeAliasing(spec.args, ranges);
  const bindings: Binding[] = [];
  const bindingOf = new Map<number, number>();
  const declarations: string[] = [];
  const accessors: string[] = [];
  spec.args.forEach((arg, k) => {
    const root = group[k];
    const members = spec.args.map((_, j) => j).filter((j) => group[j] === root);
    const merged = members.length > 1;
    if (!bindingOf.has(root)) {
      const index = bindings.length;
      bindingOf.set(root, index);
      const start = Math.min(...members.map((j) => ranges[j].offset));
      const end = Math.max(...members.map((j) => ranges[j].offset + ranges[j].size));
      const writable = arg.kind === 'tensor';
      bindings.push({ range: { buffer: ranges[k].buffer, offset: start, size: end - start }, kind: writable ? 'w' : 'r' });
      declarations.push(`@group(0) @binding(${index}) var<storage, ${writable ? 'read_write' : 'read'}> buf_${index}: ${merged ? 'array<f32>' : elementArray(arg)};`);
    }
    const index = bindingOf.get(root)!;
    const base = merged ? (ranges[k].offset - bindings[index].range.offset) / 4 : 0;
    accessors.push(merged ? mergedAccessors(arg, `buf_${index}`, base) : plainAccessors(arg, `buf_${index}`));
  });
  // The grid's size goes with the kernel's parameters: the source does not depend on the shape.
  const groups = Math.max(1, Math.ceil(spec.invocations / WORKGROUP_SIZE));
  const x = Math.min(groups, maxWorkgroupsPerDimension);
  const y = Math.ceil(groups / x);
  const gridAt = spec.params.length;
  const params = new Uint32Array(Math.ceil((gridAt + 2) / 4) * 4);
  params.set(spec.params);
  params[gridAt] = spec.invocations;
  params[gridAt + 1] = x * WORKGROUP_SIZE;
  const paramsIndex = bindings.length;
  bindings.push({ range: paramsRange(params), kind: 'r' });
  declarations.push(`@group(0) @binding(${paramsIndex}) var<storage, read> params_: array<vec4<u32>>;`);
  accessors.push('fn prm(k: u32) -> u32 { return params_[k / 4u][k % 4u]; }', ACTIVATION_WGSL);
  // No early return for the invocations that pad the grid: they redo the last invocation
  // (kernels write only their output and never read it back, so they write the same values),
  // and every invocation of a workgroup stays on one path.
  const entry = [`fn main(@builtin(global_invocation_id) gid: vec3<u32>) {`, `  run(min(gid.x + gid.y * prm(${gridAt + 1}u), prm(${gridAt}u) - 1u));`, `}`];
  const code = [...declarations, ...accessors, spec.code.trim(), `@compute @workgroup_size(${WORKGROUP_SIZE})`, ...entry, ''].join('\n');
  return { label: spec.label, code, signature: bindings.map((b) => b.kind).join(''), bindings, workgroups: [x, y] };
}

function isWrite(arg: KernelArg): boolean {
  return arg.kind === 'tensor' && arg.access === 'write';
}

function elementArray(arg: KernelArg): string {
  if (arg.kind === 'data' && arg.data instanceof Uint32Array) return 'array<u32>';
  return arg.vec4 ? 'array<vec4<f32>>' : 'array<f32>';
}

/** Union-find over tensor arguments: same buffer, overlapping ranges. */
function mergeAliasing(args: readonly KernelArg[], ranges: readonly GpuTensor[]): number[] {
  const parent = args.map((_, k) => k);
  const find = (k: number): number => (parent[k] === k ? k : (parent[k] = find(parent[k])));
  for (let a = 0; a < args.length; a++) {
    for (let b = a + 1; b < args.length; b++) {
      const ra = ranges[a];
      const rb = ranges[b];
      if (ra.buffer !== rb.buffer || args[a].kind !== 'tensor' || args[b].kind !== 'tensor') continue;
      if (ra.offset < rb.offset + rb.size && rb.offset < ra.offset + ra.size) parent[find(a)] = find(b);
    }
  }
  return args.map((_, k) => find(k));
}

function plainAccessors(arg: KernelArg, buffer: string): string {
  const n = arg.name;
  if (arg.kind === 'data' && arg.data instanceof Uint32Array) return `fn ${n}_ld(i: u32) -> u32 { return ${buffer}[i]; }`;
  const lines: string[] = [];
  if (arg.vec4) {
    lines.push(`fn ${n}_ld4(i: u32) -> vec4<f32> { return ${buffer}[i]; }`);
    lines.push(`fn ${n}_ld(i: u32) -> f32 { return ${buffer}[i / 4u][i % 4u]; }`);
    if (isWrite(arg)) {
      lines.push(`fn ${n}_st4(i: u32, v: vec4<f32>) { ${buffer}[i] = v; }`);
      lines.push(`fn ${n}_st(i: u32, v: f32) { ${buffer}[i / 4u][i % 4u] = v; }`);
    }
  } else {
    lines.push(`fn ${n}_ld(i: u32) -> f32 { return ${buffer}[i]; }`);
    if (isWrite(arg)) lines.push(`fn ${n}_st(i: u32, v: f32) { ${buffer}[i] = v; }`);
  }
  return lines.join('\n');
}

/** Accessors into a shared read-write binding, from the argument's element offset in it. */
function mergedAccessors(arg: KernelArg, buffer: string, base: number): string {
  const n = arg.name;
  const lines = [
    `fn ${n}_ld(i: u32) -> f32 { return ${buffer}[${base}u + i]; }`,
    `fn ${n}_ld4(i: u32) -> vec4<f32> { let j = ${base}u + 4u * i; return vec4<f32>(${buffer}[j], ${buffer}[j + 1u], ${buffer}[j + 2u], ${buffer}[j + 3u]); }`,
  ];
  if (isWrite(arg)) {
    lines.push(`fn ${n}_st(i: u32, v: f32) { ${buffer}[${base}u + i] = v; }`);
    lines.push(`fn ${n}_st4(i: u32, v: vec4<f32>) { let j = ${base}u + 4u * i; ${buffer}[j] = v.x; ${buffer}[j + 1u] = v.y; ${buffer}[j + 2u] = v.z; ${buffer}[j + 3u] = v.w; }`);
  }
  return lines.join('\n');
}
