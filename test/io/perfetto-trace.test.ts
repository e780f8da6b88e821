import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Problem } from '../../src/core/problem.ts';
import type { OperatorSpan } from '../../src/backends/backend.ts';
import { planTrace, runTrace, type TraceEvent, type TraceFile } from '../../src/io/perfetto-trace.ts';
import { planAndVerify } from '../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../src/planners/registry.ts';
import { problems } from '../fixtures/arbitraries.ts';
import { problemOf } from '../fixtures/problems.ts';

/**
 * The trace event format (the JSON object form) as Perfetto and chrome://tracing read it:
 * every event has a name, a phase and a pid; complete slices ('X') a thread, a start and a
 * duration >= 0; counters ('C') a start and numeric args; metadata ('M') args.
 */
function expectTraceEventFormat(trace: TraceFile): void {
  const parsed = JSON.parse(JSON.stringify(trace)) as { traceEvents: Record<string, unknown>[] };
  expect(Array.isArray(parsed.traceEvents)).toBe(true);
  for (const e of parsed.traceEvents) {
    expect(typeof e.name).toBe('string');
    expect(['X', 'C', 'M', 'i']).toContain(e.ph);
    expect(Number.isInteger(e.pid)).toBe(true);
    if (e.ph === 'X') {
      expect(Number.isInteger(e.tid)).toBe(true);
      expect(Number.isFinite(e.ts)).toBe(true);
      expect(e.dur as number).toBeGreaterThanOrEqual(0);
    }
    if (e.ph === 'C') {
      expect(Number.isFinite(e.ts)).toBe(true);
      for (const value of Object.values(e.args as object)) expect(Number.isFinite(value)).toBe(true);
    }
    if (e.ph === 'M') expect(['process_name', 'thread_name', 'thread_sort_index']).toContain(e.name);
  }
}

const slices = (trace: TraceFile): TraceEvent[] => trace.traceEvents.filter((e) => e.ph === 'X');
const counter = (trace: TraceFile, name: string): TraceEvent[] => trace.traceEvents.filter((e) => e.ph === 'C' && e.name === name);

function liveAt(problem: Problem, step: number): number {
  return problem.records.filter((r) => r.first <= step && step <= r.last).reduce((sum, r) => sum + r.size, 0);
}

describe('planTrace', () => {
  it('draws every tensor of an offsets plan at its offset over its lifetime, one track per offset, tracks never overlapping in time', () => {
    fc.assert(
      fc.property(problems({ maxRecords: 25 }), (problem) => {
        const plan = planAndVerify(findPlanner('offsets/greedy-by-size'), problem);
        const trace = planTrace(problem, plan);
        expectTraceEventFormat(trace);
        const drawn = slices(trace);
        expect(drawn).toHaveLength(problem.records.length);
        const trackNames = new Map(trace.traceEvents.filter((e) => e.name === 'thread_name').map((e) => [e.tid, String(e.args?.name)]));
        for (const slice of drawn) {
          const i = problem.records.findIndex((r) => r.id === slice.name);
          const record = problem.records[i];
          expect(slice.ts).toBe(record.first);
          expect(slice.dur).toBe(record.last - record.first + 1);
          expect(slice.args).toMatchObject({ size: record.size, offset: plan.offsets[i] });
          expect(trackNames.get(slice.tid)).toBe(`offset ${plan.offsets[i]}`);
        }
        // Slices on one track are disjoint in time wherever both hold bytes (the verifier's guarantee, seen in the trace).
        const byTrack = new Map<number | undefined, TraceEvent[]>();
        for (const s of drawn) if ((s.args?.size as number) > 0) byTrack.set(s.tid, [...(byTrack.get(s.tid) ?? []), s]);
        for (const track of byTrack.values()) {
          const sorted = track.sort((a, b) => (a.ts as number) - (b.ts as number));
          for (let k = 1; k < sorted.length; k++) expect(sorted[k].ts as number).toBeGreaterThanOrEqual((sorted[k - 1].ts as number) + (sorted[k - 1].dur as number));
        }
        const live = counter(trace, 'live bytes');
        expect(live).toHaveLength(problem.operatorCount);
        for (const point of live) expect(point.args?.bytes).toBe(liveAt(problem, point.ts as number));
        expect(counter(trace, 'footprint')[0].args?.bytes).toBe(plan.footprint);
        expect(trace.otherData.lowerBound as number).toBeLessThanOrEqual(plan.footprint);
      }),
      { numRuns: 60 },
    );
  });

  it('puts the tensors of a shared-objects plan on the track of their object, named with its size', () => {
    const problem = problemOf([
      [100, 0, 1],
      [40, 1, 2],
      [100, 2, 3],
      [40, 3, 4],
    ]);
    const plan = planAndVerify(findPlanner('shared-objects/greedy-by-size'), problem);
    const trace = planTrace(problem, plan, new Map([['t0', 'conv1']]));
    expectTraceEventFormat(trace);
    const names = new Map(trace.traceEvents.filter((e) => e.name === 'thread_name').map((e) => [e.tid, String(e.args?.name)]));
    for (const slice of slices(trace)) {
      const i = Number(slice.name.slice(1));
      const id = plan.objects!.ids[i];
      expect(names.get(slice.tid)).toBe(`object ${id} (${plan.objects!.sizes[id]} bytes)`);
      expect(slice.args?.object).toBe(id);
    }
    expect(slices(trace).find((s) => s.name === 't0')?.args?.producer).toBe('conv1');
    expect(names.size).toBe(plan.objects!.sizes.length);
  });
});

describe('runTrace', () => {
  const problem = problemOf([
    [1000, 0, 1],
    [500, 1, 2],
    [200, 2, 2],
  ]);
  const t0 = 1_700_000_000_000;
  const spans: OperatorSpan[] = [
    { node: 'conv', op: 'Conv', step: 0, thread: 'compute', start: t0, end: t0 + 2 },
    { node: 'relu', op: 'Relu', step: 1, thread: 'compute', start: t0 + 2.5, end: t0 + 3 },
    { node: 'add', op: 'Add', step: 2, thread: 'compute', start: t0 + 3, end: t0 + 4.25 },
    { node: 't2', op: 'load', step: 2, thread: 'loader', start: t0 + 0.5, end: t0 + 1.5 },
  ];
  const trace = runTrace(spans, problem, { source: 'fixture', planner: 'offsets/greedy-by-size', backend: 'budgeted', footprint: 1500 });

  it('puts each thread on a track of its own and every span on its thread, in microseconds from the first start', () => {
    expectTraceEventFormat(trace);
    const threads = new Map(trace.traceEvents.filter((e) => e.name === 'thread_name').map((e) => [String(e.args?.name), e.tid]));
    expect([...threads.keys()]).toEqual(['compute', 'loader']);
    const drawn = slices(trace);
    expect(drawn).toHaveLength(4);
    const conv = drawn.find((s) => s.name === 'conv')!;
    expect(conv).toMatchObject({ ts: 0, dur: 2000, tid: threads.get('compute'), cat: 'Conv' });
    expect(drawn.find((s) => s.name === 'add')).toMatchObject({ ts: 3000, dur: 1250 });
    const load = drawn.find((s) => s.name === 't2')!;
    expect(load).toMatchObject({ ts: 500, dur: 1000, tid: threads.get('loader'), cat: 'load' });
    expect(load.args).toMatchObject({ bytes: 200, forStep: 2 });
  });

  it("sets the live-bytes counter to the plan's live bytes when each step's first operator starts (loads do not move it)", () => {
    const live = counter(trace, 'live bytes');
    expect(live.map((e) => [e.ts, e.args?.bytes])).toEqual([
      [0, 1000],
      [2500, 1500],
      [3000, 700],
    ]);
    expect(trace.otherData).toMatchObject({ operators: 4, threads: ['compute', 'loader'], memplan: 'run' });
  });

  it('orders worker tracks by number', () => {
    const workers = ['worker 10', 'worker 2', 'worker 1'].map((thread, k) => ({ node: `n${k}`, op: 'Relu', step: 0, thread, start: t0 + k, end: t0 + k + 1 }));
    const names = runTrace(workers, problem, { source: 'x', planner: 'p', backend: 'cpu-parallel', footprint: 0 })
      .traceEvents.filter((e) => e.name === 'thread_name')
      .map((e) => e.args?.name);
    expect(names).toEqual(['worker 1', 'worker 2', 'worker 10']);
  });
});
