/**
 * Writes the planted suite (core/planted.ts) as MiniMalloc CSV files, for peers' planners
 * and for looking at: `npx tsx scripts/write-planted-suite.ts [--out DIR] [--seeds 1,2,3]`.
 * Each file is `<family>-<records>-s<seed>.<optimum>.csv` (the optimum in the name, as in
 * MiniMalloc's and omnimalloc's benchmark files), half-open lifetimes; DIR defaults to
 * bench/out/planted (not committed: the experiment and the benchmark generate the same
 * instances on the fly from their `synthetic:planted?...` sources). A manifest.csv lists
 * them with the source each came from.
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'csv-stringify/sync';
import { PLANTED_SUITE, plantedSuite } from '../src/core/planted.ts';
import { writeFileAtomic } from '../src/io/atomic-write.ts';
import { recordsToCsv } from '../src/io/records-writers.ts';
import { loadProblem } from '../src/io/source.ts';

const REPO_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

function parseArguments(argv: readonly string[]): { out: string; seeds: number[] } {
  let out = join(REPO_ROOT, 'bench', 'out', 'planted');
  let seeds: number[] = [...PLANTED_SUITE.seeds];
  for (let k = 0; k < argv.length; k++) {
    const value = argv[k + 1];
    if (argv[k] === '--out' && value !== undefined) {
      out = resolve(value);
      k++;
    } else if (argv[k] === '--seeds' && value !== undefined) {
      seeds = value.split(',').map(Number);
      if (seeds.some((s) => !Number.isSafeInteger(s) || s < 0)) fail(`--seeds takes whole numbers >= 0, separated by commas, got "${value}".`);
      k++;
    } else fail(`unknown argument "${argv[k]}".`);
  }
  if (existsSync(out) && !statSync(out).isDirectory()) fail(`--out ${out} is a file, not a folder.`);
  return { out, seeds };
}

function fail(message: string): never {
  console.error(`write-planted-suite: ${message}\nusage: npx tsx scripts/write-planted-suite.ts [--out DIR] [--seeds 1,2,3]`);
  process.exit(2);
}

const { out, seeds } = parseArguments(process.argv.slice(2));
const manifest: (string | number)[][] = [['file', 'family', 'records', 'seed', 'optimum', 'source']];
for (const instance of plantedSuite(seeds)) {
  const problem = await loadProblem(instance.source);
  // Every column of a planted problem is full, so its breadth is its optimum.
  const optimum = Math.max(...breadths(problem.records));
  const file = `${instance.family}-${instance.n}-s${instance.seed}.${optimum}.csv`;
  await writeFileAtomic(join(out, file), recordsToCsv(problem));
  manifest.push([file, instance.family, instance.n, instance.seed, optimum, instance.source]);
}
await writeFileAtomic(join(out, 'manifest.csv'), stringify(manifest));
console.log(`wrote ${manifest.length - 1} instances and manifest.csv to ${out}`);

function breadths(records: readonly { first: number; last: number; size: number }[]): number[] {
  const delta = new Map<number, number>();
  for (const r of records) {
    delta.set(r.first, (delta.get(r.first) ?? 0) + r.size);
    delta.set(r.last + 1, (delta.get(r.last + 1) ?? 0) - r.size);
  }
  let live = 0;
  return [...delta.keys()].sort((a, b) => a - b).map((t) => (live += delta.get(t)!));
}
