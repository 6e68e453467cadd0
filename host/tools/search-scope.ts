/**
 * What find_files and search_files share: their options, the folder a call searches (its
 * `path` resolved like read_file's, its protection compiled), the glob filter, and the
 * lines that say what the walk left out and why it stopped.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { z } from 'zod';
import { failedResult, fileSystemFailure } from './tool-result.js';
import type { ApprovalPreview } from '../../protocol/index.js';
import type { ProtectedPathCheck, ToolContext, ToolPreviewContext, ToolResult } from './types.js';
import { resolveToolPath } from './workspace-path.js';
import type { WalkStats } from './workspace-walk.js';

/** How the search tools are made. */
export interface SearchToolOptions {
  /**
   * The protected paths of a workspace, as policy knows them (its built-in ones and the
   * config's): the walk neither lists nor reads them.
   */
  protectedPaths: (workspace: string) => Promise<ProtectedPathCheck>;
  /** Wall-clock budget of one call, walk and matching together (default 10 s). */
  deadlineMs?: number;
}

/** Default wall-clock budget of one search call. */
export const SEARCH_DEADLINE_MS = 10_000;
/** Most directory entries one call looks at. */
export const SEARCH_MAX_ENTRIES = 200_000;

/** The `path` field both tools take. */
export const searchPathInput = z
  .string()
  .min(1)
  .optional()
  .describe('Folder (or file) to search: relative to the workspace or absolute (default: .).');

/** A glob over paths below `path`, checked at the edge. */
export const globInput = z
  .string()
  .min(1)
  .max(1000)
  .refine((glob) => !glob.startsWith('/') && !glob.split('/').includes('..'), {
    error:
      'a glob is matched against paths below path: write it without a leading / or .., and set path instead',
  })
  .refine((glob) => glob.split('/').every((name) => name === '**' || starsIn(name) <= 3), {
    error: `a glob may hold at most 3 * in one name (each is a loop over the name's characters): write a shorter one, or use search_files's pattern`,
  });

function starsIn(name: string): number {
  return name.split('*').length - 1;
}

/** A matcher for `glob`: one without `/` matches a file's name, one with `/` its path below the root. */
export function globMatcher(glob: string): (underRoot: string) => boolean {
  // The glob is the model's and is matched on the host's event loop: each `*` of a name is
  // a loop over its characters (`*a*a*a*a*a*a*a*a*a*a*a*b` took 80 s on a 40-character name),
  // and an extglob nests them without bound (`+(*a)b`), so they are off.
  const matches = picomatch(glob, { dot: true, noextglob: true });
  return glob.includes('/') ? matches : (underRoot) => matches(path.basename(underRoot));
}

/** Where one call searches. */
export interface SearchScope {
  root: string;
  /** The workspace when `root` is inside it, else null (an approved path outside). */
  workspace: string | null;
  /** The root as output shows it. */
  where: string;
  isProtected: ProtectedPathCheck;
}

/**
 * Resolves a call's `path` to where it searches, or the failed result saying why it
 * cannot: outside the workspace unapproved, protected, Git data, missing.
 */
export async function resolveSearchScope(
  tool: string,
  requested: string,
  ctx: ToolContext,
  options: SearchToolOptions,
): Promise<SearchScope | ToolResult> {
  const resolved = await resolveToolPath(ctx, requested);
  if (!resolved.ok) return failedResult(resolved.code, resolved.reason);
  const relative = path.relative(ctx.workspace, resolved.path);
  const inside = !(
    relative === '..' ||
    relative.startsWith(`..${path.sep}`) ||
    path.isAbsolute(relative)
  );
  const isProtected = await options.protectedPaths(ctx.workspace);
  const where = resolved.relative;
  // `.git` may be read by read_file, but a search of it would turn up its config (remote
  // URLs with tokens) and object names without adding anything about the code. In any
  // case: APFS finds `.GIT` as `.git`, and the path is as the model spelled it.
  if (resolved.path.split(path.sep).some((segment) => segment.toLowerCase() === '.git')) {
    return failedResult('permission_denied', `${tool} does not search Git data (${where})`);
  }
  if (isProtected(resolved.path)) {
    return failedResult(
      'permission_denied',
      `${where} is a protected path; ${tool} may not read it`,
    );
  }
  try {
    await stat(resolved.path);
  } catch (error) {
    return fileSystemFailure(error, where);
  }
  return { root: resolved.path, workspace: inside ? ctx.workspace : null, where, isProtected };
}

/**
 * The approval card of a search (when policy asks): the real path of the folder it would
 * read, rather than the workspace a preview-less read shows.
 */
export async function previewSearch(
  requested: string,
  ctx: ToolPreviewContext,
): Promise<ApprovalPreview> {
  const resolved = await resolveToolPath(ctx, requested);
  return { kind: 'path', path: 'path' in resolved ? resolved.path : requested, access: 'read' };
}

/** `skipped: 3 ignored by .gitignore, 2 noisy folders (dist, node_modules), …`, or null. */
export function describeSkipped(stats: WalkStats, more: [number, string][]): string | null {
  const { skipped } = stats;
  const noisy = [...stats.noisyNames].sort().join(', ');
  const parts: [number, string][] = [
    [skipped.ignored, 'ignored by .gitignore'],
    [skipped.noisy, `in noisy folders not entered (${noisy}; name one as path to search it)`],
    [skipped.protected, 'protected'],
    [skipped.symlinks, 'symlinks (never followed)'],
    [skipped.special, 'not regular files'],
    [skipped.unreadable, 'unreadable folders'],
    ...more,
  ];
  const shown = parts.filter(([count]) => count > 0).map(([count, what]) => `${count} ${what}`);
  return shown.length === 0 ? null : `skipped: ${shown.join(', ')}`;
}

/** Why a walk stopped early, as a line for the model, or null when it did not. */
export function describeWalkStop(stats: WalkStats, deadlineMs: number): string | null {
  switch (stats.stopped) {
    case null:
      return null;
    case 'deadline':
      return `INCOMPLETE: the walk stopped at the ${deadlineMs} ms deadline; narrow path or glob`;
    case 'entry_cap':
      return `INCOMPLETE: the walk stopped after ${SEARCH_MAX_ENTRIES} entries; narrow path or glob`;
  }
}

/** Most characters of result lines one call returns, whatever maxResults asks. */
const SEARCH_MAX_CONTENT_CHARS = 64 * 1024;

/** The first of `lines` that fit in the content budget. */
export function fitLines(lines: readonly string[]): string[] {
  let chars = 0;
  const kept: string[] = [];
  for (const line of lines) {
    chars += line.length + 1;
    if (chars > SEARCH_MAX_CONTENT_CHARS) break;
    kept.push(line);
  }
  return kept;
}

/** `1 file`, `2 files`. */
export function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** A path for a `path:line:` line: quoted when it holds a control character. */
export function showPath(shown: string): string {
  return /\p{Cc}/u.test(shown) ? JSON.stringify(shown) : shown;
}
