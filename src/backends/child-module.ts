import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** How to start a child process on a module of this project. */
export interface ChildModule {
  readonly path: string;
  readonly execArgv: string[];
  readonly env: NodeJS.ProcessEnv;
}

/**
 * The sibling module `name` (no extension) of the module at `base` (its import.meta.url):
 * compiled JavaScript when this code runs from dist/ (no loader, fast start), TypeScript
 * through tsx's loader when it runs from src/ (development and tests), with tsx's disk
 * cache off so that a child writes no files.
 */
export function childModule(base: string, name: string, execArgv: readonly string[] = []): ChildModule {
  const typescript = base.endsWith('.ts');
  const path = fileURLToPath(new URL(`${name}.${typescript ? 'ts' : 'js'}`, base));
  if (!typescript) return { path, execArgv: [...execArgv], env: process.env };
  const loader = createRequire(base).resolve('tsx');
  return { path, execArgv: ['--import', pathToFileURL(loader).href, ...execArgv], env: { ...process.env, TSX_DISABLE_CACHE: '1' } };
}

/** What `new Worker(entry, { eval, env })` takes to start a worker thread on a module of this project. */
export interface WorkerModule {
  readonly entry: string;
  readonly eval: boolean;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * How to start a worker thread on the sibling module `name` of the module at `base`: the
 * compiled JavaScript as it is, or the TypeScript through tsx's ESM API registered inside
 * the worker first (a loader given with --import does not reach worker threads on Node 20),
 * with tsx's disk cache off.
 */
export function workerModule(base: string, name: string): WorkerModule {
  const typescript = base.endsWith('.ts');
  const url = new URL(`${name}.${typescript ? 'ts' : 'js'}`, base);
  if (!typescript) return { entry: fileURLToPath(url), eval: false, env: process.env };
  // The ESM entry of tsx's API, as its package.json exports it (require.resolve would give the CommonJS one).
  const manifest = createRequire(base).resolve('tsx/package.json');
  const exported = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api'].import.default;
  const api = pathToFileURL(join(dirname(manifest), exported)).href;
  return {
    entry: `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`,
    eval: true,
    env: { ...process.env, TSX_DISABLE_CACHE: '1' },
  };
}
