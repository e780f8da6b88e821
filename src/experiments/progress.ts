/**
 * Progress of a long run on stderr: a bar that redraws in place on a terminal, plain lines
 * (one per finished cell) when stderr is a file or a pipe, so logs stay readable. Each line
 * carries an estimate of the time left, from the cells measured so far in this session;
 * cells finished before (a resumed run) are counted, not listed: one line says how many.
 */
export class Progress {
  private done = 0;
  /** Cells that ran in this session, and when the first of them started. */
  private measured = 0;
  private since: number;
  /** Cells finished before (a resumed run), not yet said. */
  private carried = 0;
  private readonly tty: boolean;

  constructor(
    private readonly total: number,
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly quiet = false,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tty = Boolean(stream.isTTY);
    this.since = now();
  }

  /** Where the run writes, said before its first cell (a run killed halfway has said where it was). */
  start(folder: string): void {
    this.note(`writing to ${folder}`);
    this.since = this.now();
  }

  /** A cell that ran now. */
  step(what: string): void {
    this.sayCarried();
    this.done++;
    this.measured++;
    this.draw(what, this.left());
  }

  /** A cell that took no time (skipped, its source absent): said, but no pace to go by. */
  pass(what: string): void {
    this.sayCarried();
    this.done++;
    if (this.measured === 0) this.since = this.now();
    this.draw(what, this.measured === 0 ? '' : this.left());
  }

  /** A cell that needed no work now (finished before, skipped, absent): counted, and said in one line. */
  carry(): void {
    this.done++;
    this.carried++;
    // The pace is this session's: it starts after the cells finished before.
    if (this.measured === 0) this.since = this.now();
    if (this.done === this.total) this.sayCarried();
  }

  note(message: string): void {
    if (this.quiet) return;
    this.stream.write(`${this.tty ? '\n' : ''}${this.label}: ${message}\n`);
  }

  private sayCarried(): void {
    if (this.carried === 0) return;
    this.note(`${this.carried} cell${this.carried === 1 ? '' : 's'} finished before, kept (${this.done}/${this.total})`);
    this.carried = 0;
  }

  /** The time left at the pace of this session's cells, once there is one to go by. */
  private left(): string {
    const remaining = this.total - this.done;
    if (remaining === 0 || this.measured === 0) return '';
    const seconds = ((this.now() - this.since) / 1000 / this.measured) * remaining;
    if (seconds < 60) return ` (about ${Math.max(1, Math.round(seconds))} s left)`;
    if (seconds < 3600) return ` (about ${Math.round(seconds / 60)} min left)`;
    return ` (about ${(seconds / 3600).toFixed(1)} h left)`;
  }

  private draw(what: string, left: string): void {
    if (this.quiet) return;
    if (this.tty) {
      const width = 24;
      const filled = Math.round((this.done / this.total) * width);
      const bar = `${'#'.repeat(filled)}${'.'.repeat(width - filled)}`;
      const columns = (this.stream.columns ?? 100) - 1;
      this.stream.write(`\r${this.label} [${bar}] ${this.done}/${this.total} ${what}${left}`.slice(0, columns).padEnd(columns));
      if (this.done === this.total) this.stream.write('\n');
    } else {
      this.stream.write(`${this.label} ${this.done}/${this.total} ${what}${left}\n`);
    }
  }
}
