/**
 * What the words of a command name on disk, for policy: where a path leads (inside the
 * workspace or not, by real path), whether an argument names a path outside, a protected
 * one or a folder holding one, and whether a word of a rule added from a remote is one
 * Tether can check from any folder. Reads the file system, changes nothing.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { resolveWorkspacePath } from '../tools/index.js';
import { nestedRepository } from './nested-repository.js';
import { findProtectedInside } from './protected-inside.js';
import { compileProtectedPaths } from './protected-paths.js';
import { namesRiskyProgram } from './command-risk.js';
import type { NamedPath, ProtectedPaths } from './protected-paths.js';
import type { PolicyAccess, PolicyContext } from './types.js';

/** Where a path a call names leads: inside the workspace or not, or nowhere usable. */
export type Located =
  (NamedPath & { ok: true; inside: boolean; shown: string }) | { ok: false; reason: string };

export async function locate(ctx: PolicyContext, requested: string): Promise<Located> {
  const resolved = await resolveWorkspacePath(ctx.workspace, requested);
  const lexical = path.resolve(ctx.workspace, requested);
  if (resolved.ok) {
    return { ok: true, inside: true, lexical, real: resolved.path, shown: resolved.relative };
  }
  if (resolved.code === 'path_outside_workspace') {
    return { ok: true, inside: false, lexical, real: resolved.path, shown: resolved.path };
  }
  return { ok: false, reason: resolved.reason };
}

/** Where {@link withProtectedPaths} keeps the compiled paths on a context (copies keep it). */
const COMPILED = Symbol('compiled protected paths');
type CompiledContext = PolicyContext & { [COMPILED]?: Promise<ProtectedPaths> };

/** The protected paths of `ctx`: compiled once per decision (withProtectedPaths), else now. */
export function protectedPaths(ctx: PolicyContext): Promise<ProtectedPaths> {
  return (ctx as CompiledContext)[COMPILED] ?? compile(ctx);
}

/**
 * `ctx` carrying its protected paths compiled once: a decision asks for them several times
 * (the call, its folder, the rule it may offer), and compiling resolves real paths.
 */
export function withProtectedPaths(ctx: PolicyContext): PolicyContext {
  const compiled: CompiledContext = { ...ctx, [COMPILED]: compile(ctx) };
  return compiled;
}

function compile(ctx: PolicyContext): Promise<ProtectedPaths> {
  return compileProtectedPaths(ctx.policy.protectedPaths, ctx.workspace, ctx.homedir, {
    hostPaths: ctx.hostPaths ?? [],
    allowSecretPaths: ctx.policy.allowSecretPaths,
  });
}

/** Why a word cannot run unasked, and the path outside it names, if any. */
export interface WordProblem {
  why: string;
  access?: PolicyAccess;
}

/**
 * Why an extra argument of an open rule cannot run unasked: it names a path outside the
 * workspace, a protected path, or a folder holding one; or, with `existingOnly`, no path
 * at all. Null when it may.
 */
export async function extraArgumentProblem(
  ctx: PolicyContext,
  cwd: string,
  value: string,
  isProtected: ProtectedPaths,
  existingOnly: boolean,
): Promise<WordProblem | null> {
  const target = await locate(ctx, path.resolve(cwd, value));
  if (!target.ok) return { why: `Tether cannot check ${value}` };
  if (!target.inside) {
    return {
      why: `${value} is outside the workspace`,
      access: { path: target.real, kind: 'write' },
    };
  }
  const protection = isProtected(target, 'write');
  if (protection !== null) return { why: `${value} is a protected path (${protection.why})` };
  const kind = await kindOf(target.real);
  if (kind === null && existingOnly) {
    return {
      why: `${value} names no file here, and git reads such a word as a revision, which can show any committed file`,
    };
  }
  if (kind !== 'directory') return null;
  const inside = await findProtectedInside(target.real, isProtected);
  if (inside.found === 'unknown')
    return { why: `Tether cannot check the folder ${value}: ${inside.reason}` };
  if (inside.found) {
    return {
      why: `the folder ${value} holds ${path.relative(ctx.workspace, inside.path)}, a protected path (${inside.protection.why})`,
    };
  }
  return null;
}

/**
 * Options of common programs that run a program or a script they are given: `find -exec`,
 * `tar --to-command`, `git -c` (a config value may be a program), `rsync --rsh`. A rule
 * holding one would run whatever the next word names.
 */
const RUNS_A_PROGRAM: ReadonlySet<string> = new Set([
  '-exec',
  '-execdir',
  '-ok',
  '-okdir',
  '-c',
  '-e',
  '-I',
  '--to-command',
  '--use-compress-program',
  '--checkpoint-action',
  '--info-script',
  '--new-volume-script',
  '--exec',
  '--exec-path',
  '--upload-pack',
  '--receive-pack',
  '--rsh',
  '--rsync-path',
  '--command',
  '-TT',
  '--unzip-command',
  // sort's helper; git filter-branch's and send-email's programs; a pager; a config file
  // that names programs or files (curl -K, wget --config).
  '--compress-program',
  '--extcmd',
  '--open-files-in-pager',
  '--tree-filter',
  '--index-filter',
  '--env-filter',
  '--msg-filter',
  '--commit-filter',
  '--parent-filter',
  '--tag-name-filter',
  '--smtp-server',
  '--to-cmd',
  '--cc-cmd',
  '--sendmail-cmd',
  '--pager',
  '--config',
  '-K',
  // rsync copies the paths a list file names.
  '--files-from',
  // git reads the config (core.fsmonitor, hooks) of the repository these name.
  '--git-dir',
  '--work-tree',
  '--template',
  '--separate-git-dir',
]);

/** An option Tether can read without knowing the program: letters, digits and dashes. */
const PLAIN_OPTION = /^(?:-[A-Za-z0-9]+|--[A-Za-z0-9][A-Za-z0-9-]*)$/;

/**
 * Why a word after the program of a rule added from a remote cannot run unasked from the
 * command's folder `cwd`, or null when it may. Such a rule holds in every plain folder of
 * the workspace, so its words are checked again in the folder of each call:
 * - no word holds a space, names a program that runs code (`sh`, `python3`: `find .
 *   -exec python3 x.py`), or is an option known to run what it is given (`-exec`,
 *   `--to-command`, `-c`, `-e`);
 * - an option must be plain (`-s`, `-rn`, `--oneline`): one holding `=`, `/`, `.`, `:`
 *   may carry a path or a program (`--output=x`, `-C..`), and `--` is refused; a short
 *   option whose letters after the first name an entry here (`-Csrc`) may be a value;
 * - any other word must be a plain argument (no `=`, no `:`) naming no path outside the
 *   workspace, no protected path and no folder holding one. A word naming no file passes
 *   (for git it is a revision the rule itself lists, like `main`).
 */
export async function addedRuleWordProblem(
  ctx: PolicyContext,
  cwd: string,
  word: string,
  isProtected: ProtectedPaths,
): Promise<WordProblem | null> {
  if (/\s/.test(word)) return { why: `"${word}" holds a space: a rule lists plain words only` };
  if (namesRiskyProgram(word)) {
    return { why: `${word} names a program that runs code, which the command may start` };
  }
  if (RUNS_A_PROGRAM.has(word)) {
    return { why: `${word} is an option that runs a program or code it is given` };
  }
  if (word.startsWith('-') || word.startsWith('+')) {
    if (!PLAIN_OPTION.test(word)) {
      return { why: `${word} is an option that may carry a path or a value Tether cannot check` };
    }
    if (word.startsWith('--') || word.length <= 2) return null;
    const attached = await locate(ctx, path.resolve(cwd, word.slice(2)));
    if (attached.ok && (await kindOf(attached.real)) === null) return null;
    return { why: `${word} may name ${word.slice(2)}, a path here, as an option's value` };
  }
  if (word.includes('=')) return { why: `${word} is an assignment (it holds "=")` };
  if (word.includes(':'))
    return { why: `${word} holds ":", which some programs read as a reference` };
  const problem = await extraArgumentProblem(ctx, cwd, word, isProtected, false);
  if (problem !== null) return problem;
  // `git -C repo status` runs git in repo, whose config the workspace supplies.
  const target = await locate(ctx, path.resolve(cwd, word));
  if (target.ok && target.inside && (await kindOf(target.real)) === 'directory') {
    const repository = await nestedRepository(target.real, ctx.workspace);
    if (repository !== null) {
      return {
        why: `${word} is inside ${path.relative(ctx.workspace, repository)}, a repository of its own whose config could make git run a program`,
      };
    }
  }
  return null;
}

async function kindOf(real: string): Promise<'directory' | 'other' | null> {
  try {
    return (await stat(real)).isDirectory() ? 'directory' : 'other';
  } catch {
    return null;
  }
}
