import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { withPath } from './file-system-error.ts';
import { makeFolder } from './make-folder.ts';

/**
 * Writes a file so that readers see the old content or the new, never a part: a
 * temporary file beside it, then a rename (atomic on one file system). A write that fails
 * (a full disk) leaves nothing behind, and its error names `path`, not the temporary file.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await makeFolder(dirname(path));
  const temporary = join(dirname(path), `.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, data);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    const errno = error as NodeJS.ErrnoException;
    if (errno?.path === temporary) delete errno.path;
    throw withPath(error, path);
  }
}
