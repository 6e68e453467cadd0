/**
 * .gitignore rules as git applies them while walking a tree: each folder's file holds
 * patterns relative to that folder, a deeper file's patterns (negations included) win over
 * a shallower one's, and an ignored folder is not descended, so nothing inside it can be
 * taken back. `.git/info/exclude` of the walk's top folder counts as its lowest level.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import ignore from 'ignore';
import { errnoCode } from './errno.js';

/** One folder's rules. */
export interface IgnoreLevel {
  /** Real path of the folder the patterns are relative to. */
  folder: string;
  rules: ignore.Ignore;
}

/** A .gitignore larger than this is not read (no real one comes close). */
const IGNORE_FILE_MAX_BYTES = 256 * 1024;

/**
 * The rules of `folder/<file>` (`.gitignore` by default), or null when there is none, it
 * is not a regular file (a symlink is not followed), it is protected, or too large.
 */
export async function readIgnoreLevel(
  folder: string,
  isProtected: (absolute: string) => boolean,
  file = '.gitignore',
): Promise<IgnoreLevel | null> {
  const absolute = path.join(folder, file);
  if (isProtected(absolute)) return null;
  let text: string;
  try {
    const flags = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;
    const handle = await open(absolute, flags);
    try {
      const stats = await handle.stat();
      if (!stats.isFile() || stats.size > IGNORE_FILE_MAX_BYTES) return null;
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    // Missing, a symlink (ELOOP), a folder, unreadable: no rules from it.
    if (errnoCode(error) === undefined) throw error;
    return null;
  }
  return { folder, rules: ignore().add(text.replace(GLOBSTAR_RUN, '$1**')) };
}

/**
 * `**` repeated as whole segments (`a/**` then `/**` again and again, then `/x`), which
 * means what one `**` means. The regex `ignore` makes of each repeat backtracks: eight of
 * them on a path 40 folders deep blocked the host's event loop for 50 s per path, and a
 * workspace's .gitignore is anyone's text.
 */
const GLOBSTAR_RUN = /(^!?|\/)\*\*(?:\/\*\*)+(?=\/|$)/gm;

/** Whether the levels (shallowest first) ignore `absolute`, a path below each level's folder. */
export function isIgnored(
  levels: readonly IgnoreLevel[],
  absolute: string,
  isDirectory: boolean,
): boolean {
  let ignored = false;
  for (const level of levels) {
    const relative = path.relative(level.folder, absolute);
    // `ignore` refuses names it cannot tell from a relative path (`...`): no rule names them.
    if (!ignore.isPathValid(relative)) continue;
    const result = level.rules.test(isDirectory ? `${relative}/` : relative);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}
