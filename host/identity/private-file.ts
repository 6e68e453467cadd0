/**
 * Reading a file that holds a secret (the host key, the push key, the model key): never
 * through a symbolic link, never a file others may read or one another user owns, so a
 * secret that may have leaked is refused rather than used.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

/** How a caller words a refusal: `problem` completes "<what> file <path> …". */
export type Refuse = (problem: string, cause?: unknown) => Error;

/**
 * The text of `path`, or null when there is no file. `looseMode` words the refusal of a
 * file others may read, given its mode (octal, as `0644`): what to do differs per secret.
 *
 * @throws what `refuse` makes, for a link, a non-file, a loose mode, another owner or a
 *   read error.
 */
export function readPrivateFile(
  path: string,
  refuse: Refuse,
  looseMode: (mode: string) => string,
): string | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw refuse('is a symbolic link; refusing to use it', error);
    throw refuse(`cannot be read: ${code}`, error);
  }
  try {
    const stat = fstatSync(fd);
    const mode = stat.mode & 0o777;
    if (!stat.isFile()) throw refuse('is not a regular file');
    if ((mode & 0o077) !== 0) throw refuse(looseMode(`0${mode.toString(8)}`));
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) {
      throw refuse(`belongs to another user (uid ${stat.uid}); refusing to use it`);
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
