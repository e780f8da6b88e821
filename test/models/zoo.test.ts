import { describe, expect, it } from 'vitest';
import { lowerBounds } from '../../src/core/bounds.ts';
import { naiveFootprint } from '../../src/core/problem.ts';
import { executionOrder } from '../../src/graph/execution-order.ts';
import { graphToProblem } from '../../src/graph/lifetimes.ts';
import { buildZooModel, ZOO } from '../../src/models/zoo.ts';
import { ZooError } from '../../src/models/zoo-error.ts';
import { planAndVerify } from '../../src/planners/plan-and-verify.ts';
import { findPlanner } from '../../src/planners/registry.ts';

const fp32 = (source: string) => graphToProblem(buildZooModel(source), { elementSize: 4 });
const MiB = 2 ** 20;

describe('the zoo', () => {
  it('has the six networks of the paper first', () => {
    expect(ZOO.slice(0, 6).map((m) => m.name)).toEqual(['mobilenet-v1', 'mobilenet-v2', 'deeplab-v3', 'inception-v3', 'posenet', 'blazeface']);
  });

  it.each(ZOO.map((m) => m.name))('%s is stored in topological order and gives verified plans', (name) => {
    const graph = buildZooModel(`zoo:${name}`);
    expect(executionOrder(graph)).toBe(graph.nodes);
    const problem = graphToProblem(graph);
    expect(planAndVerify(findPlanner('offsets/greedy-by-size'), problem).valid).toBe(true);
  });

  it("MobileNet v2 has the blog's 65 buffers, about 26 MB naively", () => {
    const problem = fp32('zoo:mobilenet-v2');
    expect(problem.records).toHaveLength(65);
    expect(naiveFootprint(problem) / MiB).toBeGreaterThan(26.2);
    expect(naiveFootprint(problem) / MiB).toBeLessThan(26.4);
  });

  it('DeepLab v3: Greedy by Size for offsets is 7-8% above the bound and about 10.5x below naive (paper)', () => {
    const problem = fp32('zoo:deeplab-v3');
    const result = planAndVerify(findPlanner('offsets/greedy-by-size'), problem);
    expect(result.ratioToLowerBound).toBeGreaterThan(1.07);
    expect(result.ratioToLowerBound).toBeLessThan(1.08);
    expect(naiveFootprint(problem) / result.footprint).toBeGreaterThan(10.3);
    expect(naiveFootprint(problem) / result.footprint).toBeLessThan(10.7);
  });

  it.each(['mobilenet-v1', 'mobilenet-v2', 'inception-v3', 'posenet', 'blazeface'])('%s: Greedy by Size for offsets meets the lower bound (paper)', (name) => {
    const problem = fp32(`zoo:${name}`);
    expect(planAndVerify(findPlanner('offsets/greedy-by-size'), problem).footprint).toBe(lowerBounds(problem).offsets);
  });

  it('takes parameters the network allows', () => {
    const small = buildZooModel('zoo:mobilenet-v2?input=96&width=0.5&batch=2');
    expect(small.tensors.get(small.inputs[0])?.shape).toEqual([2, 96, 96, 3]);
    const half = graphToProblem(buildZooModel('zoo:blazeface?dtype=float16'));
    expect(naiveFootprint(half) * 2).toBe(naiveFootprint(fp32('zoo:blazeface')));
  });

  it('refuses what it cannot build, naming the choices', () => {
    expect(() => buildZooModel('zoo:resnet-50')).toThrow(ZooError);
    expect(() => buildZooModel('zoo:resnet-50')).toThrow(/mobilenet-v1, mobilenet-v2/);
    expect(() => buildZooModel('zoo:inception-v3?width=0.5')).toThrow(/fixed/);
    expect(() => buildZooModel('zoo:posenet?colour=red')).toThrow(/unknown parameter "colour"/);
    expect(() => buildZooModel('zoo:posenet?input=abc')).toThrow(/whole number/);
    expect(() => buildZooModel('zoo:posenet?dtype=float128')).toThrow(/element type/);
  });
});
