/**
 * `list_directory {path, depth?}`: a directory's tree to a small depth, breadth first
 * under an entry cap, with noisy folders (dependencies, build output, VCS data) counted
 * instead of descended and symlinks shown, never followed.
 */
import type { Dirent } from 'node:fs';
import { lstat, opendir, readdir, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { errnoCode } from './errno.js';
import { formatBytes } from './format-bytes.js';
import { NOISY_FOLDERS } from './noisy-folders.js';
import { failedResult, fileSystemFailure } from './tool-result.js';
import { defineTool } from './tool-input.js';
import { resolveToolPath } from './workspace-path.js';

/** Levels listed when the input has no `depth`. */
const LIST_DIRECTORY_DEFAULT_DEPTH = 2;
/** Most entries one listing returns. */
const LIST_DIRECTORY_MAX_ENTRIES = 500;

/** One listed entry. Directories at the last level carry no counts: they were not read. */
export interface DirectoryEntry {
  /** Relative to the workspace. */
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  /** Files: size in bytes. */
  size?: number;
  /** Symlinks: the link's text, as written; the link is not followed. */
  target?: string;
  /** Directories that were read or counted: how many entries they hold. */
  entries?: number;
  /** Directories: how many of their entries are not listed. */
  omitted?: number;
  /** Directories within depth whose entries are missing or partial, and why. */
  notListed?: 'noisy' | 'entry_cap' | 'unreadable';
  /** Unreadable directories: the errno code. */
  error?: string;
}

interface TreeNode {
  entry: DirectoryEntry;
  children: TreeNode[];
}

const listDirectoryInput = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe('The directory: relative to the workspace (. for its root), or absolute inside it.'),
  depth: z
    .int()
    .min(1)
    .max(3)
    .optional()
    .describe(`Levels to list, 1 to 3 (default ${LIST_DIRECTORY_DEFAULT_DEPTH}).`),
});

/** Validated input of `list_directory`. */
export type ListDirectoryInput = z.infer<typeof listDirectoryInput>;

/** The `list_directory` tool. */
export const listDirectoryTool = defineTool<ListDirectoryInput>({
  name: 'list_directory',
  description:
    `List a directory in the workspace as an indented tree, names sorted, directories ending ` +
    `in /, file sizes in parentheses, symlinks as "name -> target" (not followed). Lists ` +
    `depth levels (default ${LIST_DIRECTORY_DEFAULT_DEPTH}, at most 3), shallower levels ` +
    `first, up to ${LIST_DIRECTORY_MAX_ENTRIES} entries. Folders such as .git and ` +
    `node_modules are counted, not listed; list them by path to see inside.`,
  input: listDirectoryInput,
  access: (input) => ({ kind: 'read', path: input.path }),
  async execute(input, ctx) {
    const resolved = await resolveToolPath(ctx, input.path);
    if (!resolved.ok) return failedResult(resolved.code, resolved.reason);
    const where = resolved.relative;
    const depth = input.depth ?? LIST_DIRECTORY_DEFAULT_DEPTH;
    const root: TreeNode = { entry: { path: where, type: 'directory' }, children: [] };
    let listed = 0;
    let unread = 0;
    try {
      if (!(await stat(resolved.path)).isDirectory()) {
        return failedResult('not_a_directory', `${where} is not a directory; use read_file`);
      }
      let level = [{ node: root, absolute: resolved.path }];
      for (let current = 1; current <= depth && level.length > 0; current += 1) {
        const next: typeof level = [];
        for (const { node, absolute } of level) {
          ctx.signal.throwIfAborted();
          if (listed === LIST_DIRECTORY_MAX_ENTRIES) {
            node.entry.notListed = 'entry_cap';
            unread += 1;
            continue;
          }
          const read = await readSorted(absolute, node !== root);
          if (!Array.isArray(read)) {
            node.entry.notListed = 'unreadable';
            node.entry.error = read.error;
            continue;
          }
          const shown = read.slice(0, LIST_DIRECTORY_MAX_ENTRIES - listed);
          listed += shown.length;
          node.entry.entries = read.length;
          if (shown.length < read.length) {
            node.entry.omitted = read.length - shown.length;
            node.entry.notListed = 'entry_cap';
          }
          node.children = await Promise.all(
            shown.map((dirent) => describeEntry(dirent, absolute, node.entry.path)),
          );
          for (const child of node.children) {
            const name = path.basename(child.entry.path);
            if (child.entry.type === 'directory' && child.entry.notListed === undefined) {
              next.push({ node: child, absolute: path.join(absolute, name) });
            }
          }
        }
        level = next;
      }
    } catch (error) {
      if (ctx.signal.aborted) return failedResult('cancelled', `listing ${where} was cancelled`);
      return fileSystemFailure(error, where);
    }

    const entries: DirectoryEntry[] = [];
    const lines = [`${where}/ (depth ${depth}, ${listed} entries)`];
    const walk = (node: TreeNode, indent: string): void => {
      for (const child of node.children) {
        entries.push(child.entry);
        lines.push(indent + renderEntry(child.entry));
        walk(child, `${indent}  `);
      }
    };
    walk(root, '  ');
    const omitted = entries.reduce(
      (sum, entry) => sum + (entry.notListed === 'entry_cap' ? (entry.omitted ?? 0) : 0),
      root.entry.omitted ?? 0,
    );
    const truncated = omitted > 0 || unread > 0;
    if (truncated) {
      lines.push(
        `entry cap of ${LIST_DIRECTORY_MAX_ENTRIES} reached: ${omitted} entries not listed, ` +
          `${unread} directories not read; list a subdirectory to see more`,
      );
    }
    return {
      status: 'succeeded',
      summary: `listed ${listed} entries in ${where} (depth ${depth}${truncated ? ', cut at the entry cap' : ''})`,
      content: lines.join('\n'),
      data: { path: where, depth, listed, omitted, unreadDirectories: unread, truncated, entries },
    };
  },
});

/** A directory's entries sorted by name; for a subdirectory, an unreadable one is a fact. */
async function readSorted(
  absolute: string,
  tolerateErrors: boolean,
): Promise<Dirent[] | { error: string }> {
  try {
    const dirents = await readdir(absolute, { withFileTypes: true });
    return dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    const code = errnoCode(error);
    if (!tolerateErrors || code === undefined) throw error;
    return { error: code };
  }
}

async function describeEntry(
  dirent: Dirent,
  parent: string,
  parentPath: string,
): Promise<TreeNode> {
  const absolute = path.join(parent, dirent.name);
  const entry: DirectoryEntry = {
    path: parentPath === '.' ? dirent.name : path.join(parentPath, dirent.name),
    type: dirent.isSymbolicLink()
      ? 'symlink'
      : dirent.isFile()
        ? 'file'
        : dirent.isDirectory()
          ? 'directory'
          : 'other',
  };
  try {
    if (entry.type === 'symlink') entry.target = await readlink(absolute);
    if (entry.type === 'file') entry.size = (await lstat(absolute)).size;
    if (entry.type === 'directory' && NOISY_FOLDERS.has(dirent.name)) {
      entry.entries = await countEntries(absolute);
      entry.omitted = entry.entries;
      entry.notListed = 'noisy';
    }
  } catch (error) {
    // The entry may have vanished or be unreadable: that is a fact about it, not a failure.
    const code = errnoCode(error);
    if (code === undefined) throw error;
    entry.error = code;
    if (entry.type === 'directory') entry.notListed = 'unreadable';
  }
  return { entry, children: [] };
}

async function countEntries(absolute: string): Promise<number> {
  let count = 0;
  // opendir streams the names: a huge folder is counted without holding its listing.
  for await (const _dirent of await opendir(absolute)) count += 1;
  return count;
}

function renderEntry(entry: DirectoryEntry): string {
  const raw = path.basename(entry.path);
  // A name with control characters (a newline…) would break the tree: show it quoted.
  const name = /\p{Cc}/u.test(raw) ? JSON.stringify(raw) : raw;
  switch (entry.type) {
    case 'file':
    case 'symlink':
    case 'other':
      if (entry.error !== undefined) return `${name} (unreadable: ${entry.error})`;
      if (entry.type === 'file') return `${name} (${formatBytes(entry.size ?? 0)})`;
      if (entry.type === 'symlink') return `${name} -> ${entry.target ?? ''}`;
      return `${name} (not a file or directory)`;
    case 'directory':
      switch (entry.notListed) {
        case 'noisy':
          return `${name}/ (${entry.entries} entries, not listed)`;
        case 'entry_cap':
          return entry.entries === undefined
            ? `${name}/ (not read: entry cap)`
            : `${name}/ (${entry.entries} entries, ${entry.omitted} not listed: entry cap)`;
        case 'unreadable':
          return `${name}/ (unreadable: ${entry.error})`;
        case undefined:
          return entry.entries === 0 ? `${name}/ (empty)` : `${name}/`;
      }
  }
}
