import { MinHeap } from '../../core/min-heap.ts';

/**
 * The queue TFLite's in-order strategies keep of objects still in use, ordered by the
 * last operator of their current tensor (ties: lower object id first). `releaseBefore`
 * hands back, in that order, every object free at operator `first`.
 */
export class ObjectsInUse {
  private readonly heap = new MinHeap<{ last: number; id: number }>((a, b) => a.last < b.last || (a.last === b.last && a.id < b.id));

  use(id: number, last: number): void {
    this.heap.push({ last, id });
  }

  releaseBefore(first: number, release: (id: number) => void): void {
    for (let top = this.heap.peek(); top !== undefined && top.last < first; top = this.heap.peek()) {
      this.heap.pop();
      release(top.id);
    }
  }
}
