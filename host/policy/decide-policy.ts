/**
 * Deciding allow / ask / deny for one proposed tool call. Reads the file system (real
 * paths) but changes nothing and runs nothing.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { resolveWorkspacePath } from '../tools/index.js';
import { findRule, showRule } from './command-rules.js';
import { commandParts, commandWords } from './command-words.js';
import { nestedRepository } from './nested-repository.js';
import { findProtectedInside } from './protected-inside.js';
import { compileProtectedPaths } from './protected-paths.js';
import type { NamedPath, ProtectedPaths } from './protected-paths.js';
import type { PolicyAccess, PolicyCall, PolicyContext, PolicyDecision } from './types.js';

const PathInput = z.looseObject({ path: z.string() });
/** find_files and search_files search the workspace root when they name no path. */
const SearchInput = z.looseObject({ path: z.string().default('.') });
const CommandInput = z.looseObject({ command: z.string(), cwd: z.string().optional() });

type Setting = 'allow' | 'ask' | 'deny';

/**
 * Decides one call. Order, first match wins:
 * 1. `tools.<name>: "deny"` in the policy;
 * 2. a path that cannot be resolved, or a protected path → deny; a command matching a
 *    deny rule → deny;
 * 3. a path (or a command's cwd) outside the workspace → `outsideWorkspace` (ask, with
 *    `access`, by default);
 * 4. `tools.<name>` when set; else read_file, list_directory, find_files and search_files
 *    allow (the search tools skip protected paths inside the folder), write_file and
 *    edit_file ask, run_command allows what an allow rule matches (command-rules.ts) when
 *    it runs in a plain folder of the workspace and its extra words name no path outside
 *    or protected, and asks the rest; tools policy does not know ask.
 */
export async function decidePolicy(call: PolicyCall, ctx: PolicyContext): Promise<PolicyDecision> {
  const tools: Partial<Record<string, Setting>> = ctx.policy.tools;
  const setting = Object.hasOwn(tools, call.name) ? tools[call.name] : undefined;
  if (setting === 'deny') {
    return deny(`The policy turns ${call.name} off (tools.${call.name} is "deny").`);
  }
  switch (call.name) {
    case 'read_file':
    case 'list_directory':
      return decidePathCall(call, 'read', setting ?? 'allow', ctx);
    case 'find_files':
    case 'search_files': {
      const input = SearchInput.safeParse(call.input);
      const named = input.success ? { ...call, input: input.data } : call;
      return decidePathCall(named, 'read', setting ?? 'allow', ctx);
    }
    case 'write_file':
    case 'edit_file':
      return decidePathCall(call, 'write', setting ?? 'ask', ctx);
    case 'run_command':
      return decideCommand(call, setting, ctx);
    default:
      return setting === 'allow'
        ? allow(`The policy allows ${call.name} (tools.${call.name} is "allow").`)
        : ask(`Tether has no rules for ${call.name}, so it needs your approval.`);
  }
}

/** Where a path a call names leads: inside the workspace or not, or nowhere usable. */
type Located =
  (NamedPath & { ok: true; inside: boolean; shown: string }) | { ok: false; reason: string };

async function locate(ctx: PolicyContext, requested: string): Promise<Located> {
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

async function decidePathCall(
  call: PolicyCall,
  kind: 'read' | 'write',
  setting: Setting,
  ctx: PolicyContext,
): Promise<PolicyDecision> {
  const input = PathInput.safeParse(call.input);
  if (!input.success) {
    return deny(`The input of ${call.name} has no path, so Tether cannot tell what it touches.`);
  }
  const target = await locate(ctx, input.data.path);
  if (!target.ok) return deny(`Tether cannot check this path: ${target.reason}.`);
  const verb = kind === 'read' ? 'read' : 'change';
  const protection = (await protectedPaths(ctx))(target, kind);
  if (protection !== null) {
    return deny(
      `${target.shown} is a protected path (${protection.pattern}: ${protection.why}), so ` +
        `${call.name} may not ${verb} it.`,
      target.inside ? undefined : { path: target.real, kind },
    );
  }
  if (!target.inside)
    return outside(ctx, `${call.name} would ${verb} ${target.real}`, target.real, kind);
  if (setting === 'allow') {
    return kind === 'read'
      ? allow(`${call.name} only reads inside the workspace.`)
      : allow(
          `The policy allows ${call.name} inside the workspace (tools.${call.name} is "allow").`,
        );
  }
  return kind === 'read'
    ? ask(
        `The policy asks before ${call.name} reads ${target.shown} (tools.${call.name} is "ask").`,
      )
    : ask(`${call.name} would change ${target.shown}; changes to files need your approval.`);
}

async function decideCommand(
  call: PolicyCall,
  setting: Setting | undefined,
  ctx: PolicyContext,
): Promise<PolicyDecision> {
  const input = CommandInput.safeParse(call.input);
  if (!input.success) {
    return deny('The input of run_command has no command, so Tether cannot tell what it runs.');
  }
  const { command } = input.data;
  const { allow: allowRules, deny: denyRules } = ctx.policy.commands;
  for (const part of commandParts(command)) {
    const rule = denyRules.find((words) => startsWith(part, words));
    if (rule !== undefined) {
      return deny(`The policy denies commands starting with "${showRule(rule)}".`);
    }
  }
  const cwd = await locate(ctx, input.data.cwd ?? '.');
  if (!cwd.ok) return deny(`Tether cannot check the command's folder: ${cwd.reason}.`);
  if (!cwd.inside) return outside(ctx, `The command would run in ${cwd.real}`, cwd.real, 'write');
  if (setting === 'allow') {
    return allow('The policy allows every command (tools.run_command is "allow").');
  }
  const words = commandWords(command);
  if (!words.ok) {
    return ask(`The command ${words.reason}, so no allow rule applies; it needs your approval.`);
  }
  const found = findRule(words.argv, allowRules);
  if (found.kind === 'none') {
    return ask('No allow rule matches this command; it needs your approval.');
  }
  if (found.kind === 'beyond') return ask(`${capitalise(found.why)}; it needs your approval.`);
  const because = `The command matches "${showRule(found.rule)}", but`;
  const isProtected = await protectedPaths(ctx);
  const folderProtection = isProtected(cwd, 'write');
  if (folderProtection !== null) {
    return ask(
      `${because} it would run in ${cwd.shown}, a protected path (${folderProtection.why}); ` +
        `it needs your approval.`,
    );
  }
  const repository = await nestedRepository(cwd.real, ctx.workspace);
  if (repository !== null) {
    return ask(
      `${because} it would run inside ${repository}, a repository of its own whose config ` +
        `could make git run a program; it needs your approval.`,
    );
  }
  const namesOnly = READS_NAMES_AS_DATA.has(path.basename(words.argv[0] ?? ''));
  for (const value of found.extra) {
    const problem = await extraArgumentProblem(ctx, cwd.real, value, isProtected, namesOnly);
    if (problem !== null) {
      return ask(`${because} ${problem.why}; it needs your approval.`, problem.access);
    }
  }
  return allow(`The policy allows "${showRule(found.rule)}".`);
}

/**
 * Programs that read a word naming no file as data of their own: git takes it for a
 * revision (`HEAD^!`, a commit or tree hash), which shows every committed file, the
 * protected ones too. Their extra words must name existing paths.
 */
const READS_NAMES_AS_DATA: ReadonlySet<string> = new Set(['git']);

/**
 * Why an extra argument of an open rule cannot run unasked: it names a path outside the
 * workspace, a protected path, or a folder holding one; or, with `existingOnly`, no path
 * at all. Null when it may.
 */
async function extraArgumentProblem(
  ctx: PolicyContext,
  cwd: string,
  value: string,
  isProtected: ProtectedPaths,
  existingOnly: boolean,
): Promise<{ why: string; access?: PolicyAccess } | null> {
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

async function kindOf(real: string): Promise<'directory' | 'other' | null> {
  try {
    return (await stat(real)).isDirectory() ? 'directory' : 'other';
  } catch {
    return null;
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function startsWith(argv: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= argv.length && prefix.every((word, i) => argv[i] === word);
}

function protectedPaths(ctx: PolicyContext): Promise<ProtectedPaths> {
  return compileProtectedPaths(ctx.policy.protectedPaths, ctx.workspace, ctx.homedir);
}

function outside(
  ctx: PolicyContext,
  what: string,
  target: string,
  kind: 'read' | 'write',
): PolicyDecision {
  const access = { path: target, kind };
  if (ctx.policy.outsideWorkspace === 'deny') {
    return deny(`${what}, outside the workspace, and the policy denies that.`, access);
  }
  return ask(`${what}, outside the workspace; that needs your approval.`, access);
}

function allow(reason: string): PolicyDecision {
  return { decision: 'allow', reason };
}

function ask(reason: string, access?: PolicyAccess): PolicyDecision {
  return access === undefined ? { decision: 'ask', reason } : { decision: 'ask', reason, access };
}

function deny(reason: string, access?: PolicyAccess): PolicyDecision {
  return access === undefined ? { decision: 'deny', reason } : { decision: 'deny', reason, access };
}
