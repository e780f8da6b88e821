import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadProblem } from '../../../src/io/source.ts';
import { findPlanner } from '../../../src/planners/registry.ts';
import { planAndVerify } from '../../../src/planners/plan-and-verify.ts';

const dir = '../shared/traces/minimalloc';
const present = existsSync(dir);
if (!present) console.warn(`skipping the MiniMalloc benchmark tests: ${dir} is absent (it ships beside the repository, not in it).`);

describe.skipIf(!present)('offsets/greedy-by-size on the MiniMalloc benchmarks', () => {
  it('gives exactly TFLite\'s 1374208 bytes on A', async () => {
    const result = planAndVerify(findPlanner('offsets/greedy-by-size'), await loadProblem(`${dir}/A.1048576.csv`));
    expect(result.valid).toBe(true);
    expect(result.footprint).toBe(1374208);
  });

  it.each(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K'])('lands 1.27x-1.45x above 1048576 on %s', async (name) => {
    const result = planAndVerify(findPlanner('offsets/greedy-by-size'), await loadProblem(`${dir}/${name}.1048576.csv`));
    expect(result.valid).toBe(true);
    expect(result.footprint / 1048576).toBeGreaterThanOrEqual(1.27);
    expect(result.footprint / 1048576).toBeLessThanOrEqual(1.45);
  });
});
