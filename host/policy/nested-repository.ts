/**
 * Repositories inside the workspace other than its own: git run in one reads that
 * repository's config, which the workspace supplies, so a command an allow rule lets
 * through must not run there unasked (docs/policy.md, "Commands that run unattended").
 */
import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * The first folder from `cwd` up to the workspace that git would take for a repository of
 * its own: one holding `.git` (below the workspace root), or laid out as a bare repository
 * (`HEAD`, `objects/`, `refs/`; the workspace root too). Null when there is none. Both
 * paths are real paths, `cwd` inside `workspace`.
 */
export async function nestedRepository(cwd: string, workspace: string): Promise<string | null> {
  for (let folder = cwd; ; folder = path.dirname(folder)) {
    const isRoot = folder === workspace;
    if (!isRoot && (await exists(path.join(folder, '.git')))) return folder;
    if (await looksLikeBareRepository(folder)) return folder;
    if (isRoot || path.dirname(folder) === folder) return null;
  }
}

async function looksLikeBareRepository(folder: string): Promise<boolean> {
  // Followed like git follows them: a symlinked HEAD, objects or refs counts.
  const [head, objects, refs] = await Promise.all(
    ['HEAD', 'objects', 'refs'].map((name) => kindOf(path.join(folder, name), stat)),
  );
  return head === 'file' && objects === 'directory' && refs === 'directory';
}

async function exists(entry: string): Promise<boolean> {
  return (await kindOf(entry, lstat)) !== null;
}

async function kindOf(
  entry: string,
  look: typeof stat,
): Promise<'file' | 'directory' | 'other' | null> {
  try {
    const stats = await look(entry);
    if (stats.isFile()) return 'file';
    return stats.isDirectory() ? 'directory' : 'other';
  } catch {
    return null;
  }
}
