import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: where the benchmarks find ../shared and the built dist/. */
export const REPO_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/**
 * Where the benchmarks write their CSV files: bench/out/, or MEMPLAN_BENCH_OUT (the README
 * test runs every bench command with its own folder there, so that a developer's last
 * results are never overwritten by `npm test`).
 */
export const BENCH_OUT = resolve(process.env.MEMPLAN_BENCH_OUT ?? resolve(REPO_ROOT, 'bench', 'out'));
