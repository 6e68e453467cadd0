/**
 * Text from a tool call (a command, a path, a diff) as a person may safely see it: every
 * character that a terminal or a browser would act on or hide instead of showing is
 * replaced by a visible escape, so `git status\r\x1b[2K; echo pwned #` cannot pass for
 * `git status`. Shown as `\r`, `\x1b` (below U+0100) or `\u{202E}`:
 * - controls (Unicode `Cc`): C0 except newline and tab, DEL, C1 (ESC starts every ANSI
 *   sequence, so escaping it leaves the rest of the sequence inert, visible text);
 * - format characters (`Cf`): the bidi controls U+061C, U+200E, U+200F, U+202A–U+202E,
 *   U+2066–U+2069, zero-width U+200B–U+200D, U+2060–U+2064, U+FEFF, soft hyphen U+00AD,
 *   tag characters U+E0001–U+E007F, and the rest of the class;
 * - line and paragraph separators U+2028, U+2029 (`Zl`, `Zp`), and lone surrogates.
 *
 * Newline is kept (commands and diffs span lines; each view shows where a line starts) and
 * tab is kept as is: it moves to the next tab stop and hides nothing, and escaping it
 * would garble every diff of a tab-indented file. A backslash is not escaped, so a view
 * that must tell a real escape from the same text typed out marks escapes itself
 * ({@link visibleParts}, {@link hiddenCount}).
 */

/**
 * Controls but tab and newline, format characters (bidi, zero-width, tags), separators;
 * one character, captured, so that `split` keeps it.
 */
const HIDDEN = /((?![\t\n])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}])/gu;

/** The escape shown for one hidden character. */
function escapeOf(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const hex = code.toString(16);
  if (code === 13) return '\\r';
  return code < 256 ? `\\x${hex.padStart(2, '0')}` : `\\u{${hex.toUpperCase()}}`;
}

/**
 * `text` in parts, for a view that marks the escapes: the parts at even indexes are text
 * as it is (possibly empty), those at odd indexes the escape of one hidden character.
 */
export function visibleParts(text: string): string[] {
  return text.split(HIDDEN).map((part, i) => (i % 2 === 1 ? escapeOf(part) : part));
}

/** `text` with every hidden character replaced by its visible escape. */
export function visibleText(text: string): string {
  return text.replace(HIDDEN, escapeOf);
}

/** How many characters of `text` {@link visibleText} escapes. */
export function hiddenCount(text: string): number {
  return text.match(HIDDEN)?.length ?? 0;
}

/**
 * `text` when it has at most `max` characters (UTF-16 code units), else its start and
 * `… [cut: N more characters]`: text is never cut without saying so. A surrogate pair is
 * not split.
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, end)}… [cut: ${text.length - end} more characters]`;
}
