import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeProblem } from '../../src/core/problem.ts';
import { ExperimentError } from '../../src/experiments/experiment-error.ts';
import { loadPlanner } from '../../src/experiments/load-planner.ts';

/**
 * A user's planner module, written where users write them: in a folder of their own, with
 * no package.json saying "type": "module" (tsx then compiles it to CommonJS).
 */
let dir = '';
const module = (name: string, text: string): Promise<void> => writeFile(join(dir, name), text);
const load = (name: string) => loadPlanner({ ref: join(dir, name), module: true });
const problem = makeProblem(
  'two',
  [
    { id: 'a', size: 8, first: 0, last: 1 },
    { id: 'b', size: 4, first: 1, last: 2 },
  ],
  3,
);

const ZERO = `{ id: 'offsets/zero', approach: 'offsets', title: 'Zero', plan: (p: { records: unknown[] }) => ({ approach: 'offsets', offsets: p.records.map(() => 0), footprint: 8 }) }`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'memplan-module-'));
  await module('default.ts', `const planner = ${ZERO};\nexport default planner;\n`);
  await module('named.ts', `export const planner = ${ZERO};\n`);
  await module('esm.mts', `export default ${ZERO};\n`);
  await module('throws.ts', `export default { id: 'offsets/throws', approach: 'offsets', title: 'T', plan() { throw new Error('no idea what to do\\nsecond line'); } };\n`);
  await module('syntax.ts', 'this is not TypeScript {\n');
  await module('nothing.ts', 'export const x = 1;\n');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadPlanner on a user module', () => {
  it('loads a default or a `planner` export, from a .ts outside any ESM package and from an .mts', async () => {
    for (const name of ['default.ts', 'named.ts', 'esm.mts']) {
      const planner = await load(name);
      expect(planner.id).toBe('offsets/zero');
      expect(planner.plan(problem)).toMatchObject({ approach: 'offsets', offsets: [0, 0] });
    }
  });

  it('names the module when its planner throws, in one line', async () => {
    const planner = await load('throws.ts');
    expect(() => planner.plan(problem)).toThrow(ExperimentError);
    expect(() => planner.plan(problem)).toThrow(`${join(dir, 'throws.ts')}: offsets/throws threw while planning two: no idea what to do.`);
  });

  it("refuses a module that does not compile (with esbuild's place of the error), exports no planner, or is missing", async () => {
    await expect(load('syntax.ts')).rejects.toThrow(new RegExp(`^${join(dir, 'syntax.ts')}: the planner module cannot be loaded \\(${join(dir, 'syntax.ts')}:1:5: ERROR: .+\\)\\.$`));
    await expect(load('nothing.ts')).rejects.toThrow('exports no planner');
    await expect(load('missing.ts')).rejects.toThrow(/the planner module cannot be loaded \(Cannot find module/);
  });
});
