import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { zooDatasets } from '../../src/io/datasets.ts';
import { parseRecordsCsv } from '../../src/io/records-csv.ts';

describe('datasets/', () => {
  it.each(zooDatasets().map((f) => [f.path, f] as const))('%s is up to date (else run `npm run datasets`)', (path, file) => {
    expect(existsSync(path), `${path} is missing: run npm run datasets`).toBe(true);
    expect(readFileSync(path, 'utf8'), `${path} is stale: run npm run datasets`).toBe(file.content);
    // And it reads back as the same records.
    expect(parseRecordsCsv(file.content, path).records.length).toBeGreaterThan(0);
  });
});
