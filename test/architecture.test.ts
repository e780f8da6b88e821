import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/** DESIGN.md's layers, bottom up: a file may import only from its own layer or below. */
const LAYER: Record<string, number> = {
  core: 0,
  planners: 1,
  graph: 1,
  io: 2,
  models: 2,
  backends: 2,
  experiments: 3,
  report: 4,
  cli: 5,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('architecture', () => {
  const files = sourceFiles('src');

  it('every source file lives in a known layer', () => {
    for (const file of files) expect(Object.keys(LAYER)).toContain(relative('src', file).split('/')[0]);
  });

  it('no layer imports a layer above it', () => {
    const offences: string[] = [];
    for (const file of files) {
      const own = relative('src', file).split('/')[0];
      for (const match of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
        const target = relative('src', join(file, '..', match[1])).split('/')[0];
        if (LAYER[target] > LAYER[own]) offences.push(`${file} imports ${match[1]} (${own} -> ${target})`);
      }
    }
    expect(offences).toEqual([]);
  });

  it('the verifier shares no code with any planner', () => {
    const verifier = readFileSync('src/core/verify.ts', 'utf8');
    const imports = [...verifier.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(imports.every((path) => path === './plans.ts' || path === './problem.ts')).toBe(true);
  });
});
