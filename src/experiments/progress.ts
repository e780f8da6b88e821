/**
 * Progress of a long run on stderr: a bar that redraws in place on a terminal, plain lines
 * (one per finished cell) when stderr is a file or a pipe, so logs stay readable.
 */
export class Progress {
  private done = 0;
  private readonly tty: boolean;

  constructor(
    private readonly total: number,
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly quiet = false,
  ) {
    this.tty = Boolean(stream.isTTY);
  }

  step(what: string): void {
    this.done++;
    if (this.quiet) return;
    if (this.tty) {
      const width = 24;
      const filled = Math.round((this.done / this.total) * width);
      const bar = `${'#'.repeat(filled)}${'.'.repeat(width - filled)}`;
      this.stream.write(`\r${this.label} [${bar}] ${this.done}/${this.total} ${what}`.slice(0, (this.stream.columns ?? 100) - 1).padEnd((this.stream.columns ?? 100) - 1));
      if (this.done === this.total) this.stream.write('\n');
    } else {
      this.stream.write(`${this.label} ${this.done}/${this.total} ${what}\n`);
    }
  }

  note(message: string): void {
    if (this.quiet) return;
    this.stream.write(`${this.tty ? '\n' : ''}${this.label}: ${message}\n`);
  }
}
