/**
 * A command line as `/bin/sh -c` would split it, for the simple commands that allow rules
 * may match: words separated by blanks, quotes honoured, nothing the shell would expand.
 */

/** Printable characters that make the shell do more than run one program with literal arguments. */
export const SHELL_METACHARACTERS = ';&|`$<>()\\*?[]{}~#';

/**
 * The first character of `text` the shell treats specially: a separator, pipe,
 * redirection, substitution, glob, `~`, comment, escape, or a control character other
 * than the tab (newlines separate commands). Null when there is none.
 */
export function findShellSpecial(text: string): string | null {
  for (const char of text) {
    const code = char.charCodeAt(0);
    if (SHELL_METACHARACTERS.includes(char)) return char;
    if ((code < 0x20 && char !== '\t') || code === 0x7f) return char;
  }
  return null;
}

/** The outcome of {@link commandWords}; `reason` completes "the command …". */
export type CommandWords = { ok: true; argv: string[] } | { ok: false; reason: string };

/** The words of a simple command, or why it is not one. */
export function commandWords(command: string): CommandWords {
  const special = findShellSpecial(command);
  if (special !== null) {
    return { ok: false, reason: `contains the shell metacharacter ${JSON.stringify(special)}` };
  }
  const split = splitWords(command);
  if (split.openQuote) return { ok: false, reason: 'has a quote that is never closed' };
  if (split.words.length === 0) return { ok: false, reason: 'is empty' };
  return { ok: true, argv: split.words };
}

/**
 * Best-effort words of each part of a command that separators, pipes and substitutions
 * split, for deny rules. Not a shell parser: `sh -c '…'`, variables and aliases defeat it.
 */
export function commandParts(command: string): string[][] {
  return command
    .split(/;|&|\||\n|\r|`|\$\(|\(|\)|\{|\}/)
    .map((part) => splitWords(part).words.map((word) => word.replace(/\\/g, '')))
    .filter((words) => words.length > 0);
}

function splitWords(text: string): { words: string[]; openQuote: boolean } {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: string | null = null;
  for (const char of text) {
    if (quote !== null) {
      if (char === quote) quote = null;
      else word += char;
    } else if (char === ' ' || char === '\t') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      inWord = true;
      if (char === '"' || char === "'") quote = char;
      else word += char;
    }
  }
  if (inWord) words.push(word);
  return { words, openQuote: quote !== null };
}
