import { readFile } from 'node:fs/promises';
import { InputError } from './input-error.ts';

/** A file the user named, read whole; one that is missing or unreadable is an InputError that says which and why. */
export async function readInputFile(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(file, undefined, code === 'ENOENT' ? 'no such file.' : `cannot be read (${code ?? String(error)}).`);
  }
}
