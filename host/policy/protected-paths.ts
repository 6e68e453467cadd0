/**
 * Protected paths: patterns of files policy never lets a tool touch, matched without regard
 * to case (APFS ignores it) against both the path as named and its real path.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';

/** A path a call names, as policy sees it. */
export interface NamedPath {
  /** Absolute, `..` folded, symlinks not followed. */
  lexical: string;
  /** Real path (symlinks followed, as far as the path exists). */
  real: string;
}

/** Which protected pattern a path matches, and why the pattern exists. */
export interface Protection {
  pattern: string;
  why: string;
}

/** Tells which protected pattern, if any, covers a path for an access. */
export type ProtectedPaths = (target: NamedPath, kind: 'read' | 'write') => Protection | null;

interface Rule {
  pattern: string;
  why: string;
  /** Null: reads and writes; `write`: writes only. */
  only: 'write' | null;
}

/**
 * Protected by default. `.git` is protected from writes only: reading a repository's own
 * data is harmless, but a hook written there runs code at the next commit.
 */
const DEFAULT_RULES: readonly Rule[] = [
  { pattern: '.git', why: 'Git data and hooks', only: 'write' },
  { pattern: '.env', why: 'environment files hold secrets', only: null },
  { pattern: '.env.*', why: 'environment files hold secrets', only: null },
  { pattern: '~/.ssh/**', why: 'SSH keys', only: null },
  { pattern: '~/Library/Keychains/**', why: 'macOS keychains', only: null },
  { pattern: '*.keychain*', why: 'keychain files', only: null },
];

/**
 * Compiles the default protected paths and `extra` (from the policy) for one workspace and
 * home folder. A pattern without `/` (but for a trailing one) matches a file or folder of
 * that name anywhere; one with `/` is a path: `~/…`, absolute, or relative to the
 * workspace. `*` and `?` match within a name, `**` across folders; a folder's pattern
 * covers everything inside it.
 */
export async function compileProtectedPaths(
  extra: readonly string[],
  workspace: string,
  homedir: string,
): Promise<ProtectedPaths> {
  const rules = [
    ...DEFAULT_RULES,
    ...extra.map((pattern) => ({ pattern, why: 'listed in the policy', only: null })),
  ];
  const compiled = await Promise.all(
    rules.map(async (rule) => ({
      rule,
      regexes: await patternRegexes(rule.pattern, workspace, homedir),
    })),
  );
  return (target, kind) => {
    const candidates = [target.lexical, target.real].map((candidate) => candidate.normalize('NFC'));
    for (const { rule, regexes } of compiled) {
      if (rule.only === 'write' && kind !== 'write') continue;
      if (regexes.some((regex) => candidates.some((candidate) => regex.test(candidate)))) {
        return { pattern: rule.pattern, why: rule.why };
      }
    }
    return null;
  };
}

/**
 * The check find_files and search_files walk with: whether `absolute` is protected from
 * reading. Their walk follows no symlink, so a path it meets is its own real path.
 */
export async function compileReadProtection(
  extra: readonly string[],
  workspace: string,
  homedir: string,
): Promise<(absolute: string) => boolean> {
  const isProtected = await compileProtectedPaths(extra, workspace, homedir);
  return (absolute) => isProtected({ lexical: absolute, real: absolute }, 'read') !== null;
}

async function patternRegexes(
  pattern: string,
  workspace: string,
  homedir: string,
): Promise<RegExp[]> {
  const glob = pattern.normalize('NFC');
  // As in .gitignore: a slash before the end anchors the pattern (`secrets/**`), a
  // trailing one alone does not (`build/`).
  const anchored = glob.replace(/\/+$/, '').includes('/');
  // A trailing `/**` or `/` adds nothing: a folder's pattern covers what is inside it.
  const trimmed = glob.replace(/(\/\*\*)+$|\/+$/, '');
  if (!anchored) {
    return [new RegExp(`(?:^|/)${globBody(trimmed)}(?:/|$)`, 'iu')];
  }
  const absolute = (
    trimmed.startsWith('~/')
      ? path.join(homedir, trimmed.slice(2))
      : path.resolve(workspace, trimmed)
  ).normalize('NFC');
  const variants = new Set([absolute, await realPrefix(absolute)]);
  return [...variants].map((variant) => new RegExp(`^${globBody(variant)}(?:/|$)`, 'iu'));
}

/** `absolute` with its literal leading folders replaced by their real path, if they exist. */
async function realPrefix(absolute: string): Promise<string> {
  const segments = absolute.split('/');
  const firstGlob = segments.findIndex((segment) => /[*?]/.test(segment));
  const literal = firstGlob === -1 ? segments : segments.slice(0, firstGlob);
  const rest = firstGlob === -1 ? [] : segments.slice(firstGlob);
  for (let keep = literal.length; keep > 1; keep -= 1) {
    try {
      const real = await realpath(literal.slice(0, keep).join('/'));
      return [real, ...literal.slice(keep), ...rest].join('/');
    } catch {
      // Not there: try the folder above.
    }
  }
  return absolute;
}

/** A regex source for a glob: `**` any folders, `*` and `?` within one name. */
function globBody(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i] ?? '';
    if (glob.startsWith('**/', i)) {
      out += '(?:[^/]*/)*';
      i += 2;
    } else if (glob.startsWith('**', i)) {
      out += '.*';
      i += 1;
    } else if (char === '*') out += '[^/]*';
    else if (char === '?') out += '[^/]';
    else out += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return out;
}
