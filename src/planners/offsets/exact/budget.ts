/**
 * How long a search may run: a wall-clock deadline and a number of search nodes,
 * whichever runs out first. A child budget has its own limits and also draws on its
 * parent's, so a portfolio of searches can share one budget. A run stopped by nodes
 * alone does the same work on every machine.
 */
export class Budget {
  /** Nodes counted through this budget. */
  nodesUsed = 0;
  private stopped = false;

  private constructor(
    private readonly deadline: number,
    private readonly nodeLimit: number,
    private readonly parent: Budget | undefined,
  ) {}

  static of(timeLimitMs: number, nodeLimit = Infinity): Budget {
    return new Budget(performance.now() + timeLimitMs, nodeLimit, undefined);
  }

  /** A budget of at most `nodes` more nodes and `ms` more milliseconds, within this one. */
  child(nodes = Infinity, ms = Infinity): Budget {
    return new Budget(Math.min(this.deadline, performance.now() + ms), nodes, this);
  }

  /** True once this budget (or an ancestor) has run out. */
  spent(): boolean {
    if (!this.stopped && (this.nodesUsed >= this.nodeLimit || performance.now() >= this.deadline || (this.parent?.spent() ?? false))) {
      this.stopped = true;
    }
    return this.stopped;
  }

  remainingMs(): number {
    return this.spent() ? 0 : Math.max(0, this.deadline - performance.now());
  }

  /** Counts one search node; false when the search must stop. Reads the clock every 1024 nodes. */
  tick(): boolean {
    if (this.stopped) return false;
    this.nodesUsed++;
    if ((this.parent !== undefined && !this.parent.tick()) || this.nodesUsed >= this.nodeLimit) {
      this.stopped = true;
      return false;
    }
    if ((this.nodesUsed & 1023) === 0 && performance.now() >= this.deadline) this.stopped = true;
    return !this.stopped;
  }
}
