import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ResultStore } from '../../src/experiments/result-store.ts';

const root = mkdtempSync(join(tmpdir(), 'memplan-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** An experiment folder with these run folders (those named with a * get a run.json). */
function experiment(name: string, runs: string[]): void {
  for (const run of runs) {
    const dir = join(root, name, run.replace('*', ''));
    mkdirSync(dir, { recursive: true });
    if (run.endsWith('*')) writeFileSync(join(dir, 'run.json'), '{}\n');
  }
}

const latest = async (name: string, suffix?: string) => {
  const store = await ResultStore.latest(root, name, suffix);
  return store === undefined ? undefined : basename(store.dir);
};

describe('ResultStore.latest', () => {
  it("for --resume: the newest unsharded run, or the newest of one shard's; never a merge's folder in the making", async () => {
    experiment('a', ['2026-01-01T00-00-00Z*', '2026-01-02T00-00-00Z-shard-0-of-2*', '2026-01-03T00-00-00Z-merged*', '2026-01-04T00-00-00Z.partial-77']);
    expect(await latest('a')).toBe('2026-01-01T00-00-00Z');
    expect(await latest('a', '-shard-0-of-2')).toBe('2026-01-02T00-00-00Z-shard-0-of-2');
    expect(await latest('a', '-shard-1-of-2')).toBeUndefined();
    expect(await latest('missing')).toBeUndefined();
  });

  it('for report (suffix *): the newest folder with a run.json, shards and merges too', async () => {
    experiment('b', ['2026-01-01T00-00-00Z*', '2026-01-02T00-00-00Z-shard-3-of-8*', '2026-01-03T00-00-00Z', '2026-01-04T00-00-00Z.partial-77*']);
    expect(await latest('b', '*')).toBe('2026-01-02T00-00-00Z-shard-3-of-8');
    experiment('c', ['2026-01-01T00-00-00Z']);
    expect(await latest('c', '*')).toBeUndefined();
  });
});
