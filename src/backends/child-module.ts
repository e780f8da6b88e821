import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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
 * compiled JavaScript when this code runs from dist/ (no loader, fast start), and when it
 * runs from src/ (development and tests) but dist/ holds a build of these very sources
 * (compiledTwin); otherwise TypeScript through tsx's loader, with tsx's disk cache off so
 * that a child writes no files.
 */
export function childModule(base: string, name: string, execArgv: readonly string[] = []): ChildModule {
  const typescript = base.endsWith('.ts');
  const path = fileURLToPath(new URL(`${name}.${typescript ? 'ts' : 'js'}`, base));
  if (!typescript) return { path, execArgv: [...execArgv], env: process.env };
  const compiled = compiledTwin(path);
  if (compiled !== undefined) return { path: compiled, execArgv: [...execArgv], env: process.env };
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
  const compiled = compiledTwin(fileURLToPath(url));
  if (compiled !== undefined) return { entry: compiled, eval: false, env: process.env };
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

/** The newest modification time of any file under `dir` (how bin/memplan.js and this module tell a build from stale sources). */
export function newestFile(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestFile(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const newestSources = new Map<string, number>();

/**
 * The compiled twin (dist/.../x.js) of the source module src/.../x.ts, where dist/ is a build
 * of the sources as they are: the twin is newer than every file under src/, the rule
 * bin/memplan.js starts the command by. A child started on it skips compiling TypeScript
 * (seconds on a busy machine, and tsx's tens of MiB in a measured process); after an edit
 * that was not built, the TypeScript runs. Sources are looked at once per process.
 */
function compiledTwin(source: string): string | undefined {
  const at = source.lastIndexOf('/src/');
  if (at < 0) return undefined;
  const root = source.slice(0, at);
  const twin = `${root}/dist/${source.slice(at + '/src/'.length).replace(/\.ts$/, '.js')}`;
  if (!existsSync(twin)) return undefined;
  let newest = newestSources.get(root);
  if (newest === undefined) {
    newest = newestFile(join(root, 'src'));
    newestSources.set(root, newest);
  }
  return statSync(twin).mtimeMs >= newest ? twin : undefined;
}
