import type { Graph } from '../../../graph/ir.ts';
import type { Problem } from '../../../core/problem.ts';
import { planAndVerify, type VerifiedResult } from '../../../planners/plan-and-verify.ts';
import { naive } from '../../../planners/shared-objects/naive.ts';
import type { BackendMemory } from '../../backend.ts';
import { BackendError } from '../../backend-error.ts';
import { checkJob } from '../../../agent/check-job.ts';
import { decodeJob } from '../../../agent/wire.ts';
import { bitIdentical, seededInputs } from '../../run-data.ts';
import type { GpuContext } from '../../webgpu/gpu-context.ts';
import { prepareOnDevice } from '../../webgpu/network.ts';
import type { PageResult } from '../protocol.ts';

/** What the page tells its user and the hub while a job runs. */
export interface JobHooks {
  progress(line: string): void;
  /** True once the hub has called the job off: the page stops at the next inference. */
  cancelled(): boolean;
}

interface PlanRun {
  readonly samples: number[];
  readonly deviceSamples: number[];
  readonly outputs: Map<string, Float32Array>;
  readonly memory: BackendMemory;
  readonly dispatches: number;
}

/**
 * Runs one job (the agent's wire format) as the agent's job process does, on the page's
 * WebGPU device: the job is checked and its plan verified here again, against records this
 * page derives from the graph; the network runs inside the plan (warm-up, then timed
 * inferences), then inside the naive plan on the same inputs, and the outputs are compared
 * bit for bit. The plan's network is released before the naive one is prepared, so that
 * its buffers are counted alone.
 */
export async function runJob(text: string, context: GpuContext, hooks: JobHooks): Promise<PageResult> {
  const job = decodeJob(text);
  // The page holds no limit of its own on tensor bytes: the device refuses buffers it cannot make.
  const checked = checkJob(job, [{ kind: 'browser', requiredAlignment: context.limits.storageOffsetAlignment }], Number.POSITIVE_INFINITY);
  const { graph } = checked.job;
  // checkJob verified the plan against the records the page derived: it refuses an invalid one.
  const { plan } = checked;
  const inputs = seededInputs(graph, job.run.seed);
  hooks.progress(`${graph.name}: ${job.plan.planner}, ${job.run.warmup} warm-up and ${job.run.repetitions} timed inferences`);
  const measured = await runPlan(context, graph, checked.problem, plan, inputs, job.run.warmup, job.run.repetitions, hooks);
  let matchesNaive: boolean | null = null;
  if (job.run.verifyByExecution) {
    hooks.progress(`${graph.name}: the naive plan, for the outputs`);
    const reference = planAndVerify(naive, checked.problem, { alignment: checked.alignment });
    const naiveRun = await runPlan(context, graph, checked.problem, reference, inputs, 0, 0, hooks);
    matchesNaive = bitIdentical(measured.outputs, naiveRun.outputs);
  }
  return {
    planner: job.plan.planner,
    footprint: plan.footprint,
    samples: measured.samples,
    deviceSamples: measured.deviceSamples,
    matchesNaive,
    memory: measured.memory,
    device: context.info,
    dispatches: measured.dispatches,
    clockResolutionMs: clockResolution(),
  };
}

async function runPlan(
  context: GpuContext,
  graph: Graph,
  problem: Problem,
  plan: VerifiedResult,
  inputs: Map<string, Float32Array>,
  warmup: number,
  repetitions: number,
  hooks: JobHooks,
): Promise<PlanRun> {
  const prepared = await prepareOnDevice(context, { graph, problem, plan });
  try {
    const samples: number[] = [];
    const deviceSamples: number[] = [];
    let outputs = new Map<string, Float32Array>();
    for (let k = 0; k < warmup + repetitions; k++) {
      if (hooks.cancelled()) throw new BackendError('the job was called off.');
      const started = performance.now();
      outputs = await prepared.infer(inputs);
      const took = performance.now() - started;
      if (k >= warmup) {
        samples.push(took);
        if (prepared.lastDeviceMs !== undefined) deviceSamples.push(prepared.lastDeviceMs);
      }
      // A turn of the event loop between inferences (outside the timed part): the page keeps
      // saying it is alive, and hears of a job called off.
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    if (warmup + repetitions === 0) outputs = await prepared.infer(inputs);
    const held = prepared.memory();
    let inputBytes = 0;
    for (const values of inputs.values()) inputBytes += values.byteLength;
    // The outputs live in arrays the network reuses: copied before it goes.
    const kept = new Map([...outputs].map(([name, values]) => [name, values.slice()]));
    // The page's own arrays of the inputs count with the graph I/O, as in the measured process.
    return { samples, deviceSamples, outputs: kept, memory: { ...held, io: held.io + inputBytes }, dispatches: prepared.dispatches };
  } finally {
    prepared.dispose();
  }
}

/** The smallest step of performance.now seen (ms): browsers coarsen it (100 µs, 5 µs when cross-origin isolated). */
function clockResolution(): number {
  let smallest = Infinity;
  for (let k = 0; k < 5; k++) {
    const start = performance.now();
    let now = start;
    while (now === start) now = performance.now();
    smallest = Math.min(smallest, now - start);
  }
  return Math.round(smallest * 1e6) / 1e6;
}
