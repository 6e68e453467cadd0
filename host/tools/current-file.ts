/**
 * A file as it is before a write: its digest, size, mode and identity, and its bytes when
 * they are small enough to diff or edit.
 */
import type { BigIntStats } from 'node:fs';
import { constants } from 'node:fs';
import { createHash } from 'node:crypto';
import { lstat, open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { errnoCode } from './errno.js';
import { failedResult, fileSystemFailure } from './tool-result.js';
import type { ToolResult } from './types.js';

/** What is at a path before a write. */
export type CurrentFile =
  | { exists: false }
  | {
      exists: true;
      /** Lowercase hex SHA-256 of the file's bytes. */
      sha256: string;
      bytes: number;
      /** Permission bits (`mode & 0o777`). */
      mode: number;
      /** The bytes, or null when the file is larger than the limit it was read with. */
      content: Buffer | null;
      /** Identity and times, to tell later whether the file was replaced or changed. */
      stats: BigIntStats;
    };

const CHUNK_BYTES = 128 * 1024;

/**
 * Reads the regular file at the real path `file` (`where` names it in messages), keeping
 * its bytes up to `maxBytes`. A missing file is `{exists: false}`; a directory or special
 * file, or a file-system error, is a failed result.
 */
export async function readCurrentFile(
  file: string,
  where: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<CurrentFile | ToolResult> {
  let handle: FileHandle;
  try {
    // O_NOFOLLOW: the path was resolved, so a symlink here was swapped in since.
    // O_NONBLOCK: opening a FIFO must not wait for a writer.
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { exists: false };
    return fileSystemFailure(error, where);
  }
  try {
    const stats = await handle.stat({ bigint: true });
    if (stats.isDirectory()) return failedResult('is_a_directory', `${where} is a directory`);
    if (!stats.isFile()) return failedResult('not_a_file', `${where} is not a regular file`);
    const hash = createHash('sha256');
    const kept: Buffer[] = [];
    let bytes = 0;
    for (;;) {
      signal.throwIfAborted();
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      const data = chunk.subarray(0, bytesRead);
      hash.update(data);
      bytes += bytesRead;
      if (bytes <= maxBytes) kept.push(data);
    }
    return {
      exists: true,
      sha256: hash.digest('hex'),
      bytes,
      mode: Number(stats.mode) & 0o777,
      content: bytes <= maxBytes ? Buffer.concat(kept, bytes) : null,
      stats,
    };
  } catch (error) {
    if (signal.aborted) return failedResult('cancelled', `reading ${where} was cancelled`);
    return fileSystemFailure(error, where);
  } finally {
    await handle.close();
  }
}

/**
 * Whether the file at `file` is still the one `current` describes: the same inode, size,
 * modification and change times (a missing file matches only a missing one).
 */
export async function isUnchanged(file: string, current: CurrentFile): Promise<boolean> {
  let stats: BigIntStats;
  try {
    stats = await lstat(file, { bigint: true });
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return !current.exists;
    throw error;
  }
  if (!current.exists) return false;
  const before = current.stats;
  return (
    stats.dev === before.dev &&
    stats.ino === before.ino &&
    stats.size === before.size &&
    stats.mtimeNs === before.mtimeNs &&
    stats.ctimeNs === before.ctimeNs
  );
}

/** The result that tells `expected` and the file's digest apart, or null when they agree. */
export function digestConflict(
  where: string,
  expected: string | null,
  current: CurrentFile,
): ToolResult | null {
  const actual = current.exists ? current.sha256 : null;
  if (actual === expected) return null;
  const message =
    actual === null
      ? `conflict: ${where} does not exist, but expectedSha256 is ${expected}; nothing was written`
      : expected === null
        ? `conflict: ${where} already exists (sha256 ${actual}), but expectedSha256 is null; ` +
          `read it first, nothing was written`
        : `conflict: ${where} has changed: its sha256 is ${actual}, not ${expected}; read it ` +
          `again, nothing was written`;
  return {
    ...failedResult('conflict', message),
    data: { path: where, expectedSha256: expected, currentSha256: actual },
  };
}
