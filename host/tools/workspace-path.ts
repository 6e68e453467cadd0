/**
 * Workspace containment by real path: a requested path is resolved with its symlinks
 * followed, then accepted only if the result is the workspace or inside it.
 */
import { readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { errnoCode } from './errno.js';
import { errorMessage } from '../../protocol/index.js';

/** The outcome of {@link resolveWorkspacePath}. */
export type WorkspacePath =
  | {
      ok: true;
      /** Real path (symlinks resolved; the on-disk case on case-insensitive file systems). */
      path: string;
      /** `path` relative to the workspace's real path; `.` for the workspace itself. */
      relative: string;
    }
  | {
      ok: false;
      code: 'path_outside_workspace';
      /** For people: `path is outside the workspace: /etc/passwd`. */
      reason: string;
      /** The real path outside the workspace, for a policy that may ask about it. */
      path: string;
    }
  | { ok: false; code: 'invalid_path'; reason: string };

// `realpath` of node:fs/promises has the semantics of `fs.realpath.native` (realpath(3)),
// which on macOS also gives each existing component its on-disk case.

// Linux's limit on symlinks followed in one lookup (MAXSYMLINKS).
const MAX_LINK_HOPS = 40;

/**
 * Resolves `requested` (relative to the workspace, or absolute) to a real path inside the
 * workspace. Symlinks are followed, also for paths that do not exist yet: the deepest
 * existing ancestor is resolved and the rest appended, and a dangling symlink on the way
 * is followed to where it points. `..`, absolute paths, symlinks pointing out and case
 * variants cannot escape. `workspace` is resolved to its real path too.
 */
export async function resolveWorkspacePath(
  workspace: string,
  requested: string,
): Promise<WorkspacePath> {
  if (requested.includes('\0')) {
    return { ok: false, code: 'invalid_path', reason: 'path contains a NUL byte' };
  }
  let root: string;
  let absolute: string;
  let real: string;
  try {
    root = await realpath(workspace);
    absolute = path.resolve(root, requested);
    real = await resolveRealPath(absolute, 0);
  } catch (error) {
    const message = errorMessage(error);
    return { ok: false, code: 'invalid_path', reason: `cannot resolve ${requested}: ${message}` };
  }
  const relative = path.relative(root, real);
  const outside =
    relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  if (outside) {
    const via = real === absolute ? '' : ` (resolves to ${real})`;
    return {
      ok: false,
      code: 'path_outside_workspace',
      reason: `path is outside the workspace: ${requested}${via}`,
      path: real,
    };
  }
  return { ok: true, path: real, relative: relative === '' ? '.' : relative };
}

async function resolveRealPath(absolute: string, hops: number): Promise<string> {
  try {
    return await realpath(absolute);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  const parent = path.dirname(absolute);
  if (parent === absolute) return absolute;
  const candidate = path.join(await resolveRealPath(parent, hops), path.basename(absolute));
  // realpath failed but the entry may still exist: a dangling symlink, which a later
  // write would follow, so it is resolved like any other link.
  const target = await readLinkIfAny(candidate);
  if (target === null) return candidate;
  if (hops >= MAX_LINK_HOPS) throw new Error('too many levels of symbolic links');
  return resolveRealPath(path.resolve(path.dirname(candidate), target), hops + 1);
}

async function readLinkIfAny(candidate: string): Promise<string | null> {
  try {
    return await readlink(candidate);
  } catch (error) {
    if (isMissing(error) || errnoCode(error) === 'EINVAL') return null;
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  const code = errnoCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Resolves a tool's path in its context: inside the workspace, or exactly the path outside
 * it that the user approved for this one call (a one-time external access approval).
 */
export async function resolveToolPath(
  ctx: {
    workspace: string;
    outsideAccess?: { path: string } | undefined;
    readOnlyFolders?: readonly string[] | undefined;
  },
  requested: string,
  access: 'read' | 'write' = 'write',
): Promise<WorkspacePath> {
  const resolved = await resolveWorkspacePath(ctx.workspace, requested);
  if (resolved.ok || resolved.code !== 'path_outside_workspace') return resolved;
  // A read inside a folder the host gave the run to read (its attachments).
  const readable = (ctx.readOnlyFolders ?? []).some((folder) =>
    resolved.path.startsWith(folder + path.sep),
  );
  if (access === 'read' && readable) {
    return { ok: true, path: resolved.path, relative: resolved.path };
  }
  if (ctx.outsideAccess === undefined || resolved.path !== ctx.outsideAccess.path) return resolved;
  return { ok: true, path: resolved.path, relative: resolved.path };
}
