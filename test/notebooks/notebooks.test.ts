import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

interface Notebook {
  cells: { cell_type: string; source: string[] }[];
}

/** The code cells of a notebook as one TypeScript module, in cell order. */
function codeOf(path: string): string {
  const notebook = JSON.parse(readFileSync(path, 'utf8')) as Notebook;
  return notebook.cells
    .filter((c) => c.cell_type === 'code')
    .map((c) => c.source.join(''))
    .join('\n');
}

describe.each(readdirSync('notebooks').filter((f) => f.endsWith('.ipynb')))('notebooks/%s', (name) => {
  it('runs its code cells without Jupyter', () => {
    const out = mkdtempSync(join(tmpdir(), 'memplan-nb-'));
    // Beside the notebook, so that its relative imports resolve as in Jupyter.
    const script = join('notebooks', `.${name}.test-run.mts`);
    writeFileSync(script, `${codeOf(join('notebooks', name))}\nexport {};\n`);
    try {
      const run = spawnSync(process.execPath, ['--import', 'tsx', `.${name}.test-run.mts`], {
        cwd: 'notebooks',
        encoding: 'utf8',
        env: { ...process.env, MEMPLAN_NOTEBOOK_OUT: out },
        timeout: 120_000,
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toContain('**Table 2: Offset Calculation');
      expect(run.stdout).toMatch(/\| Greedy by Size \| [\d.*]+ \|/);
      expect(existsSync(join(out, 'table2-footprint.png'))).toBe(true);
    } finally {
      rmSync(script, { force: true });
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
