/**
 * Folders that hold dependencies, build output, caches or version-control data: trees too
 * large or too generated to be worth reading. list_directory counts them instead of
 * descending; find_files and search_files skip them unless their `path` is inside one.
 */

/** Folder names, matched exactly (case-sensitive) wherever they appear. */
export const NOISY_FOLDERS: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  'dist',
  'build',
  '.venv',
  '__pycache__',
  '.next',
  'target',
  '.cache',
  '.turbo',
  '.gradle',
]);
