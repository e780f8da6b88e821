/** What the kernel benchmarks (bench:conv, bench:webgpu) take: a quick variant, and how many timed and warm-up runs. */
export interface KernelRunOptions {
  readonly quick: boolean;
  readonly repetitions: number;
  readonly warmup: number;
}

/**
 * `[--quick] [--repetitions 10] [--warmup 3]`, or one sentence and the usage on stderr and
 * exit code 2 (before anything is benchmarked).
 */
export function kernelRunOptions(bench: string, args: readonly string[]): KernelRunOptions {
  const usage = `usage: npm run ${bench} -- [--quick] [--repetitions 10] [--warmup 3]`;
  const refuse = (message: string): never => {
    process.stderr.write(`${bench}: ${message}\n${usage}\n`);
    process.exit(2);
  };
  const options = { quick: false, repetitions: 10, warmup: 3 };
  for (let i = 0; i < args.length; i++) {
    const flag = args[i];
    if (flag === '--quick') {
      options.quick = true;
      continue;
    }
    if (flag !== '--repetitions' && flag !== '--warmup') refuse(`unknown argument "${flag}".`);
    const value = Number(args[++i]);
    const least = flag === '--warmup' ? 0 : 1;
    if (!Number.isSafeInteger(value) || value < least) refuse(`${flag} takes a whole number of at least ${least}, got ${args[i]}.`);
    options[flag === '--warmup' ? 'warmup' : 'repetitions'] = value;
  }
  return options;
}
