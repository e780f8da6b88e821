import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The script that starts a worker thread (with `eval: true`) on the sibling module `name`
 * of the module at `base` (its import.meta.url): the compiled JavaScript as it is, or,
 * when this code runs from TypeScript sources (development, tests), the TypeScript
 * through tsx's ESM API registered inside the worker first (Node 20 does not hand --import
 * loaders to worker threads), with tsx's disk cache off so that the thread writes no
 * files. `onFailure` is the body of a function of `error` run inside the thread when the
 * module cannot be loaded, so that the caller learns of it without an event loop. The
 * backends have a helper like it; planners sit below them and cannot import it.
 */
export function threadScript(base: string, name: string, onFailure: string): { readonly script: string; readonly env: NodeJS.ProcessEnv } {
  const typescript = base.endsWith('.ts');
  const url = new URL(`${name}.${typescript ? 'ts' : 'js'}`, base).href;
  const fail = `.catch((error) => { ${onFailure} })`;
  if (!typescript) return { script: `import(${JSON.stringify(url)})${fail};`, env: process.env };
  const manifest = createRequire(base).resolve('tsx/package.json');
  const exported = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api'].import.default;
  const api = pathToFileURL(join(dirname(manifest), exported)).href;
  return {
    script: `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url)}); })${fail};`,
    env: { ...process.env, TSX_DISABLE_CACHE: '1' },
  };
}
