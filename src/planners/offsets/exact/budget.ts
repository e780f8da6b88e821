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
    private readonly every: Checkpoint | undefined,
  ) {}

  /**
   * A root budget. `checkpoint`, when given, is called after every `checkpoint.nodes`
   * nodes counted here (portfolio.ts meets the other thread there); it returns false to
   * stop the search. Being a count of nodes, not a clock, its calls fall at the same
   * points of the search on every machine.
   */
  static of(timeLimitMs: number, nodeLimit = Infinity, checkpoint?: Checkpoint): Budget {
    return new Budget(performance.now() + timeLimitMs, nodeLimit, undefined, checkpoint);
  }

  /** A budget of at most `nodes` more nodes and `ms` more milliseconds, within this one. */
  child(nodes = Infinity, ms = Infinity): Budget {
    return new Budget(Math.min(this.deadline, performance.now() + ms), nodes, this, undefined);
  }

  /** Stops this budget (and so every child) now, as when it runs out. */
  stop(): void {
    this.stopped = true;
  }

  /** True once this budget (or an ancestor) has run out. */
  spent(): boolean {
    if (!this.stopped && (this.nodesUsed >= this.nodeLimit || performance.now() >= this.deadline || (this.parent?.spent() ?? false))) {
      this.stopped = true;
    }
    return this.stopped;
  }

  /** Nodes this budget may still count (its own limit and its ancestors'; Infinity when none). */
  nodesLeft(): number {
    const own = Math.max(0, this.nodeLimit - this.nodesUsed);
    return this.parent === undefined ? own : Math.min(own, this.parent.nodesLeft());
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
    if (this.every !== undefined && this.nodesUsed % this.every.nodes === 0 && !this.every.call()) {
      this.stopped = true;
      return false;
    }
    if ((this.nodesUsed & 1023) === 0 && performance.now() >= this.deadline) this.stopped = true;
    return !this.stopped;
  }
}

/** What a root budget calls every `nodes` nodes; `call` returns false to stop. */
export interface Checkpoint {
  readonly nodes: number;
  call(): boolean;
}
