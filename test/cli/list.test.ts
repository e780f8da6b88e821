import { readFileSync } from 'node:fs';
import { COMMANDS } from '../../src/cli/commands/index.ts';
import { describe, it } from 'vitest';
import { BACKENDS } from '../../src/backends/registry.ts';
import { memplanHere } from './run-memplan.ts';

const APPROACHES = ['offsets', 'shared-objects'];
const COMPLEXITIES = ['n', 'n log n', 'n^2', 'n^3', 'exponential'];

describe.concurrent('memplan list planners', () => {
  it('--json lists the 19 planners and the 2 budgeted ones with id, approach, title, citation and complexity', async ({ expect }) => {
    const run = await memplanHere('list', 'planners', '--json');
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    const planners = JSON.parse(run.stdout) as Record<string, unknown>[];
    expect(Array.isArray(planners)).toBe(true);
    expect(planners).toHaveLength(21);
    for (const p of planners) {
      expect(Object.keys(p).sort()).toEqual(['approach', 'citation', 'complexity', 'id', 'title']);
      expect(APPROACHES).toContain(p.approach);
      // Budgeted planners make offsets plans (with load steps) under ids of their own.
      expect(p.id).toMatch(new RegExp(`^(${String(p.approach)}|budgeted)/[a-z-]+$`));
      expect(typeof p.title === 'string' && p.title !== '').toBe(true);
      expect(typeof p.citation === 'string' && p.citation !== '').toBe(true);
      expect(COMPLEXITIES).toContain(p.complexity);
    }
    expect(new Set(planners.map((p) => p.id)).size).toBe(21);
    expect(planners.filter((p) => p.approach === 'shared-objects')).toHaveLength(9);
  });

  it('prints a table with a header and one row per planner', async ({ expect }) => {
    const [table, json] = await Promise.all([memplanHere('list', 'planners'), memplanHere('list', 'planners', '--json')]);
    expect(table.status).toBe(0);
    expect(table.stderr).toBe('');
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id +title/);
    expect(lines[1]).toMatch(/^-+( +-+)+$/);
    const ids = (JSON.parse(json.stdout) as { id: string; title: string }[]).map((p) => p.id);
    expect(lines.slice(2).map((line) => line.split(/\s+/)[0])).toEqual(ids);
    // Aligned: the second column starts at the same place on every line.
    const titleAt = lines[0].indexOf('title');
    for (const line of lines.slice(2)) expect(line[titleAt - 1] === ' ' && line[titleAt] !== ' ', line).toBe(true);
  });

  it('an unknown list: non-zero exit and a message', async ({ expect }) => {
    const run = await memplanHere('list', 'nothing');
    expect(run.status).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/nothing/);
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('memplan list backends', () => {
  it('--json probes each backend here: cpu and cpu-parallel are available, webgpu has a device or a reason', async ({ expect }) => {
    const run = await memplanHere('list', 'backends', '--json');
    expect(run.status).toBe(0);
    const backends = JSON.parse(run.stdout) as { kind: string; title: string; available: boolean | null; device?: Record<string, unknown>; reason?: string }[];
    // Every executing backend of the registry, then the two that execute nothing here.
    expect(backends.map((b) => b.kind)).toEqual([...BACKENDS.map((b) => b.kind), 'remote', 'plan-only']);
    expect(backends.map((b) => b.kind).slice(0, 3)).toEqual(['cpu', 'cpu-parallel', 'webgpu']);
    for (const b of backends) expect(b.title.length).toBeGreaterThan(10);
    const [cpu, cpuParallel, webgpu] = backends;
    expect(cpu.available).toBe(true);
    expect(cpu.device?.backend).toBe('cpu');
    expect(typeof cpu.device?.cores).toBe('number');
    expect(cpuParallel.available).toBe(true);
    expect(cpuParallel.device?.defaultWorkers).toBeGreaterThanOrEqual(1);
    if (webgpu.available) expect(webgpu.device?.backend).toBe('webgpu');
    else expect(webgpu.reason).toMatch(/\w+.*\./);
    // The WebGPU device is probed in a process of its own, whose Dawn start-up noise is dropped.
    expect(run.stderr).not.toMatch(/artificially reduced/);
  });

  it('prints one row per backend with what is available here', async ({ expect }) => {
    const run = await memplanHere('list', 'backends');
    expect(run.status).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^kind +title +available here$/);
    expect(lines.slice(2).map((line) => line.split(/\s+/)[0])).toEqual([...BACKENDS.map((b) => b.kind), 'remote', 'plan-only']);
    expect(lines[2]).toMatch(/ yes: /);
  });
});

describe.concurrent('a command line that lacks what it needs', () => {
  it('memplan list: its usage, then one sentence on its own line, exit 2', async ({ expect }) => {
    const run = await memplanHere('list');
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('memplan list <what>');
    expect(run.stderr).toMatch(/\[choices: "planners", "models", "backends", "devices"\]/);
    expect(lines[lines.length - 2]).toBe('');
    expect(lines[lines.length - 1]).toBe('memplan: list needs <what>; its usage is above.');
  });

  it('memplan --version: the package, its version and the Node it runs on, exit 0', async ({ expect }) => {
    const { name, version } = JSON.parse(readFileSync('package.json', 'utf8')) as { name: string; version: string };
    const run = await memplanHere('--version');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(`${name} ${version} (node ${process.version})`);
  });

  it('memplan alone: the commands, then one sentence, exit 2', async ({ expect }) => {
    const run = await memplanHere();
    expect(run.status).toBe(2);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('memplan <command> [options]');
    // Every command is listed with its description, though start-up loads none of their modules.
    for (const command of COMMANDS) expect(run.stderr).toContain(`memplan ${command.usage}`);
    expect(run.stderr).toContain('Plan a problem with one or more strategies');
    expect(lines[lines.length - 1]).toBe('memplan: give one of the commands above.');
    expect(run.stderr.match(/^memplan: /gm)).toHaveLength(1);
  });
});
