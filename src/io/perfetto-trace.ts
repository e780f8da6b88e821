import type { OperatorSpan } from '../backends/backend.ts';
import { lowerBounds } from '../core/bounds.ts';
import { operatorBreadths } from '../core/profiles.ts';
import type { Problem } from '../core/problem.ts';
import type { VerifiedResult } from '../planners/plan-and-verify.ts';

/**
 * Plans and runs as Chrome trace event files (JSON), which Perfetto (ui.perfetto.dev) and
 * chrome://tracing open: what memory profilers of this field export (ExecuTorch's
 * activation memory profiler, PyTorch's memory snapshots). Times are in microseconds.
 */
export interface TraceEvent {
  readonly name: string;
  readonly ph: 'X' | 'C' | 'M' | 'i';
  readonly pid: number;
  readonly tid?: number;
  readonly ts?: number;
  readonly dur?: number;
  readonly cat?: string;
  readonly s?: 't' | 'p' | 'g';
  readonly args?: Readonly<Record<string, unknown>>;
}

export interface TraceFile {
  readonly traceEvents: readonly TraceEvent[];
  readonly displayTimeUnit: 'ms' | 'ns';
  readonly otherData: Readonly<Record<string, unknown>>;
}

const metadata = (pid: number, tid: number | undefined, kind: 'process_name' | 'thread_name' | 'thread_sort_index', args: Record<string, unknown>): TraceEvent => ({
  name: kind,
  ph: 'M',
  pid,
  ...(tid === undefined ? {} : { tid }),
  args,
});

/**
 * The most operator steps a plan trace draws: it holds two counter samples per step, and
 * 10^6 steps already make a file of about 150 MB.
 */
export const MAX_PLAN_TRACE_STEPS = 1_000_000;

/**
 * A verified plan as a trace: operator step k is microsecond k; every tensor a slice over
 * its lifetime on the track of its shared object (shared objects) or of its offset
 * (offsets: tensors placed at the same offset never live at once, so a track never holds
 * two slices at a time), with its size, offset and producer in the slice's args; counter
 * tracks of the live bytes at every step and of the lower bound of the plan's approach.
 */
export function planTrace(problem: Problem, plan: VerifiedResult, producers: ReadonlyMap<string, string> = new Map()): TraceFile {
  const pid = 1;
  const events: TraceEvent[] = [metadata(pid, undefined, 'process_name', { name: `${problem.name}: ${plan.planner} (${plan.approach}, ${plan.footprint} bytes)` })];
  const trackOf = new Map<string, number>();
  const trackNames: string[] = [];
  const track = (name: string): number => {
    let tid = trackOf.get(name);
    if (tid === undefined) {
      tid = trackNames.push(name);
      trackOf.set(name, tid);
    }
    return tid;
  };
  // Tracks in memory order: objects by id, offsets from the bottom of the arena up.
  const order = problem.records.map((_, i) => i).sort((a, b) => (plan.objects ? plan.objects.ids[a] - plan.objects.ids[b] : plan.offsets[a] - plan.offsets[b]) || a - b);
  for (const i of order) {
    const record = problem.records[i];
    const tid = plan.objects ? track(`object ${plan.objects.ids[i]} (${plan.objects.sizes[plan.objects.ids[i]]} bytes)`) : track(`offset ${plan.offsets[i]}`);
    events.push({
      name: record.id,
      cat: 'tensor',
      ph: 'X',
      pid,
      tid,
      ts: record.first,
      dur: record.last - record.first + 1,
      args: {
        size: record.size,
        offset: plan.offsets[i],
        first: record.first,
        last: record.last,
        ...(plan.objects ? { object: plan.objects.ids[i] } : {}),
        ...(producers.has(record.id) ? { producer: producers.get(record.id) } : {}),
      },
    });
  }
  trackNames.forEach((name, k) => {
    events.push(metadata(pid, k + 1, 'thread_name', { name }));
    events.push(metadata(pid, k + 1, 'thread_sort_index', { sort_index: k + 1 }));
  });
  const live = operatorBreadths(problem);
  const bounds = lowerBounds(problem);
  const bound = plan.approach === 'offsets' ? bounds.offsets : bounds.sharedObjects;
  for (let step = 0; step < problem.operatorCount; step++) {
    events.push({ name: 'live bytes', ph: 'C', pid, ts: step, args: { bytes: live[step] } });
    events.push({ name: 'lower bound', ph: 'C', pid, ts: step, args: { bytes: bound } });
  }
  events.push({ name: 'footprint', ph: 'C', pid, ts: 0, args: { bytes: plan.footprint } });
  return {
    traceEvents: events,
    displayTimeUnit: 'ns',
    otherData: { source: problem.name, planner: plan.planner, approach: plan.approach, footprint: plan.footprint, lowerBound: bound, timeUnit: 'one microsecond per operator step', memplan: 'plan' },
  };
}

/** What a run's trace names in its title and otherData. */
export interface RunTraceMeta {
  readonly source: string;
  readonly planner: string;
  readonly backend: string;
  readonly footprint: number;
}

/** The op of a span that is a read of weights by a loader thread (the budgeted executor), not an operator. */
export const LOAD = 'load';

/**
 * One traced inference as a trace: a track per thread ('compute'; 'worker 1'... on the
 * pool; 'loader' beside 'compute' in the budgeted executor; 'device', WebGPU's queue), every operator (and every
 * read of weights) a slice on its thread's track at the time it ran (microseconds from the
 * first slice's start), and a counter of the bytes the plan holds live in each step, set
 * when the step's first operator starts. The bytes are the planned records' (tensors, and
 * weights in a budgeted plan), the figure a memory planner controls.
 */
export function runTrace(spans: readonly OperatorSpan[], problem: Problem, meta: RunTraceMeta): TraceFile {
  const pid = 1;
  const events: TraceEvent[] = [metadata(pid, undefined, 'process_name', { name: `${meta.source}: ${meta.planner} on ${meta.backend} (${meta.footprint} bytes planned)` })];
  const origin = spans.length === 0 ? 0 : Math.min(...spans.map((s) => s.start));
  const us = (ms: number): number => Math.round((ms - origin) * 1000 * 1000) / 1000;
  // Threads by name, numbers in order: compute, or worker 1, worker 2, ..., worker 10.
  const threads = [...new Set(spans.map((s) => s.thread))].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  threads.forEach((name, k) => {
    events.push(metadata(pid, k + 1, 'thread_name', { name }));
    events.push(metadata(pid, k + 1, 'thread_sort_index', { sort_index: k + 1 }));
  });
  const live = operatorBreadths(problem);
  const sizes = new Map(problem.records.map((r) => [r.id, r.size]));
  const stepStart = new Map<number, number>();
  for (const span of spans) {
    const load = span.op === LOAD;
    events.push({
      name: span.node,
      cat: load ? 'load' : span.op,
      ph: 'X',
      pid,
      tid: threads.indexOf(span.thread) + 1,
      ts: us(span.start),
      dur: Math.max(0, us(span.end) - us(span.start)),
      args: load ? { record: span.node, bytes: sizes.get(span.node) ?? 0, forStep: span.step } : { op: span.op, step: span.step, liveBytes: live[span.step] ?? 0 },
    });
    if (!load) stepStart.set(span.step, Math.min(stepStart.get(span.step) ?? Infinity, span.start));
  }
  for (const [step, start] of [...stepStart].sort((a, b) => a[0] - b[0])) {
    events.push({ name: 'live bytes', ph: 'C', pid, ts: us(start), args: { bytes: live[step] ?? 0 } });
  }
  events.push({ name: 'footprint', ph: 'C', pid, ts: 0, args: { bytes: meta.footprint } });
  const wall = spans.length === 0 ? 0 : Math.max(...spans.map((s) => s.end)) - origin;
  return {
    traceEvents: events,
    displayTimeUnit: 'ms',
    otherData: { ...meta, operators: spans.length, threads, wallMs: wall, memplan: 'run' },
  };
}
