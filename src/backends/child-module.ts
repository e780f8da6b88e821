import { createRequire } from 'node:module';
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
