/**
 * A secret kept in a file of its own: `{"v":1,"secret":"…"}`, mode 0600, replaced
 * atomically. Read with the host key file's rules: no symbolic link, no file others may
 * read, none owned by another user.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { TetherError } from '../../protocol/index.js';
import { readPrivateFile } from './private-file.js';

const SecretFile = z.strictObject({ v: z.literal(1), secret: z.string().min(1) });

/**
 * The secret in `path`, or null when there is no file.
 *
 * @throws TetherError (`internal`) for a file that may have leaked or is corrupt; the
 *   message says what to do.
 */
export function readSecretFile(path: string, label: string): string | null {
  const refuse = (problem: string, cause?: unknown) =>
    new TetherError('internal', `${label} file ${path} ${problem}`, { cause });
  const text = readPrivateFile(
    path,
    refuse,
    (mode) =>
      `has mode ${mode}, so others may read it. Run: chmod 600 "${path}" ` +
      `(and replace the ${label} if someone else may have read it)`,
  );
  if (text === null) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw refuse('is corrupt (not JSON): store the secret again', error);
  }
  const parsed = SecretFile.safeParse(json);
  if (!parsed.success) throw refuse('is corrupt: store the secret again');
  return parsed.data.secret;
}

/** Writes `secret` to `path` (mode 0600) through a temp file and a rename, then fsyncs. */
export function writeSecretFile(path: string, secret: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  rmSync(temp, { force: true });
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify({ v: 1, secret })}\n`);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
  const dirFd = openSync(dirname(path), 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
