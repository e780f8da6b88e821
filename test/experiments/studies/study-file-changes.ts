import { readFileSync } from 'node:fs';

/**
 * A committed study file with some fields changed, for the schema tests: each key is a dotted
 * path (`quick.tiles.1`: array items by index), set to its value; `undefined` removes the
 * field. Keys are applied in order, so a misspelt field is its value under the new name and
 * the old name removed.
 */
export function changedFile(file: string, changes: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const data = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  for (const [path, value] of Object.entries(changes)) {
    const keys = path.split('.');
    const parent = keys.slice(0, -1).reduce<Record<string, unknown>>((o, key) => o[key] as Record<string, unknown>, data);
    const last = keys[keys.length - 1];
    if (value === undefined) delete parent[last];
    else parent[last] = value;
  }
  return data;
}

/** The sentence a parse of the changed file fails with, or 'accepted'. */
export function problemOf(parse: (data: Record<string, unknown>, file: string) => unknown, file: string, changes: Readonly<Record<string, unknown>>): string {
  try {
    parse(changedFile(file, changes), file);
    return 'accepted';
  } catch (error) {
    return (error as Error).message;
  }
}
