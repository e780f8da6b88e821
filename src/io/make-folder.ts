import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * `mkdir -p` that always ends. Node's own `mkdir(path, { recursive: true })` never returns
 * for a path under a folder where nothing can be made and that answers ENOENT rather than
 * EACCES (`/proc/xyz`: it climbs to `/proc`, finds it there, goes back down, is told ENOENT
 * again, for ever). Here each folder is made once, its parent first; a second ENOENT is
 * the answer. A file where a folder is needed is mkdir's EEXIST, with the path.
 */
export async function makeFolder(path: string): Promise<void> {
  try {
    await mkdir(path);
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return await mustBeFolder(path, error as NodeJS.ErrnoException);
    if (code !== 'ENOENT' || dirname(path) === path) throw error;
  }
  await makeFolder(dirname(path));
  try {
    await mkdir(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return await mustBeFolder(path, error as NodeJS.ErrnoException);
    throw error;
  }
}

async function mustBeFolder(path: string, error: NodeJS.ErrnoException): Promise<void> {
  if ((await stat(path)).isDirectory()) return;
  throw error;
}
