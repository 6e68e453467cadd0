/**
 * Deciding allow / ask / deny for one proposed tool call. Reads the file system (real
 * paths) but changes nothing and runs nothing.
 */
import path from 'node:path';
import { z } from 'zod';
import { resolveWorkspacePath } from '../tools/index.js';
import { commandParts, commandWords } from './command-words.js';
import { compileProtectedPaths } from './protected-paths.js';
import type { NamedPath, ProtectedPaths } from './protected-paths.js';
import type { PolicyAccess, PolicyCall, PolicyContext, PolicyDecision } from './types.js';

const PathInput = z.looseObject({ path: z.string() });
const CommandInput = z.looseObject({ command: z.string(), cwd: z.string().optional() });

type Setting = 'allow' | 'ask' | 'deny';

/**
 * Decides one call. Order, first match wins:
 * 1. `tools.<name>: "deny"` in the policy;
 * 2. a path that cannot be resolved, or a protected path → deny; a command matching a
 *    deny rule → deny;
 * 3. a path (or a command's cwd) outside the workspace → `outsideWorkspace` (ask, with
 *    `access`, by default);
 * 4. `tools.<name>` when set; else read_file and list_directory allow, write_file and
 *    edit_file ask, run_command allows what an allow rule covers and asks the rest, and
 *    tools policy does not know ask.
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
      return deny(`The policy denies commands starting with "${rule.join(' ')}".`);
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
  const rule = allowRules.find((prefix) => startsWith(words.argv, prefix));
  if (rule === undefined) return ask('No allow rule matches this command; it needs your approval.');
  const shownRule = rule.join(' ');
  const protectedPath = await protectedPaths(ctx);
  for (const value of pathLikeArguments(words.argv.slice(rule.length))) {
    const target = await locate(ctx, path.resolve(cwd.real, value));
    if (!target.ok) {
      return ask(
        `The command matches "${shownRule}", but Tether cannot check ${value}; it needs your ` +
          `approval.`,
      );
    }
    const protection = protectedPath(target, 'write');
    if (protection !== null) {
      return ask(
        `The command matches "${shownRule}", but ${value} is a protected path ` +
          `(${protection.why}); it needs your approval.`,
      );
    }
    if (!target.inside) {
      return ask(
        `The command matches "${shownRule}", but ${value} is outside the workspace; it needs ` +
          `your approval.`,
        { path: target.real, kind: 'write' },
      );
    }
  }
  return allow(`The policy allows commands starting with "${shownRule}".`);
}

/** Arguments that may name files: plain words, and the values of `--name=value`. */
function pathLikeArguments(args: readonly string[]): string[] {
  return args
    .map((arg) => (arg.startsWith('-') ? arg.slice(arg.indexOf('=') + 1 || arg.length) : arg))
    .filter((value) => value !== '');
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
