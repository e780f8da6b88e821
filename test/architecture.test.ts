import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layers, bottom up: a file may import only from its own layer or below. backends/
 * holds the devices (and the contracts of what an execution reports), agent/ the agent,
 * its device hub and their HTTP helpers; measuring/ runs a job somewhere (an isolated
 * process, an agent, a browser page) and measures it. The agent starts its job process
 * (measuring/job-runner.ts) by module path, never by import.
 */
const LAYER: Record<string, number> = {
  core: 0,
  planners: 1,
  graph: 1,
  io: 2,
  models: 2,
  backends: 2,
  agent: 2,
  measuring: 3,
  experiments: 4,
  report: 5,
  cli: 6,
  // The package's entry point (import ... from 'memplan-bench'): what it exports reaches up to the experiment runner.
  'index.ts': 4,
};

/** The project files a source file imports (relative specifiers, type-only imports too). */
function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) => join(file, '..', m[1]));
}

/** Every import circle among `files`, each as its files (Tarjan's strongly connected components of more than one file). */
function importCircles(files: readonly string[]): string[][] {
  const known = new Set(files);
  const edges = new Map(files.map((f) => [f, importsOf(f).filter((t) => known.has(t))]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) circles.push(component.sort());
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return circles;
}

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

  it('no import circle anywhere in src/ (type-only imports count)', () => {
    expect(importCircles(files)).toEqual([]);
  });

  it('finds an import circle where there is one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'memplan-circle-'));
    try {
      writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.ts';\nexport type A = B;\n");
      writeFileSync(join(dir, 'b.ts'), "import type { A } from './a.ts';\nexport type B = A;\n");
      writeFileSync(join(dir, 'c.ts'), "import type { A } from './a.ts';\nexport type C = A;\n");
      expect(importCircles(sourceFiles(dir))).toEqual([[join(dir, 'a.ts'), join(dir, 'b.ts')]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the verifier shares no code with any planner', () => {
    const verifier = readFileSync('src/core/verify.ts', 'utf8');
    const imports = [...verifier.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(imports.every((path) => path === './plans.ts' || path === './problem.ts')).toBe(true);
  });
});
