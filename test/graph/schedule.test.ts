import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { executionOrder } from '../../src/graph/execution-order.ts';
import type { Graph } from '../../src/graph/ir.ts';
import { graphToProblem, plannedGraph, plannedGraphOptions, plannedProblem, type RecordOptions } from '../../src/graph/lifetimes.ts';
import { operatorLevels } from '../../src/graph/operator-levels.ts';
import { parseSchedule, scheduleSteps, type Schedule } from '../../src/graph/schedule.ts';
import { buildZooModel } from '../../src/models/zoo.ts';
import { planAndVerify } from '../../src/planners/plan-and-verify.ts';
import { PLANNERS } from '../../src/planners/registry.ts';
import { randomGraphs } from '../fixtures/graphs.ts';

const schedules = (): fc.Arbitrary<Schedule> =>
  fc.oneof(
    fc.constantFrom<Schedule>('sequential', 'levels'),
    fc.integer({ min: 1, max: 5 }).map((k): Schedule => `groups:${k}`),
  );
const names = (steps: readonly (readonly { name: string }[])[]): string[][] => steps.map((step) => step.map((node) => node.name));

describe('parseSchedule', () => {
  it('takes sequential, levels and groups:K for whole K >= 1, nothing else', () => {
    expect(parseSchedule('sequential')).toBe('sequential');
    expect(parseSchedule('levels')).toBe('levels');
    expect(parseSchedule('groups:1')).toBe('groups:1');
    expect(parseSchedule('groups:32')).toBe('groups:32');
    for (const bad of ['groups:0', 'groups:x', 'groups:', 'groups:-1', 'groups:1.5', 'groups:01', 'Groups:2', 'parallel', '', 2, null, undefined]) expect(parseSchedule(bad)).toBeUndefined();
  });
});

describe('schedule steps', () => {
  it('cover every node once, and a step reads only what earlier steps wrote', () => {
    fc.assert(
      fc.property(randomGraphs(), schedules(), (graph, schedule) => {
        const steps = scheduleSteps(graph, schedule);
        expect(
          steps
            .flat()
            .map((n) => n.name)
            .sort(),
        ).toEqual(graph.nodes.map((n) => n.name).sort());
        const written = new Map<string, number>();
        steps.forEach((step, s) => step.forEach((node) => node.outputs.forEach((name) => written.set(name, s))));
        steps.forEach((step, s) => step.forEach((node) => node.inputs.forEach((name) => expect(written.get(name) ?? -1).toBeLessThan(s))));
      }),
      { numRuns: 200 },
    );
  });

  it('sequential is one operator per step in execution order; groups:1 is levels; groups:K cuts each layer into min(K, size) runs of it', () => {
    fc.assert(
      fc.property(randomGraphs(), fc.integer({ min: 1, max: 6 }), (graph, k) => {
        expect(names(scheduleSteps(graph, 'sequential'))).toEqual(executionOrder(graph).map((n) => [n.name]));
        const levels = names(operatorLevels(executionOrder(graph)));
        expect(names(scheduleSteps(graph, 'levels'))).toEqual(levels);
        expect(names(scheduleSteps(graph, 'groups:1'))).toEqual(levels);
        const groups = names(scheduleSteps(graph, `groups:${k}`));
        let at = 0;
        for (const level of levels) {
          const runs = groups.slice(at, at + Math.min(k, level.length));
          expect(runs.flat()).toEqual(level);
          at += runs.length;
        }
        expect(at).toBe(groups.length);
      }),
      { numRuns: 200 },
    );
  });

  it('balances groups by output bytes: 32 equal paths split evenly, and the sizes decide where a layer is cut', () => {
    const paths = buildZooModel('zoo:resnext-50-paths?input=32');
    const steps = scheduleSteps(paths, 'groups:4');
    // A layer of the 32 paths' 3x3 convolutions alone: four groups of eight.
    for (const step of steps.filter((s) => s.some((n) => n.name.endsWith('/conv2') && n.name.includes('/path')))) expect(step).toHaveLength(8);
    // The first block's 1x1 layer also holds the projection shortcut (64 times a path's bytes): it gets a group of its own.
    const shortcut = steps.find((s) => s.some((n) => n.name === 'layer1.0/downsample'))!;
    expect(shortcut).toHaveLength(1);
    // One big output and three small ones in a layer: the big one gets a group of its own.
    const graph: Graph = {
      name: 'sizes',
      layout: 'NHWC',
      tensors: new Map(
        [
          ['in', 1],
          ['a', 100],
          ['b', 10],
          ['c', 10],
          ['d', 10],
        ].map(([name, size]) => [name as string, { name: name as string, shape: [1, size as number], dtype: 'float32' as const, constant: false }]),
      ),
      nodes: ['a', 'b', 'c', 'd'].map((name) => ({ op: 'Relu' as const, name, inputs: ['in'], outputs: [name] })),
      inputs: ['in'],
      outputs: ['a', 'b', 'c', 'd'],
    };
    expect(names(scheduleSteps(graph, 'groups:2'))).toEqual([['a'], ['b', 'c', 'd']]);
  });
});

describe('records over steps', () => {
  /** The records as the paper defines them, written out here independently: first and last operator index over the execution order. */
  function referenceRecords(graph: Graph, options: RecordOptions): [string, number, number][] {
    const order = executionOrder(graph);
    const excluded = new Set(options.includeGraphIO ? [] : [...graph.inputs, ...graph.outputs]);
    const span = new Map<string, [number, number]>();
    order.forEach((node, k) => {
      for (const name of [...node.inputs, ...node.outputs]) {
        if (name === '' || excluded.has(name) || graph.tensors.get(name)?.constant !== false) continue;
        span.set(name, [span.get(name)?.[0] ?? k, k]);
      }
    });
    if (options.includeGraphIO) {
      for (const name of graph.inputs) if (span.has(name)) span.get(name)![0] = 0;
      for (const name of graph.outputs) if (span.has(name)) span.get(name)![1] = order.length - 1;
    }
    return [...span].map(([name, [first, last]]) => [name, first, last]);
  }

  it('the sequential schedule gives the records of one operator per step, as before schedules (zoo and random graphs)', () => {
    const zoo = ['zoo:blazeface', 'zoo:mobilenet-v2', 'zoo:inception-v3', 'zoo:googlenet'].map((source) => buildZooModel(source));
    for (const graph of zoo) {
      for (const includeGraphIO of [false, true]) {
        const problem = graphToProblem(graph, { schedule: 'sequential', includeGraphIO });
        expect(problem.records.map((r) => [r.id, r.first, r.last])).toEqual(referenceRecords(graph, { includeGraphIO }));
        expect(graphToProblem(graph, { includeGraphIO })).toEqual(problem);
        expect(problem.operatorCount).toBe(graph.nodes.length);
      }
    }
    fc.assert(
      fc.property(randomGraphs(), fc.boolean(), (graph, includeGraphIO) => {
        expect(graphToProblem(graph, { includeGraphIO, schedule: 'sequential' }).records.map((r) => [r.id, r.first, r.last])).toEqual(referenceRecords(graph, { includeGraphIO }));
      }),
      { numRuns: 100 },
    );
  });

  it('a parallel schedule lays the graph out step by step and its records live over steps', () => {
    fc.assert(
      fc.property(randomGraphs(), schedules(), (graph, schedule) => {
        const { graph: planned, problem, steps } = plannedProblem(graph, { schedule });
        expect(planned.nodes.map((n) => n.name)).toEqual(steps.flat().map((n) => n.name));
        expect(problem.operatorCount).toBe(Math.max(steps.length, 1));
        const stepOf = new Map(steps.flatMap((step, s) => step.map((node) => [node, s] as const)));
        for (const record of problem.records) {
          const touching = planned.nodes.filter((n) => n.inputs.includes(record.id) || n.outputs.includes(record.id)).map((n) => stepOf.get(n)!);
          expect([record.first, record.last]).toEqual([Math.min(...touching), Math.max(...touching)]);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('a planned graph planned again under the options a remote agent gets gives the same steps and records', () => {
    fc.assert(
      fc.property(randomGraphs(), schedules(), fc.constantFrom<RecordOptions['order']>('given', 'memory-aware'), (graph, schedule, order) => {
        const options: RecordOptions = { schedule, order };
        const first = plannedProblem(graph, options);
        const again = plannedProblem(plannedGraph(graph, options), plannedGraphOptions(options));
        expect(names(again.steps)).toEqual(names(first.steps));
        expect(again.problem.records).toEqual(first.problem.records);
      }),
      { numRuns: 150 },
    );
  });
});

describe("a step's tensors never share memory", () => {
  const planners = PLANNERS.filter((p) => !p.searches);
  it.each(planners.map((p) => [p.id, p] as const))('%s', (_, planner) => {
    fc.assert(
      fc.property(randomGraphs({ maxNodes: 24 }), schedules(), fc.constantFrom(1, 8), (graph, schedule, alignment) => {
        const { problem, steps } = plannedProblem(graph, { schedule });
        if (planner.maxRecords !== undefined && problem.records.length > planner.maxRecords) return;
        const plan = planAndVerify(planner, problem, { alignment });
        expect(plan.valid).toBe(true);
        const at = new Map(problem.records.map((r, i) => [r.id, [plan.offsets[i], plan.offsets[i] + r.size] as const]));
        for (const step of steps) {
          const used = [...new Set(step.flatMap((node) => [...node.inputs, ...node.outputs]))].filter((name) => at.has(name));
          for (let i = 0; i < used.length; i++) {
            for (let j = i + 1; j < used.length; j++) {
              const [a0, a1] = at.get(used[i])!;
              const [b0, b1] = at.get(used[j])!;
              expect(a1 <= b0 || b1 <= a0 || a0 === a1 || b0 === b1, `${used[i]} and ${used[j]} share bytes in a step`).toBe(true);
            }
          }
        }
      }),
      { numRuns: 40 },
    );
  });
});
