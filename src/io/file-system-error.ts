/**
 * A file-system error on a path the user chose (`--out`, `--dir`, `--to`) as one sentence:
 * what the path is and what went wrong there, instead of Node's stack trace. Only errors
 * that carry a path and one of these codes qualify; anything else is a bug and keeps its
 * stack.
 */
const REASONS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  ENOTDIR: 'part of the path is a file, not a folder',
  EEXIST: 'already exists',
  EISDIR: 'is a folder where a file is needed',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  ENAMETOOLONG: 'the name is too long',
};

export function fileSystemSentence(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const { code, path, syscall } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string' || typeof path !== 'string' || !(code in REASONS)) return undefined;
  // mkdir -p meets EEXIST only where a file stands in the folder's place.
  const reason = code === 'EEXIST' && syscall === 'mkdir' ? 'is a file where a folder is needed' : REASONS[code];
  return `${path}: ${reason} (${syscall ?? 'file system'}, ${code}).`;
}

/**
 * The same error, carrying `path` where Node left it out: a failed `write` or `appendFile`
 * (ENOSPC, EDQUOT) names no file, and a sentence without the file says nothing useful.
 */
export function withPath(error: unknown, path: string): unknown {
  if (error === null || typeof error !== 'object') return error;
  const errno = error as NodeJS.ErrnoException;
  if (typeof errno.code !== 'string' || typeof errno.path === 'string') return error;
  errno.path = path;
  return error;
}
