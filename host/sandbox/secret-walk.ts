/**
 * The walk that finds, in the folders a command may write, what the sandbox must hide or
 * keep read-only: secrets (by the policy's secret set) and what makes git run code: each
 * repository's `hooks`, `config` and `info`, those of its submodules and worktrees, a
 * `.git` file pointing elsewhere, and a bare repository's own. Run again after the call, it
 * tells which of them a command created or changed where the sandbox could not refuse it
 * (bubblewrap cannot refuse a new name), and which entries of a git folder it added that
 * git would follow to code elsewhere (`commondir`, `gitdir`, `config.worktree`).
 */
import type { Dirent, Stats } from 'node:fs';
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { HiddenPath } from './types.js';

/** Folders not entered: dependencies and build output (docs/policy.md says so). */
const SKIPPED_FOLDERS: ReadonlySet<string> = new Set([
  'node_modules',
  '.venv',
  '__pycache__',
  '.next',
  'target',
  '.cache',
  '.turbo',
  '.gradle',
  '.hg',
  '.svn',
]);

/** The entries of a git folder that make git run code: hooks, config (fsmonitor…), info. */
export const GIT_CODE_ENTRIES: readonly string[] = ['hooks', 'config', 'info'];

/**
 * Entries of a git folder that git writes in ordinary work (commits, merges, fetches): a
 * command may change them. Any other entry it adds or changes is reported.
 */
const GIT_WORK_ENTRIES: ReadonlySet<string> = new Set([
  'objects',
  'refs',
  'logs',
  'index',
  'HEAD',
  'ORIG_HEAD',
  'FETCH_HEAD',
  'MERGE_HEAD',
  'MERGE_MSG',
  'MERGE_MODE',
  'MERGE_RR',
  'AUTO_MERGE',
  'CHERRY_PICK_HEAD',
  'REVERT_HEAD',
  'REBASE_HEAD',
  'COMMIT_EDITMSG',
  'TAG_EDITMSG',
  'SQUASH_MSG',
  'packed-refs',
  'description',
  'shallow',
  'rr-cache',
  'lfs',
]);

/** Entries by which git follows a repository to folders elsewhere: removed when a call adds them. */
export const GIT_REDIRECT_ENTRIES: readonly string[] = ['commondir', 'gitdir', 'config.worktree'];

/** What a walk found: by absolute path, a signature of the entry as it was. */
export interface SecretSnapshot {
  hidden: HiddenPath[];
  /** What makes git run code, existing: kept read-only. */
  gitCode: string[];
  /** Git folders found (`.git`, a submodule's, a worktree's, a bare repository). */
  gitDirs: string[];
  /** Every entry above, and a git folder's own entries, with its signature. */
  signatures: Map<string, string>;
  /** True when the walk stopped at its entry cap: what lies past it was not seen. */
  capped: boolean;
}

/**
 * Walks `roots` (real paths) depth first without following symlinks, a folder's git data
 * first, skipping dependency and build folders, and collects every entry `isSecret` names
 * (not entered) and what makes git run code. Synchronous: a few thousand `readdir`s take
 * milliseconds this way and ten times longer through the thread pool.
 */
export function snapshotSecrets(
  roots: readonly string[],
  isSecret: (absolute: string) => boolean,
  maxEntries: number,
): SecretSnapshot {
  const snapshot: SecretSnapshot = {
    hidden: [],
    gitCode: [],
    gitDirs: [],
    signatures: new Map(),
    capped: false,
  };
  let seen = 0;
  const note = (absolute: string, stats: Stats): void => {
    snapshot.signatures.set(absolute, signature(stats));
  };
  const visitGitDir = (gitDir: string): void => {
    snapshot.gitDirs.push(gitDir);
    for (const entry of readEntries(gitDir)) {
      const absolute = path.join(gitDir, entry.name);
      const stats = lstatOrNull(absolute);
      if (stats === null) continue;
      if (GIT_CODE_ENTRIES.includes(entry.name)) {
        note(absolute, stats);
        if (stats.isSymbolicLink()) continue;
        snapshot.gitCode.push(absolute);
        if (stats.isDirectory()) noteChildren(absolute, snapshot);
        continue;
      }
      if (isSecret(absolute) && !stats.isSymbolicLink()) {
        snapshot.hidden.push({ path: absolute, type: stats.isDirectory() ? 'dir' : 'file' });
        note(absolute, stats);
        continue;
      }
      if ((entry.name === 'modules' || entry.name === 'worktrees') && stats.isDirectory()) {
        note(absolute, stats);
        // Each folder inside is a git folder of its own (modules nest: modules/a/modules/b).
        for (const inner of readEntries(absolute)) {
          if (inner.isDirectory()) visitGitDir(path.join(absolute, inner.name));
        }
        continue;
      }
      if (!GIT_WORK_ENTRIES.has(entry.name) && !entry.name.endsWith('.lock')) {
        note(absolute, stats);
      }
    }
  };
  const visit = (folder: string): void => {
    const entries = readEntries(folder);
    if (isBareRepository(entries)) {
      visitGitDir(folder);
      return;
    }
    // Git data first: a folder past the entry cap must not leave a repository unseen.
    entries.sort((a, b) => Number(b.name === '.git') - Number(a.name === '.git'));
    for (const entry of entries) {
      seen += 1;
      if (seen > maxEntries) {
        snapshot.capped = true;
        return;
      }
      const absolute = path.join(folder, entry.name);
      if (entry.name === '.git') {
        const stats = lstatOrNull(absolute);
        if (stats === null) continue;
        // A `.git` file names the git folder elsewhere (a worktree, a submodule).
        if (!stats.isDirectory()) {
          note(absolute, stats);
          if (stats.isFile()) snapshot.gitCode.push(absolute);
          continue;
        }
        visitGitDir(absolute);
        continue;
      }
      if (isSecret(absolute)) {
        const stats = lstatOrNull(absolute);
        if (stats === null) continue;
        note(absolute, stats);
        // A link at a secret's name is noted (a new one is reported), never covered.
        if (!stats.isSymbolicLink()) {
          snapshot.hidden.push({ path: absolute, type: stats.isDirectory() ? 'dir' : 'file' });
        }
        continue;
      }
      if (!entry.isDirectory()) continue;
      if (SKIPPED_FOLDERS.has(entry.name)) continue;
      visit(absolute);
      if (snapshot.capped) return;
    }
  };
  for (const root of roots) {
    if (snapshot.capped) break;
    const stats = lstatOrNull(root);
    if (stats?.isDirectory() === true) visit(root);
  }
  return snapshot;
}

/**
 * The protected entries `after` holds that `before` did not, or holds changed, or lost:
 * what a command made, rewrote or removed at a protected path. Sorted.
 */
export function changedSecrets(before: SecretSnapshot, after: SecretSnapshot): string[] {
  const changed: string[] = [];
  for (const [absolute, sig] of after.signatures) {
    if (before.signatures.get(absolute) !== sig) changed.push(absolute);
  }
  for (const absolute of before.signatures.keys()) {
    if (!after.signatures.has(absolute)) changed.push(absolute);
  }
  return changed.sort();
}

/** A folder laid out as a bare repository: `HEAD`, `objects/`, `refs/`. */
function isBareRepository(entries: readonly Dirent[]): boolean {
  const has = (name: string, folder: boolean) =>
    entries.some((entry) => entry.name === name && entry.isDirectory() === folder);
  return has('HEAD', false) && has('objects', true) && has('refs', true);
}

function readEntries(folder: string): Dirent[] {
  try {
    return readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Files directly inside a `.git/hooks` or `.git/info` folder: a new hook counts. */
function noteChildren(folder: string, snapshot: SecretSnapshot): void {
  for (const entry of readEntries(folder)) {
    const absolute = path.join(folder, entry.name);
    const stats = lstatOrNull(absolute);
    if (stats !== null) snapshot.signatures.set(absolute, signature(stats));
  }
}

function signature(stats: Stats): string {
  const type = stats.isDirectory() ? 'd' : stats.isSymbolicLink() ? 'l' : 'f';
  return `${type}:${stats.size}:${stats.mtimeMs}:${stats.ino}:${stats.mode}`;
}

function lstatOrNull(absolute: string): Stats | null {
  try {
    return lstatSync(absolute);
  } catch {
    return null;
  }
}
