/**
 * The host key file, `<dataDir>/host-key.json`: `{"v":1,"seed":b64u}`, mode 0600. The push
 * key file (`push-key.json`, the VAPID P-256 secret) has the same form and rules.
 */
import { closeSync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { b64u, b64uBytes, describeIssues, fromB64u, TetherError } from '../../protocol/index.js';
import { readPrivateFile } from './private-file.js';

const HostKeyFile = z.strictObject({ v: z.literal(1), seed: b64uBytes(32) });

export function hostKeyFilePath(dataDir: string): string {
  return join(dataDir, 'host-key.json');
}

/** Which key a file holds, for messages: `host key` or `push key`. */
type KeyLabel = 'host key' | 'push key';

function refuser(label: KeyLabel) {
  return (path: string, problem: string, cause?: unknown): TetherError =>
    new TetherError('internal', `${label} file ${path} ${problem}`, { cause });
}

/**
 * The seed in the key file, or null when there is no file. Refuses (throws) a symbolic
 * link, a file others may read or write, one owned by another user, and a corrupt one:
 * a host key is never used in a state that may have leaked, nor silently replaced.
 */
export function readHostKeyFile(path: string, label: KeyLabel = 'host key'): Uint8Array | null {
  const refuse = refuser(label);
  const text = readPrivateFile(
    path,
    (problem, cause) => refuse(path, problem, cause),
    (mode) =>
      `has mode ${mode}, so others may read the host's ${label}. It must ` +
      `be 0600. If no one else could have read it, run: chmod 600 "${path}"; otherwise ` +
      (label === 'host key'
        ? 'delete it (a new host identity is made and devices must pair again).'
        : 'delete it (a new push key is made and devices must turn notifications on again).'),
  );
  if (text === null) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw refuse(path, 'is corrupt (not JSON). Restore it from a backup or delete it.', error);
  }
  const parsed = HostKeyFile.safeParse(json);
  if (!parsed.success) {
    const list = describeIssues(parsed.error).map((issue) => `${issue.path}: ${issue.message}`);
    throw refuse(path, `is corrupt (${list.join('; ')}). Restore it from a backup or delete it.`);
  }
  return fromB64u(parsed.data.seed);
}

/**
 * Creates the key file with O_EXCL and mode 0600, then fsyncs it and its folder.
 * Returns false, writing nothing, when the file already exists.
 */
export function createHostKeyFile(
  path: string,
  seed: Uint8Array,
  label: KeyLabel = 'host key',
): boolean {
  const refuse = refuser(label);
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw refuse(path, 'cannot be created', error);
  }
  try {
    writeSync(fd, `${JSON.stringify({ v: 1, seed: b64u(seed) })}\n`);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    // A half-written key must not be mistaken for a corrupt one at the next start.
    unlinkSync(path);
    throw refuse(path, 'cannot be written', error);
  }
  closeSync(fd);
  const dirFd = openSync(dirname(path), 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
  return true;
}
