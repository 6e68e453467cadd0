/**
 * Replacing a file so that a crash at any point leaves either the old bytes or the new
 * ones, never a mix: a temporary file in the same folder, fsynced, then renamed over the
 * target (or hard-linked to it when the target must not exist), then the folder fsynced.
 */
import { randomBytes } from 'node:crypto';
import { link, lstat, mkdir, open, realpath, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { errnoCode } from './errno.js';

/** Names of temporary files a write leaves behind if the host dies before renaming them. */
export const TEMP_FILE_PATTERN = /^\..+\.tether-[0-9a-f]{12}\.tmp$/;

/** How {@link writeFileAtomically} ended. Errors of the file system are thrown. */
export type AtomicWriteOutcome =
  /** The target now holds the new bytes. */
  | 'written'
  /** `check` refused, or the target appeared though it had to be new: nothing written. */
  | 'conflict'
  /** The signal aborted before the rename: nothing written. */
  | 'cancelled'
  /** The target's folder became a different path (a symlink swapped in): nothing written. */
  | 'folder_changed';

export interface AtomicWriteOptions {
  /** Permission bits of the new file, set exactly (the umask does not apply). */
  mode: number;
  /** The target must not exist: it is created with link(2), which never replaces a file. */
  createOnly: boolean;
  signal: AbortSignal;
  /**
   * Called once the temporary file is durable, right before the rename; false abandons
   * the write. Throwing also abandons it (the temporary file is removed) and rethrows.
   */
  check(tempPath: string): Promise<boolean>;
}

// Room left in a 255-byte file name for the dot and `.tether-<12 hex>.tmp`.
const MAX_NAME_BYTES = 255 - 26;
// File systems without hard links (some network and FAT volumes) answer link(2) so.
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Writes `content` to the real path `target`, creating missing parent folders. The
 * temporary file is `.<name>.tether-<random>.tmp` beside the target (see
 * {@link TEMP_FILE_PATTERN}).
 */
export async function writeFileAtomically(
  target: string,
  content: Buffer,
  options: AtomicWriteOptions,
): Promise<AtomicWriteOutcome> {
  const folder = path.dirname(target);
  await makeFolders(folder);
  const tempPath = path.join(folder, tempName(path.basename(target)));
  const handle = await open(tempPath, 'wx', 0o600);
  try {
    try {
      await handle.chmod(options.mode);
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if ((await realpath(folder)) !== folder) return await abandon(tempPath, 'folder_changed');
    if (options.signal.aborted) return await abandon(tempPath, 'cancelled');
    if (!(await options.check(tempPath))) return await abandon(tempPath, 'conflict');
    if (!options.createOnly) await rename(tempPath, target);
    else if (!(await createNew(tempPath, target))) return await abandon(tempPath, 'conflict');
  } catch (error) {
    await removeQuietly(tempPath);
    throw error;
  }
  await syncFolder(folder);
  return 'written';
}

function tempName(name: string): string {
  let kept = name;
  while (Buffer.byteLength(kept) > MAX_NAME_BYTES) kept = Array.from(kept).slice(0, -1).join('');
  return `.${kept}.tether-${randomBytes(6).toString('hex')}.tmp`;
}

/** Creates `folder` and its missing parents, each made durable in its own parent. */
async function makeFolders(folder: string): Promise<void> {
  const first = await mkdir(folder, { recursive: true });
  if (first === undefined) return;
  for (let made = folder; ; made = path.dirname(made)) {
    await syncFolder(path.dirname(made));
    if (made === first) return;
  }
}

/**
 * Moves `tempPath` to `target` unless `target` exists; false (the temp file left in place)
 * when it does.
 */
async function createNew(tempPath: string, target: string): Promise<boolean> {
  try {
    await link(tempPath, target);
    await removeQuietly(tempPath);
    return true;
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'EEXIST') return false;
    if (code === undefined || !NO_HARD_LINKS.has(code)) throw error;
  }
  // Without hard links the check and the rename are two steps; the window is tiny.
  try {
    await lstat(target);
    return false;
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
  await rename(tempPath, target);
  return true;
}

async function abandon(
  tempPath: string,
  outcome: Exclude<AtomicWriteOutcome, 'written'>,
): Promise<AtomicWriteOutcome> {
  await unlink(tempPath);
  return outcome;
}

async function removeQuietly(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch {
    // Already gone, or the folder is unwritable now: the name says what it is.
  }
}

async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // Some file systems cannot fsync a folder; the rename itself has happened.
    if (errnoCode(error) !== 'EINVAL') throw error;
  } finally {
    await handle.close();
  }
}
