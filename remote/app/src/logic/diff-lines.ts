/**
 * Unified diffs split into lines and classified, so a view can color additions and removals.
 */

/** What a diff line is. */
export type DiffLineKind = 'add' | 'remove' | 'hunk' | 'header' | 'context';

/** One line of a unified diff. */
export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

/** Classifies each line of a unified diff (`---`/`+++` file headers are not changes). */
export function diffLines(diff: string): DiffLine[] {
  const lines = diff.endsWith('\n') ? diff.slice(0, -1).split('\n') : diff.split('\n');
  return lines.map((text) => ({ kind: kindOf(text), text }));
}

/** Whether a file looks like a diff by its name or kind. */
export function looksLikeDiff(name: string, kind: string): boolean {
  return kind === 'diff' || kind === 'patch' || /\.(diff|patch)$/i.test(name);
}

function kindOf(line: string): DiffLineKind {
  if (line.startsWith('+++ ') || line.startsWith('--- ')) return 'header';
  if (/^(diff |index |new file|deleted file|similarity|rename )/.test(line)) return 'header';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'remove';
  return 'context';
}
