/**
 * Protected paths: what policy never lets a tool touch. Tether's own data directory and
 * config file, `.git` (for writes), the built-in secret set (secret-set.ts) and the
 * policy's `protectedPaths`, matched without regard to case (APFS ignores it) against both
 * the path as named and its real path.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { globSources, pathSources } from './path-regex.js';
import { SECRET_RULES } from './secret-set.js';

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

/** What protects a workspace besides the built-in patterns and the policy's. */
export interface ProtectionOptions {
  /**
   * Real paths of Tether's own data directory and config file: denied to every tool,
   * reads too, also inside a workspace (but for a workspace inside them, the demo's).
   */
  hostPaths?: readonly string[];
  /**
   * `policy.allowSecretPaths`: exact paths (workspace-relative, `~/…` or absolute) the
   * built-in secret set lets through. The other protected paths still cover them.
   */
  allowSecretPaths?: readonly string[];
}

interface Rule {
  pattern: string;
  why: string;
  /** Null: reads and writes; `write`: writes only. */
  only: 'write' | null;
  /** A rule of the secret set: `allowSecretPaths` lifts it for exactly those paths. */
  secret: boolean;
  /** Regex sources on an absolute path (path-regex.ts). */
  sources: string[];
}

/**
 * All the protected paths of one workspace, first match first: the host's own files,
 * `.git`, the secret set, the policy's. `.git` is protected from writes only: reading a
 * repository's HEAD or branches is harmless (its config is in the secret set), but a hook
 * written there runs code at the next commit.
 */
function protectedRules(
  extra: readonly string[],
  workspace: string,
  homedir: string,
  hostPaths: readonly string[],
): Rule[] {
  return [
    ...hostPaths.map((hostPath) => ({
      pattern: hostPath,
      why: "Tether's own data directory or config file",
      only: null,
      secret: false,
      sources: pathSources(hostPath, workspace),
    })),
    {
      pattern: '.git',
      why: 'Git data and hooks',
      only: 'write',
      secret: false,
      sources: globSources('.git', workspace, homedir),
    },
    ...SECRET_RULES.map((rule) => ({
      pattern: rule.pattern,
      why: rule.why,
      only: null,
      secret: true,
      sources: globSources(rule.pattern, workspace, homedir, rule.unlessSuffix),
    })),
    ...extra.map((pattern) => ({
      pattern,
      why: 'listed in the policy',
      only: null,
      secret: false,
      sources: globSources(pattern, workspace, homedir),
    })),
  ];
}

/**
 * Compiles the protected paths of one workspace and home folder: the built-in ones,
 * `extra` (the policy's `protectedPaths`) and `options`. Pattern syntax: path-regex.ts.
 */
export function compileProtectedPaths(
  extra: readonly string[],
  workspace: string,
  homedir: string,
  options: ProtectionOptions = {},
): Promise<ProtectedPaths> {
  const rules = protectedRules(extra, workspace, homedir, options.hostPaths ?? []).map((rule) => ({
    ...rule,
    regexes: rule.sources.map((source) => new RegExp(source, 'iu')),
  }));
  const allowed = new Set(
    (options.allowSecretPaths ?? []).flatMap((exact) => exactForms(exact, workspace, homedir)),
  );
  return Promise.resolve((target, kind) => {
    const named = target.lexical === target.real ? [target.real] : [target.lexical, target.real];
    const candidates = named.map((candidate) => candidate.normalize('NFC'));
    for (const rule of rules) {
      if (rule.only === 'write' && kind !== 'write') continue;
      const covered = candidates.some(
        (candidate) =>
          !(rule.secret && allowed.has(foldCase(candidate))) &&
          rule.regexes.some((regex) => regex.test(candidate)),
      );
      if (covered) return { pattern: rule.pattern, why: rule.why };
    }
    return null;
  });
}

/**
 * The check find_files and search_files walk with: whether `absolute` is protected from
 * reading. Their walk follows no symlink, so a path it meets is its own real path.
 */
export async function compileReadProtection(
  extra: readonly string[],
  workspace: string,
  homedir: string,
  options: ProtectionOptions = {},
): Promise<(absolute: string) => boolean> {
  const isProtected = await compileProtectedPaths(extra, workspace, homedir, options);
  return (absolute) => isProtected({ lexical: absolute, real: absolute }, 'read') !== null;
}

/**
 * The paths no command may read or write, as POSIX extended regular expressions on an
 * absolute path (Seatbelt's `(regex #"…")`; also valid JavaScript): the secret set,
 * `extra` (the policy's `protectedPaths`) and `hostPaths` (real paths of Tether's data
 * directory and config file, but for a `workspace` inside them). `.git` is left out: it
 * is protected from writes only, and so are the patterns `except` names. The policy's
 * `allowSecretPaths` is not applied.
 */
export function secretPathRegexes(
  extra: readonly string[],
  workspace: string,
  homedir: string,
  hostPaths: readonly string[],
  except: readonly string[] = [],
): string[] {
  const rules = protectedRules(extra, workspace, homedir, hostPaths).filter(
    (rule) => rule.only === null && !except.includes(rule.pattern),
  );
  return [...new Set(rules.flatMap((rule) => rule.sources))];
}

/**
 * An allowed path as named and with its folder's real path, case folded. Never the real
 * path of the entry itself: an allowed name that is a link to `~/.aws/credentials` does
 * not let that file through.
 */
function exactForms(exact: string, workspace: string, homedir: string): string[] {
  const absolute = exact.startsWith('~/')
    ? path.join(homedir, exact.slice(2))
    : path.resolve(workspace, exact);
  const folder = path.dirname(absolute);
  let realFolder = folder;
  try {
    realFolder = realpathSync(folder);
  } catch {
    // Not there (yet): the path as named is all there is.
  }
  return [absolute, path.join(realFolder, path.basename(absolute))].map(foldCase);
}

function foldCase(absolute: string): string {
  return absolute.normalize('NFC').toLowerCase();
}
