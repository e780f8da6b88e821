import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { childModule, workerModule } from '../../src/backends/child-module.ts';

const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** A project with src/a/parent.ts and src/a/child.ts, and dist/ built after the sources or before them (tsx found through a link to ours). */
function project(builtAfterSources: boolean): string {
  const root = mkdtempSync(join(tmpdir(), 'memplan-twin-'));
  roots.push(root);
  symlinkSync(resolve('node_modules'), join(root, 'node_modules'));
  for (const dir of ['src/a', 'dist/a']) mkdirSync(join(root, dir), { recursive: true });
  const sources = [join(root, 'src/a/parent.ts'), join(root, 'src/a/child.ts')];
  const built = [join(root, 'dist/a/parent.js'), join(root, 'dist/a/child.js')];
  for (const f of [...sources, ...built]) writeFileSync(f, '');
  const now = Date.now() / 1000;
  for (const f of sources) utimesSync(f, now - 100, now - 100);
  for (const f of built) utimesSync(f, builtAfterSources ? now - 50 : now - 200, builtAfterSources ? now - 50 : now - 200);
  return root;
}

describe('a child started from the sources', () => {
  it('runs the compiled twin where dist/ is a build of the sources as they are', () => {
    const root = project(true);
    const base = pathToFileURL(join(root, 'src/a/parent.ts')).href;
    expect(childModule(base, './child', ['--expose-gc'])).toMatchObject({ path: join(root, 'dist/a/child.js'), execArgv: ['--expose-gc'] });
    expect(workerModule(base, './child')).toMatchObject({ entry: join(root, 'dist/a/child.js'), eval: false });
  });

  it('runs the TypeScript through tsx where a source is newer than the build', () => {
    const root = project(false);
    const base = pathToFileURL(join(root, 'src/a/parent.ts')).href;
    const child = childModule(base, './child');
    expect(child.path).toBe(join(root, 'src/a/child.ts'));
    expect(child.execArgv[0]).toBe('--import');
    expect(workerModule(base, './child').eval).toBe(true);
  });

  it('runs compiled JavaScript as it is', () => {
    const root = project(false);
    expect(childModule(pathToFileURL(join(root, 'dist/a/parent.js')).href, './child')).toMatchObject({ path: join(root, 'dist/a/child.js'), execArgv: [] });
  });
});
