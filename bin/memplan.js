#!/usr/bin/env node
// The command runs compiled JavaScript from dist/ (built by `npm run build`, which `npm ci`
// runs as `prepare`): it starts in a fraction of a second, and every isolated measurement
// process starts as fast. When any file under src/ is newer than the build (a developer's
// edit), tsx compiles the sources on the fly instead, so a stale build never hides a change.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = join(root, 'dist', 'cli', 'memplan.js');

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

if (existsSync(built) && (!existsSync(join(root, 'src')) || statSync(built).mtimeMs >= newestSource(join(root, 'src')))) {
  await import(built);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/memplan.ts');
}
