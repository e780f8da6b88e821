import { describe, expect, it } from 'vitest';
import { BodyBudget } from '../../../src/agent/http/body-budget.ts';

const settled = async (promise: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('the body budget', () => {
  it('holds one body per address: a second waits until the first is given back', async () => {
    const budget = new BodyBudget(100);
    const first = await budget.acquire('10.0.0.1', 10);
    const second = budget.acquire('10.0.0.1', 10);
    expect(await settled(second)).toBe(false);
    // Another address is not held up.
    const other = await budget.acquire('10.0.0.2', 10);
    expect(budget.heldBytes).toBe(20);
    first!();
    expect(await settled(second)).toBe(true);
    (await second)!();
    other!();
    expect(budget.heldBytes).toBe(0);
  });

  it('holds at most its total: bodies that do not fit wait, and go in the order they came', async () => {
    const budget = new BodyBudget(100);
    const a = await budget.acquire('a', 60);
    const b = budget.acquire('b', 60);
    const c = budget.acquire('c', 30);
    expect(await settled(b)).toBe(false);
    // c fits beside a: it does not wait for b.
    expect(await settled(c)).toBe(true);
    expect(budget.heldBytes).toBe(90);
    a!();
    expect(await settled(b)).toBe(true);
    expect(budget.heldBytes).toBe(90);
    // A body larger than the whole budget takes the whole budget, once it is free.
    const huge = budget.acquire('d', 1000);
    (await c)!();
    (await b)!();
    (await huge)!();
    expect(budget.heldBytes).toBe(0);
  });

  it('forgets a body whose client went away while it waited', async () => {
    const budget = new BodyBudget(10);
    const a = await budget.acquire('a', 10);
    const gone = new AbortController();
    const waiting = budget.acquire('b', 10, gone.signal);
    gone.abort();
    expect(await waiting).toBeUndefined();
    a!();
    // Its place was not kept: the budget is whole again.
    expect(budget.heldBytes).toBe(0);
    const again = await budget.acquire('b', 10);
    expect(budget.heldBytes).toBe(10);
    again!();
    again!();
    expect(budget.heldBytes).toBe(0);
  });
});
