/**
 * The tree walk of find_files and search_files: depth first, names sorted (a folder's
 * files before its subfolders), never following a symlink, never looking past a protected
 * path, skipping noisy folders and what .gitignore files ignore, bounded by a deadline and
 * an entry cap. It only lists; reading is the caller's business.
 */
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { errnoCode } from './errno.js';
import { isIgnored, readIgnoreLevel } from './gitignore-rules.js';
import type { IgnoreLevel } from './gitignore-rules.js';
import { NOISY_FOLDERS } from './noisy-folders.js';

/** Where and how far to walk. */
export interface WalkOptions {
  /** Real path of the folder (or the one file) to walk. */
  root: string;
  /**
   * Real path of the workspace when `root` is inside it: shown paths are relative to it,
   * and its .gitignore files down to `root` apply. Null for a root outside the workspace
   * the user approved: shown paths are absolute and only .gitignore files below apply.
   */
  workspace: string | null;
  /** True for a path no tool may read or list; the walk neither reports nor enters it. */
  isProtected: (absolute: string) => boolean;
  signal: AbortSignal;
  /** `performance.now()` after which the walk stops. */
  deadline: number;
  /** Most directory entries looked at. */
  maxEntries: number;
}

/** What the walk saw and left out; filled in as it goes. */
export interface WalkStats {
  directories: number;
  files: number;
  skipped: {
    /** Files and folders a .gitignore (or .git/info/exclude) ignores. */
    ignored: number;
    /** Noisy folders not entered (`noisyNames` holds their names). */
    noisy: number;
    /** Protected files and folders (never named). */
    protected: number;
    /** Symlinks, never followed. */
    symlinks: number;
    /** FIFOs, sockets, devices. */
    special: number;
    /** Folders that could not be read. */
    unreadable: number;
  };
  noisyNames: Set<string>;
  /** Why the walk ended early, if it did. */
  stopped: 'deadline' | 'entry_cap' | null;
}

/** One file the walk found. */
export interface WalkedFile {
  absolute: string;
  /** As tool output shows it: relative to the workspace, or absolute outside it. */
  shown: string;
  /** Relative to the walk's root (its name when the root is the file): what globs match. */
  underRoot: string;
}

export function emptyWalkStats(): WalkStats {
  return {
    directories: 0,
    files: 0,
    skipped: { ignored: 0, noisy: 0, protected: 0, symlinks: 0, special: 0, unreadable: 0 },
    noisyNames: new Set(),
    stopped: null,
  };
}

interface PendingFolder {
  absolute: string;
  levels: readonly IgnoreLevel[];
}

/**
 * Yields the files below `options.root` (or the root itself when it is a file) and counts
 * the rest in `stats`. Throws the signal's reason when it aborts; a root that cannot be
 * read throws its file-system error.
 */
export async function* walkFiles(
  options: WalkOptions,
  stats: WalkStats,
): AsyncGenerator<WalkedFile> {
  const { root, workspace, isProtected } = options;
  const shown = (absolute: string) =>
    workspace === null ? absolute : path.relative(workspace, absolute) || '.';
  if (!(await stat(root)).isDirectory()) {
    stats.files += 1;
    yield { absolute: root, shown: shown(root), underRoot: path.basename(root) };
    return;
  }
  const stack: PendingFolder[] = [{ absolute: root, levels: await rootLevels(options) }];
  let entries = 0;
  for (let folder = stack.pop(); folder !== undefined; folder = stack.pop()) {
    options.signal.throwIfAborted();
    if (performance.now() > options.deadline) {
      stats.stopped = 'deadline';
      return;
    }
    let dirents: Dirent[];
    try {
      dirents = await readdir(folder.absolute, { withFileTypes: true });
    } catch (error) {
      if (folder.absolute === root || errnoCode(error) === undefined) throw error;
      stats.skipped.unreadable += 1;
      continue;
    }
    stats.directories += 1;
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const own = dirents.some((dirent) => dirent.name === '.gitignore')
      ? await readIgnoreLevel(folder.absolute, isProtected)
      : null;
    const levels = own === null ? folder.levels : [...folder.levels, own];
    const subfolders: PendingFolder[] = [];
    for (const dirent of dirents) {
      entries += 1;
      if (entries > options.maxEntries) {
        stats.stopped = 'entry_cap';
        return;
      }
      const absolute = path.join(folder.absolute, dirent.name);
      if (isProtected(absolute)) {
        stats.skipped.protected += 1;
      } else if (dirent.name.toLowerCase() === '.git') {
        // A repository's folder, or a worktree's file naming where its data is (in any
        // case, as search-scope.ts refuses it).
        stats.skipped.noisy += 1;
        stats.noisyNames.add(dirent.name);
      } else if (dirent.isSymbolicLink()) {
        stats.skipped.symlinks += 1;
      } else if (dirent.isDirectory()) {
        if (NOISY_FOLDERS.has(dirent.name)) {
          stats.skipped.noisy += 1;
          stats.noisyNames.add(dirent.name);
        } else if (isIgnored(levels, absolute, true)) {
          stats.skipped.ignored += 1;
        } else {
          subfolders.push({ absolute, levels });
        }
      } else if (!dirent.isFile()) {
        stats.skipped.special += 1;
      } else if (isIgnored(levels, absolute, false)) {
        stats.skipped.ignored += 1;
      } else {
        stats.files += 1;
        yield { absolute, shown: shown(absolute), underRoot: path.relative(root, absolute) };
      }
    }
    // Popped last-in first-out: pushed in reverse, the subfolders are walked in name order.
    for (let i = subfolders.length - 1; i >= 0; i -= 1) stack.push(subfolders[i]!);
  }
}

/**
 * The rules in force at the root: `.git/info/exclude` and the .gitignore files of the
 * workspace and each folder down to the root. A folder on the way that is noisy or
 * ignored was named on purpose, so the rules above it are dropped and only its own and
 * deeper ones apply.
 */
async function rootLevels(options: WalkOptions): Promise<IgnoreLevel[]> {
  const { root, workspace, isProtected } = options;
  if (workspace === null) return [];
  const exclude = await readIgnoreLevel(workspace, isProtected, '.git/info/exclude');
  let levels: IgnoreLevel[] = exclude === null ? [] : [exclude];
  const names = path.relative(workspace, root).split(path.sep).filter(Boolean);
  let folder = workspace;
  for (let depth = 0; ; depth += 1) {
    if (folder === root) return levels;
    const own = await readIgnoreLevel(folder, isProtected);
    if (own !== null) levels.push(own);
    folder = path.join(folder, names[depth]!);
    if (NOISY_FOLDERS.has(names[depth]!) || isIgnored(levels, folder, true)) levels = [];
  }
}
