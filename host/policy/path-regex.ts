/**
 * Protected-path patterns as regular expressions on an absolute path, written so that one
 * source is valid both in JavaScript and as a POSIX extended regular expression (what
 * Seatbelt's `(regex #"…")` takes): anchored with `^`, no lookaround, no `\d`, no `{m,n}`,
 * letters matched without regard to case as `[Ee]` classes. Policy compiles the same
 * sources (adding the `i` and `u` flags), so the sandbox and policy deny the same paths.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';

/** Ends a match: the path itself, or anything inside it. */
const INSIDE = '(/|$)';

/** Characters written as a one-character class: special in both syntaxes. */
const CLASS_ESCAPED = new Set(['.', '*', '+', '?', '(', ')', '{', '}', '|', '$']);
/** Characters written with a backslash: a class would not hold them the same way in both. */
const BACKSLASH_ESCAPED = new Set(['\\', '^', '[', ']']);

/**
 * The regex sources of one protected-path glob (docs/policy.md, "Protected paths"): a
 * pattern without `/` (but for a trailing one), or whose first name is `**`, matches
 * names anywhere; one with `/` is a path, `~/…`, absolute, or relative to `workspace`.
 * `*` and `?` match within a name, `**` across folders; a folder's pattern covers what
 * is inside it. A path gives two sources when its leading folders have another real path
 * (a symlinked home folder). `unlessSuffix` (ASCII): a name pattern ending in `*` then
 * skips the names ending in it, `id_*` but not `id_*.pub`; what comes before its `*`
 * must not end that suffix itself.
 */
export function globSources(
  pattern: string,
  workspace: string,
  homedir: string,
  unlessSuffix?: string,
): string[] {
  const glob = pattern.normalize('NFC');
  // As in .gitignore: a slash before the end anchors the pattern (`secrets/**`), a
  // trailing one alone does not (`build/`), nor does a leading `**/`.
  const names = glob.replace(/^(\*\*\/)+/, '');
  const anchored = names === glob && glob.replace(/\/+$/, '').includes('/');
  // A trailing `/**` or `/` adds nothing: a folder's pattern covers what is inside it.
  const trimmed = names.replace(/(\/\*\*)+$|\/+$/, '');
  if (!anchored) return [`^.*/${globBody(trimmed, unlessSuffix)}${INSIDE}`];
  const absolute = (
    trimmed.startsWith('~/')
      ? path.join(homedir, trimmed.slice(2))
      : path.resolve(workspace, trimmed)
  ).normalize('NFC');
  const variants = new Set([absolute, realPrefix(absolute)]);
  return [...variants].map((variant) => `^${globBody(variant)}${INSIDE}`);
}

/**
 * The sources matching `protectedPath` (absolute, taken literally) and what is inside it,
 * but for `carvedOut` (absolute) and what is inside it when that lies below
 * `protectedPath`, and the folders between the two: a workspace inside Tether's data
 * directory (the demo's) stays usable while the rest of the data directory is denied.
 * Only a carve-out of plain ASCII names can be written without lookahead; any other
 * leaves the whole path protected.
 */
export function pathSources(protectedPath: string, carvedOut: string): string[] {
  const base = protectedPath.normalize('NFC');
  const relative = path.relative(base, carvedOut.normalize('NFC'));
  const below =
    relative !== '' &&
    relative !== '..' &&
    !relative.startsWith('../') &&
    !path.isAbsolute(relative);
  const segments = relative.split('/');
  // Printable ASCII without `"` (Seatbelt's string) or a character a class reads specially.
  const plain = (segment: string) => /^[\x20-\x7e]+$/.test(segment) && !/["\\^[\]]/.test(segment);
  if (!below || !segments.every(plain)) {
    return [`^${literalBody(base)}${INSIDE}`];
  }
  return segments.map(
    (segment, depth) =>
      `^${literalBody(path.join(base, ...segments.slice(0, depth)))}/${otherName(segment)}${INSIDE}`,
  );
}

/** `absolute` with its literal leading folders replaced by their real path, if they exist. */
function realPrefix(absolute: string): string {
  const segments = absolute.split('/');
  const firstGlob = segments.findIndex((segment) => /[*?]/.test(segment));
  const literal = firstGlob === -1 ? segments : segments.slice(0, firstGlob);
  const rest = firstGlob === -1 ? [] : segments.slice(firstGlob);
  for (let keep = literal.length; keep > 1; keep -= 1) {
    try {
      const real = realpathSync(literal.slice(0, keep).join('/'));
      return [real, ...literal.slice(keep), ...rest].join('/').normalize('NFC');
    } catch {
      // Not there: try the folder above.
    }
  }
  return absolute;
}

/** The source of a glob: `**` any folders, `*` and `?` within one name. */
function globBody(glob: string, unlessSuffix?: string): string {
  const chars = Array.from(glob);
  let out = '';
  for (let i = 0; i < chars.length; i += 1) {
    const char = chars[i] ?? '';
    if (char === '*' && chars[i + 1] === '*') {
      const folders = chars[i + 2] === '/';
      out += folders ? '([^/]*/)*' : '.*';
      i += folders ? 2 : 1;
    } else if (char === '*') {
      out +=
        unlessSuffix !== undefined && i === chars.length - 1 ? notEndingIn(unlessSuffix) : '[^/]*';
    } else if (char === '?') out += '[^/]';
    else out += literalChar(char);
  }
  return out;
}

function literalBody(text: string): string {
  return Array.from(text, literalChar).join('');
}

function literalChar(char: string): string {
  if (/^[A-Za-z]$/.test(char)) return `[${char.toUpperCase()}${char.toLowerCase()}]`;
  if (CLASS_ESCAPED.has(char)) return `[${char}]`;
  if (BACKSLASH_ESCAPED.has(char)) return `\\${char}`;
  // Seatbelt's `#"…"` string cannot hold a quote: any character stands for it.
  return char === '"' ? '.' : char;
}

/** What a negated class holds for `char`: both cases of a letter. */
function classMember(char: string): string {
  return /^[A-Za-z]$/.test(char) ? `${char.toUpperCase()}${char.toLowerCase()}` : char;
}

/**
 * Within one name, any text not ending in `suffix` (ASCII): shorter than it, or with at
 * least one of its last characters differing.
 */
function notEndingIn(suffix: string): string {
  const shorter = '[^/]?'.repeat(suffix.length - 1);
  const longer = `[^/]*(${differingFrom(suffix).join('|')})`;
  return shorter === '' ? `(${longer})?` : `(${shorter}|${longer})`;
}

/** Any one name but `name` (ASCII), compared without regard to case. */
function otherName(name: string): string {
  const shorter = '[^/]?'.repeat(name.length - 1);
  const longer = `${'[^/]'.repeat(name.length + 1)}[^/]*`;
  // The empty name never occurs in a path (`a//b` is `a/b`), so `shorter` may match it.
  const cases = [...(shorter === '' ? [] : [shorter]), longer, ...differingFrom(name)];
  return `(${cases.join('|')})`;
}

/** For each character of `text`: any text of its length that differs there. */
function differingFrom(text: string): string[] {
  return Array.from(
    text,
    (char, i) => '[^/]'.repeat(i) + `[^/${classMember(char)}]` + '[^/]'.repeat(text.length - 1 - i),
  );
}
