import { describe, expect, it } from 'vitest';
import { executionOrder } from '../../src/graph/execution-order.ts';
import { operatorLevels } from '../../src/graph/operator-levels.ts';
import { NetworkBuilder } from '../../src/models/builder.ts';

const names = (levels: { name: string }[][]): string[][] => levels.map((level) => level.map((node) => node.name));

describe('operator levels (maxdist layers)', () => {
  it('a chain has one operator per layer', () => {
    const b = new NetworkBuilder('chain');
    let x = b.input('in', [1, 4, 4, 2]);
    for (const name of ['a', 'b', 'c']) x = b.unary(name, 'Relu', x);
    const graph = b.build([x]);
    expect(names(operatorLevels(executionOrder(graph)))).toEqual([['a'], ['b'], ['c']]);
  });

  it('a diamond puts its two sides in one layer, the join after both', () => {
    const b = new NetworkBuilder('diamond');
    const x = b.input('in', [1, 4, 4, 2]);
    const top = b.unary('top', 'Relu', x);
    const left = b.unary('left', 'Relu', top);
    const right = b.unary('right', 'Sigmoid', top);
    const graph = b.build([b.add('join', left, right)]);
    expect(names(operatorLevels(executionOrder(graph)))).toEqual([['top'], ['left', 'right'], ['join']]);
  });

  it('two towers of different heights: a layer is the longest path, so the short tower sits low and the join waits for the tall one', () => {
    const b = new NetworkBuilder('towers');
    const x = b.input('in', [1, 4, 4, 2]);
    const tall1 = b.unary('tall1', 'Relu', x);
    const tall2 = b.unary('tall2', 'Relu', tall1);
    const tall3 = b.unary('tall3', 'Relu', tall2);
    const short1 = b.unary('short1', 'Sigmoid', x);
    const graph = b.build([b.add('join', tall3, short1)]);
    expect(names(operatorLevels(executionOrder(graph)))).toEqual([['tall1', 'short1'], ['tall2'], ['tall3'], ['join']]);
  });

  it('keeps the given order inside a layer and never puts a node beside one it reads', () => {
    const b = new NetworkBuilder('fan');
    const x = b.input('in', [1, 4, 4, 2]);
    const outs = ['p3', 'p1', 'p2'].map((name) => b.unary(name, 'Relu', x));
    const graph = b.build([b.concat('cat', outs)]);
    const levels = operatorLevels(executionOrder(graph));
    expect(names(levels)).toEqual([['p3', 'p1', 'p2'], ['cat']]);
    levels.forEach((level, i) => {
      const earlier = new Set(
        levels
          .slice(0, i)
          .flat()
          .flatMap((node) => node.outputs),
      );
      for (const node of level) for (const input of node.inputs) if (graph.tensors.get(input)?.constant === false && input !== 'in') expect(earlier.has(input)).toBe(true);
    });
  });
});
