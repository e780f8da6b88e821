import { describe, it } from 'vitest';
import { budgetShare } from '../../src/backends/budgeted/budget-share.ts';
import { buildZooModel } from '../../src/models/zoo.ts';
import { memplanHere, userErrorLine } from './run-memplan.ts';

interface PlanJson {
  budget: number;
  buffer?: number;
  minBudget?: number;
  results: { planner: string; footprint: number; valid: boolean; offsets: number[]; loadSteps?: number[] }[];
}

describe.concurrent('memplan plan --budget', () => {
  it("prints a verified FlexNN plan of weights, activations and scratch within the buffer the budget leaves beside graph I/O and the runtime's reserve", async ({ expect }) => {
    const run = await memplanHere('plan', 'zoo:mobilenet-v2', '--budget', '12MiB', '--planner', 'budgeted/flexnn', '--json');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as PlanJson;
    expect(report.budget).toBe(12 * 2 ** 20);
    expect(report.buffer).toBe(budgetShare(buildZooModel('zoo:mobilenet-v2'), 12 * 2 ** 20).buffer);
    const [result] = report.results;
    expect(result.planner).toBe('budgeted/flexnn');
    expect(result.valid).toBe(true);
    expect(result.footprint).toBeLessThanOrEqual(report.buffer as number);
    expect(result.loadSteps).toHaveLength(result.offsets.length);
  });

  it('rejects sizes it cannot read with one line', async ({ expect }) => {
    for (const value of ['abc', '12XB', '-3MiB', '0', '0.5B']) {
      const line = userErrorLine(await memplanHere('plan', 'zoo:mobilenet-v2', `--budget=${value}`));
      expect(line).toMatch(/^memplan: --budget/);
    }
  });

  it('names the layer and the smallest budget that works when the budget is too small', async ({ expect }) => {
    const line = userErrorLine(await memplanHere('plan', 'zoo:mobilenet-v2', '--budget', '2MiB', '--planner', 'budgeted/flexnn'));
    expect(line).toMatch(
      /^memplan: zoo:mobilenet-v2: budgeted\/flexnn cannot fit operator \d+ \(.+\) in a budget of 2\.000 MiB \(2097152 bytes\), which leaves a buffer of 0\.000 MiB \(0 bytes\) beside graph I\/O of [\d.]+ MiB \(\d+ bytes\) and the runtime's reserve of 4\.000 MiB \(4194304 bytes\); the smallest budget that works is [\d.]+ MiB \(\d+ bytes\)/,
    );
  });

  it('finds the smallest budget: its plan is verified, and one alignment step below it is infeasible', async ({ expect }) => {
    const run = await memplanHere('plan', 'zoo:mobilenet-v2?input=96', '--find-min-budget', '--align', '64', '--json');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as PlanJson;
    expect(report.minBudget).toBe(report.budget);
    expect(report.results[0].valid).toBe(true);
    // The smallest budget of the whole run: its plan fits the buffer it leaves.
    expect(report.buffer).toBe(budgetShare(buildZooModel('zoo:mobilenet-v2?input=96'), report.budget).buffer);
    expect(report.results[0].footprint).toBeLessThanOrEqual(report.buffer as number);
    const below = await memplanHere('plan', 'zoo:mobilenet-v2?input=96', '--budget', String(report.budget - 64), '--align', '64', '--planner', 'budgeted/flexnn');
    expect(userErrorLine(below)).toMatch(new RegExp(`the smallest budget that works is [\\d.]+ MiB \\(${report.budget} bytes\\)`));
  });

  it('plans a record file within a budget too, and says when another planner overruns it', async ({ expect }) => {
    const run = await memplanHere('plan', 'examples/paper-example.json', '--budget', '1KiB', '--planner', 'offsets/greedy-by-size', '--json');
    expect(run.status).toBe(0);
    expect((JSON.parse(run.stdout) as PlanJson).results[0].valid).toBe(true);
    const over = await memplanHere('plan', 'examples/paper-example.json', '--budget', '64B', '--planner', 'offsets/greedy-by-size');
    expect(over.status).toBe(1);
    expect(over.stderr).toMatch(/over the budget of 64/);
  });
});

describe.concurrent('memplan exec --budget', () => {
  it('streams the weights through one buffer, matches the unbudgeted outputs and says whether the budget was kept as measured', async ({ expect }) => {
    const run = await memplanHere('exec', 'zoo:mobilenet-v2?input=64', '--budget', '6MiB', '--repetitions', '1', '--warmup', '0', '--json');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as {
      planner: string;
      budget: number;
      footprint: number;
      matchesUnbudgeted: boolean;
      loading: string;
      share: { buffer: number };
      withinBudget: boolean;
      memory: { peakRssDelta: number };
    };
    expect(report).toMatchObject({ planner: 'budgeted/flexnn', budget: 6 * 2 ** 20, matchesUnbudgeted: true, loading: 'overlapped' });
    expect(report.footprint).toBeLessThanOrEqual(report.share.buffer);
    expect(report.withinBudget).toBe(report.memory.peakRssDelta <= 6 * 2 ** 20);
    expect(report.withinBudget).toBe(true);
  });

  it('reads the weights at a stated storage speed and says how it read them', async ({ expect }) => {
    const run = await memplanHere('exec', 'zoo:mobilenet-v2?input=64', '--budget', '6MiB', '--repetitions', '1', '--warmup', '0', '--storage-bandwidth', '200MB/s', '--json');
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout) as { reads: { direct: boolean; bytesPerSecond: number }; bytesLoaded: number; latencyMs: { min: number }; matchesUnbudgeted: boolean };
    expect(report.reads.bytesPerSecond).toBe(200e6);
    expect(report.matchesUnbudgeted).toBe(true);
    // Every weight byte is read once per inference, none sooner than the stated speed allows.
    expect(report.latencyMs.min).toBeGreaterThanOrEqual((report.bytesLoaded / 200e6) * 1000);
    const lines = await memplanHere('exec', 'zoo:mobilenet-v2?input=64', '--budget', '6MiB', '--repetitions', '1', '--warmup', '0', '--no-direct-io');
    expect(lines.stdout).toMatch(/^reads {7}through the page cache \(--no-direct-io\); at the device's own speed$/m);
  });

  it('adapts to budgets given with --adapt, a line per phase, and refuses them without a first budget or when unreadable', async ({ expect }) => {
    const run = await memplanHere('exec', 'zoo:mobilenet-v2?input=64', '--budget', '8MiB', '--adapt', '12MiB, 9MiB', '--repetitions', '1', '--warmup', '0');
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^adapt {7}to 12\.000 MiB in [\d.]+ ms \(planning [\d.]+\); mean [\d.]+ ms; peak - base [\d.]+ MiB, budget kept; outputs bit-identical$/m);
    expect(run.stdout).toMatch(/^adapt {7}to 9\.000 MiB in /m);
    expect(userErrorLine(await memplanHere('exec', 'zoo:blazeface', '--adapt', '12MiB'))).toBe('memplan: --adapt changes the budget of a budgeted run; give the first with --budget.');
    expect(userErrorLine(await memplanHere('exec', 'zoo:blazeface', '--budget', '8MiB', '--adapt', '12MiB,,9MiB'))).toBe(
      'memplan: --adapt takes budgets separated by commas (300MiB,200MiB), got "12MiB,,9MiB".',
    );
    expect(userErrorLine(await memplanHere('exec', 'zoo:blazeface', '--budget', '8MiB', '--adapt', '12XB'))).toMatch(/^memplan: --adapt: "12XB" is not a size/);
  });

  it('refuses a storage speed it cannot read, and read options without a budget', async ({ expect }) => {
    expect(userErrorLine(await memplanHere('exec', 'zoo:blazeface', '--budget', '8MiB', '--storage-bandwidth', 'fast'))).toMatch(/^memplan: --storage-bandwidth: "fast" is not a read speed; /);
    expect(userErrorLine(await memplanHere('exec', 'zoo:blazeface', '--storage-bandwidth', '150MB'))).toBe(
      'memplan: --storage-bandwidth says how the budgeted backend reads its weights file; give it with --budget (or --backend budgeted).',
    );
  });

  it('names the smallest budget of the whole run in one sentence when the budget is too small', async ({ expect }) => {
    const line = userErrorLine(await memplanHere('exec', 'zoo:mobilenet-v2?input=64', '--budget', '3MiB', '--repetitions', '1', '--warmup', '0'));
    expect(line).toMatch(
      /^memplan: zoo:mobilenet-v2\?input=64: budgeted\/flexnn cannot fit operator \d+ \(.+\) in a budget of 3\.000 MiB \(3145728 bytes\), which leaves a buffer of 0\.000 MiB \(0 bytes\) beside graph I\/O of [\d.]+ MiB \(\d+ bytes\) and the runtime's reserve of 4\.000 MiB \(4194304 bytes\); the smallest budget that works is [\d.]+ MiB \(\d+ bytes\) \(memplan plan --find-min-budget\)\.$/,
    );
  });

  it('rejects a loading it does not know and a budget with another backend', async ({ expect }) => {
    expect(userErrorLine(await memplanHere('exec', 'zoo:mobilenet-v2', '--budget', '12MiB', '--loading', 'sideways'))).toMatch(/--loading must be one of overlapped, on-demand/);
    expect(userErrorLine(await memplanHere('exec', 'zoo:mobilenet-v2', '--budget', '12MiB', '--backend', 'webgpu'))).toMatch(/--budget runs the budgeted backend/);
  });

  it('says what limits a budget too large to run (a WebAssembly memory), not that SIMD is missing', async ({ expect }) => {
    expect(userErrorLine(await memplanHere('exec', 'zoo:blazeface', '--budget', '4GiB'))).toBe(
      "memplan: --budget: a budget of 4294967296 bytes is more than the budgeted executor can hold: its one buffer lives in a WebAssembly memory of at most 4 GiB, so the largest budget it runs is 4294967232 bytes (4 GiB less the kernels' 64 bytes).",
    );
  });
});
