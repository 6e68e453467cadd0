/**
 * Resolving the configured workspaces to real paths with unique names.
 */
import { realpathSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { ConfigIssue, Workspace } from './types.js';

/** A workspace as configured: an absolute path and where it was given. */
export interface WorkspaceEntry {
  path: string;
  source: string;
  field: string;
  /** The config file's default isolation for new tasks here. */
  isolation?: 'worktree';
}

/**
 * Each entry must be an existing folder; it is stored by its real path (symlinks
 * resolved) and named after it. A folder given twice is kept once (with a worktree default
 * if either entry has one); two folders with the same name become `name`, `name-2`,
 * `name-3`… in the order given.
 */
export function resolveWorkspaces(
  entries: readonly WorkspaceEntry[],
  issues: ConfigIssue[],
): Workspace[] {
  const workspaces: Workspace[] = [];
  for (const entry of entries) {
    let path: string;
    try {
      path = realpathSync(entry.path);
      if (!statSync(path).isDirectory()) {
        issues.push({ source: entry.source, field: entry.field, message: `not a folder: ${path}` });
        continue;
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const message =
        code === 'ENOENT' ? `no such folder: ${entry.path}` : `cannot use ${entry.path}: ${code}`;
      issues.push({ source: entry.source, field: entry.field, message });
      continue;
    }
    const same = workspaces.find((workspace) => workspace.path === path);
    if (same !== undefined) {
      // Given twice (in the file and by --workspace): a worktree default from either holds.
      if (entry.isolation !== undefined) same.isolation = entry.isolation;
      continue;
    }
    const base = basename(path) || path;
    let name = base;
    for (let n = 2; workspaces.some((workspace) => workspace.name === name); n++) {
      name = `${base}-${n}`;
    }
    workspaces.push({
      name,
      path,
      ...(entry.isolation === undefined ? {} : { isolation: entry.isolation }),
    });
  }
  return workspaces;
}
