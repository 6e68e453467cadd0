/**
 * Whether a folder holds a protected path anywhere below it: a command that reads trees
 * (`grep -r`, `git diff --no-index`, `tar`) given the folder would read it too.
 */
import { opendir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { ProtectedPaths, Protection } from './protected-paths.js';
import { isInside } from '../sandbox/index.js';

/** Most entries looked at before the answer is "too large to check". */
const PROTECTED_SCAN_MAX_ENTRIES = 20_000;

/** What a scan of a folder found. */
export type ProtectedInside =
  | { found: false }
  | { found: true; path: string; protection: Protection }
  | { found: 'unknown'; reason: string };

/**
 * Walks `folder` (a real path) breadth first, checking protection for reading (a folder
 * holding `.git` may be read). A symlink inside is judged by where it points and not
 * followed; one pointing out of `folder` makes the answer "unknown".
 */
export async function findProtectedInside(
  folder: string,
  isProtected: ProtectedPaths,
  maxEntries = PROTECTED_SCAN_MAX_ENTRIES,
): Promise<ProtectedInside> {
  const queue = [folder];
  let seen = 0;
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    let entries;
    try {
      entries = await opendir(next);
    } catch (error) {
      return { found: 'unknown', reason: `cannot read ${next}: ${String(error)}` };
    }
    for await (const entry of entries) {
      seen += 1;
      if (seen > maxEntries) {
        return {
          found: 'unknown',
          reason: `${folder} holds more than ${maxEntries} entries, too many to check for protected files`,
        };
      }
      const lexical = path.join(next, entry.name);
      const real = entry.isSymbolicLink() ? await realOrSelf(lexical) : lexical;
      const protection = isProtected({ lexical, real }, 'read');
      if (protection !== null) return { found: true, path: lexical, protection };
      // A reader that follows links (grep -R, cat) would read the tree the link leads to.
      if (real !== lexical && !isInside(real, folder)) {
        return { found: 'unknown', reason: `${lexical} links to ${real}, outside ${folder}` };
      }
      if (entry.isDirectory()) queue.push(lexical);
    }
  }
  return { found: false };
}

async function realOrSelf(entry: string): Promise<string> {
  try {
    return await realpath(entry);
  } catch {
    return entry;
  }
}
