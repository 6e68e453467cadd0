/**
 * Words (an allow rule's `["wc","-l","README.md"]`, an agent's terminal program and its
 * arguments) as the command line a person would type to run them: each word as is where a POSIX shell would read it back unchanged, else in
 * single quotes (`'My Notes.md'`, `'it'\''s'`, `''`). A path stays a path (`/`, `.`, `~`
 * after the first character, `-`, `=`, `:` and `,` need no quotes); a word starting with
 * `~` or `=` is quoted, since a shell (zsh for `=`) would expand it. Hidden characters are left for the view to
 * escape (`visibleText`, `shownText`).
 */

/** Characters a shell reads literally anywhere in a word. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./~-]+$/;

/** One word, quoted only where a shell would read it otherwise. */
function shellWord(word: string): string {
  if (PLAIN.test(word) && !/^[~=]/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The words as one command line: `git log --oneline`, `cat 'My Notes.md'`. */
export function commandLine(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}
