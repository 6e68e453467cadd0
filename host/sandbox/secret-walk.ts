/**
 * The walk that finds, in the folders a command may write, what the sandbox must hide or
 * keep read-only: secrets (by the policy's secret set) and the `.git` internals that make
 * git run code. Run again after the call, it tells which of them a command created or
 * changed where the sandbox could not refuse it (bubblewrap cannot refuse a new name).
 */
import type { Dirent, Stats } from 'node:fs';
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { HiddenPath } from './types.js';

/** Folders not entered: dependencies and build output (`.git` is looked at by hand). */
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

/** The `.git` entries that make git run code: hooks, config (fsmonitor, hooksPath), info. */
export const GIT_CODE_ENTRIES: readonly string[] = ['hooks', 'config', 'info'];

/** What a walk found: by absolute path, a signature of the entry as it was. */
export interface SecretSnapshot {
  hidden: HiddenPath[];
  /** `.git` internals of each repository found (existing ones). */
  gitCode: string[];
  /** Every entry above with its signature (type, size, mtime, inode). */
  signatures: Map<string, string>;
  /** True when the walk stopped at its entry cap: what lies past it was not seen. */
  capped: boolean;
}

/**
 * Walks `roots` (real paths) depth first without following symlinks, skipping dependency
 * and build folders, and collects every entry `isSecret` names (not entered) and the
 * `.git` internals. Synchronous: a few thousand `readdir`s take milliseconds this way and
 * ten times longer through the thread pool.
 */
export function snapshotSecrets(
  roots: readonly string[],
  isSecret: (absolute: string) => boolean,
  maxEntries: number,
): SecretSnapshot {
  const snapshot: SecretSnapshot = {
    hidden: [],
    gitCode: [],
    signatures: new Map(),
    capped: false,
  };
  let seen = 0;
  const note = (absolute: string, stats: Stats): void => {
    snapshot.signatures.set(absolute, signature(stats));
  };
  const visit = (folder: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      seen += 1;
      if (seen > maxEntries) {
        snapshot.capped = true;
        return;
      }
      const absolute = path.join(folder, entry.name);
      if (isSecret(absolute)) {
        const stats = lstatOrNull(absolute);
        if (stats === null || stats.isSymbolicLink()) continue;
        snapshot.hidden.push({ path: absolute, type: stats.isDirectory() ? 'dir' : 'file' });
        note(absolute, stats);
        continue;
      }
      if (!entry.isDirectory()) continue;
      if (entry.name === '.git') {
        for (const name of GIT_CODE_ENTRIES) {
          const inner = path.join(absolute, name);
          const stats = lstatOrNull(inner);
          if (stats === null || stats.isSymbolicLink()) continue;
          snapshot.gitCode.push(inner);
          note(inner, stats);
          if (stats.isDirectory()) noteChildren(inner, snapshot);
        }
        continue;
      }
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
 * The protected entries `after` holds that `before` did not, or holds changed: what a
 * command made or rewrote at a protected path. Sorted.
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

/** Files directly inside a `.git/hooks` or `.git/info` folder: a new hook counts. */
function noteChildren(folder: string, snapshot: SecretSnapshot): void {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    const absolute = path.join(folder, name);
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
