/**
 * Deciding allow / ask / deny for one proposed tool call. Reads the file system (real
 * paths) but changes nothing and runs nothing.
 */
import path from 'node:path';
import type { RuleProposal } from '../../protocol/index.js';
import {
  addedRuleWordProblem,
  extraArgumentProblem,
  locate,
  protectedPaths,
  withProtectedPaths,
  type Located,
} from './argument-checks.js';
import { findRule, showRule } from './command-rules.js';
import { commandParts, commandWords } from '../tools/index.js';
import { nestedRepository } from './nested-repository.js';
import type { ProtectedPaths } from './protected-paths.js';
import { proposeRule } from './rule-proposal.js';
import { commandRisk } from './command-risk.js';
import type { ToolAccess } from '../tools/index.js';
import type {
  AddedRule,
  PolicyAccess,
  PolicyCall,
  PolicyContext,
  PolicyDecision,
} from './types.js';
import { isInside } from '../sandbox/index.js';

type Setting = 'allow' | 'ask' | 'deny';
type CommandAccess = Extract<ToolAccess, { kind: 'command' }>;

/**
 * Decides one call. Order, first match wins:
 * 1. `tools.<name>: "deny"` in the policy;
 * 2. a path that cannot be resolved, or a protected path → deny; a command matching a
 *    deny rule → deny;
 * 3. a path (or a command's cwd) outside the workspace → `outsideWorkspace` (ask, with
 *    `access`, by default);
 * 4. `tools.<name>` when set; else by what the tool declares the call touches
 *    (`ToolAccess`): a read allows (the search tools skip protected paths inside their
 *    folder), a write asks, a command runs unasked only in the sandbox and when an allow
 *    rule matches it (command-rules.ts) in a plain folder of the workspace with extra
 *    words naming no path outside or protected, and asks the rest; a call Tether cannot
 *    see into (opaque) asks.
 */
export async function decidePolicy(
  call: PolicyCall,
  given: PolicyContext,
): Promise<PolicyDecision> {
  const ctx = withProtectedPaths(given);
  const decision = await decideCall(call, ctx);
  if (decision.decision !== 'ask') return decision;
  return { ...decision, proposal: await offeredRule(call, ctx) };
}

/**
 * The rule "Allow like this from now on" offers for a call that asks (rule-proposal.ts),
 * kept only when, added, it would let exactly this call run unasked: else none, with the
 * reason the call would still ask.
 */
async function offeredRule(call: PolicyCall, ctx: PolicyContext): Promise<RuleProposal> {
  const proposal = await proposeRule(call, ctx);
  if (!proposal.offered) return proposal;
  const rule: AddedRule = {
    id: 'proposed',
    words: proposal.words,
    deviceId: 'proposed',
    deviceName: 'this device',
    addedAt: 0,
  };
  const added = await decideCall(call, { ...ctx, addedRules: [...(ctx.addedRules ?? []), rule] });
  if (added.decision === 'allow') return proposal;
  return { offered: false, reason: added.reason };
}

async function decideCall(call: PolicyCall, ctx: PolicyContext): Promise<PolicyDecision> {
  const tools: Partial<Record<string, Setting>> = ctx.policy.tools;
  const setting = Object.hasOwn(tools, call.name) ? tools[call.name] : undefined;
  if (setting === 'deny') {
    return deny(`The policy turns ${call.name} off (tools.${call.name} is "deny").`);
  }
  const { access } = call;
  switch (access.kind) {
    case 'read':
      return decidePathCall(call.name, access.path, 'read', setting ?? 'allow', ctx);
    case 'write':
      // A setting of the config wins; unset, the run's own worktree lets writes in it run.
      return decidePathCall(
        call.name,
        access.path,
        'write',
        setting ?? (worktreeAllows(ctx) ? 'worktree' : 'ask'),
        ctx,
      );
    case 'command':
      return decideCommand(access, setting, ctx);
    case 'opaque':
      return setting === 'allow'
        ? allow(`The policy allows ${call.name} (tools.${call.name} is "allow").`)
        : ask(`Tether cannot see what ${call.name} touches, so it needs your approval.`);
  }
}

async function decidePathCall(
  name: string,
  named: string,
  kind: 'read' | 'write',
  setting: Setting | 'worktree',
  ctx: PolicyContext,
): Promise<PolicyDecision> {
  const target = await locate(ctx, named);
  if (!target.ok) return deny(`Tether cannot check this path: ${target.reason}.`);
  const verb = kind === 'read' ? 'read' : 'change';
  // The run's attachments live in the data directory, which is otherwise denied to tools.
  if (!target.inside && (ctx.readOnly ?? []).some((folder) => isInside(target.real, folder))) {
    return kind === 'read'
      ? allow(`${name} reads a file the user attached to this run.`)
      : deny(`${target.real} is a file the user attached: attachments are read-only.`, {
          path: target.real,
          kind,
        });
  }
  const protection = (await protectedPaths(ctx))(target, kind);
  if (protection !== null) {
    return deny(
      `${target.shown} is a protected path (${protection.pattern}: ${protection.why}), so ` +
        `${name} may not ${verb} it.`,
      target.inside ? undefined : { path: target.real, kind },
    );
  }
  if (!target.inside)
    return outside(ctx, `${name} would ${verb} ${target.real}`, target.real, kind);
  if (setting === 'allow') {
    return kind === 'read'
      ? allow(`${name} only reads inside the workspace.`)
      : allow(`The policy allows ${name} inside the workspace (tools.${name} is "allow").`);
  }
  if (setting === 'worktree') return allow(WORKTREE_ALLOWS);
  return kind === 'read'
    ? ask(`The policy asks before ${name} reads ${target.shown} (tools.${name} is "ask").`)
    : ask(`${name} would change ${target.shown}; changes to files need your approval.`);
}

async function decideCommand(
  access: CommandAccess,
  setting: Setting | undefined,
  ctx: PolicyContext,
): Promise<PolicyDecision> {
  const { command } = access;
  const { allow: allowRules, deny: denyRules } = ctx.policy.commands;
  for (const part of commandParts(command)) {
    const rule = denyRules.find((words) => startsWith(part, words));
    if (rule !== undefined) {
      return deny(`The policy denies commands starting with "${showRule(rule)}".`);
    }
  }
  const cwd = await locate(ctx, access.cwd);
  if (!cwd.ok) return deny(`Tether cannot check the command's folder: ${cwd.reason}.`);
  if (!cwd.inside) return outside(ctx, `The command would run in ${cwd.real}`, cwd.real, 'write');
  if (!ctx.sandbox.available) {
    return ask(
      `No sandbox can run on this machine (${ctx.sandbox.reason}), so every command needs ` +
        `your approval and runs with full access; to fix it, ${ctx.sandbox.fix}.`,
    );
  }
  const escalation = await escalationOf(ctx, access.sandbox);
  if (escalation !== null) return escalation;
  if (setting === 'allow') {
    return allow('The policy allows every command (tools.run_command is "allow").');
  }
  if (setting === undefined && worktreeAllows(ctx)) return allow(WORKTREE_ALLOWS);
  const words = commandWords(command);
  if (!words.ok) {
    return ask(`The command ${words.reason}, so no allow rule applies; it needs your approval.`);
  }
  const found = findRule(words.argv, allowRules);
  if (found.kind !== 'match') {
    // A config rule's words win; a rule added from a remote is asked only when none matches,
    // and never while the config file asks for every command.
    const added =
      setting === 'ask'
        ? undefined
        : ctx.addedRules?.find((rule) => sameWords(rule.words, words.argv));
    if (added !== undefined) return decideAddedRule(ctx, cwd, added);
    if (found.kind === 'none') {
      return ask('No allow rule matches this command; it needs your approval.');
    }
    return ask(`${capitalise(found.why)}; it needs your approval.`);
  }
  const because = `The command matches "${showRule(found.rule)}", but`;
  const isProtected = await protectedPaths(ctx);
  const folder = await folderProblem(ctx, cwd, isProtected, because);
  if (folder !== null) return folder;
  const namesOnly = READS_NAMES_AS_DATA.has(path.basename(words.argv[0] ?? ''));
  for (const value of found.extra) {
    const problem = await extraArgumentProblem(ctx, cwd.real, value, isProtected, namesOnly);
    if (problem !== null) {
      return ask(`${because} ${problem.why}; it needs your approval.`, problem.access);
    }
  }
  return allow(`The policy allows "${showRule(found.rule)}".`);
}

const WORKTREE_ALLOWS =
  'The run works in its own worktree, and the policy lets it change files and run sandboxed ' +
  'commands there (policy.worktree is "allow"); your checkout changes only when you merge.';

/** Whether the run's own worktree lets a write or a contained command run unasked. */
function worktreeAllows(ctx: PolicyContext): boolean {
  return ctx.worktree === true && ctx.policy.worktree === 'allow';
}

/**
 * The decision for a command that asks for more than the sandbox gives (the network, or
 * only some hosts of it; a write outside the workspace): always ask, or deny a write
 * outside under `outsideWorkspace: "deny"`, or a write to a protected path. Null when it
 * asks for nothing more.
 */
async function escalationOf(
  ctx: PolicyContext,
  request: CommandAccess['sandbox'],
): Promise<PolicyDecision | null> {
  const wants: string[] = [];
  if (request.network) wants.push('network access');
  if (request.hosts !== undefined && request.hosts.length > 0) {
    wants.push(`network access only to ${request.hosts.join(', ')}`);
  }
  let access: PolicyAccess | undefined;
  const isProtected = await protectedPaths(ctx);
  for (const named of request.write) {
    const target = await locate(ctx, named);
    if (!target.ok) return deny(`Tether cannot check the path ${named}: ${target.reason}.`);
    const protection = isProtected(target, 'write');
    if (protection !== null) {
      return deny(
        `The command asks to change ${target.shown}, a protected path (${protection.why}).`,
      );
    }
    const broad = broadFolder(target.real, ctx.homedir);
    if (broad !== null) {
      return deny(
        `The command asks to change ${target.real}, ${broad}: name the folder it needs inside it.`,
      );
    }
    if (!target.inside && ctx.policy.outsideWorkspace === 'deny') {
      return deny(
        `The command asks to change ${target.real}, outside the workspace, and the policy denies that.`,
        { path: target.real, kind: 'write' },
      );
    }
    access ??= target.inside ? undefined : { path: target.real, kind: 'write' };
    wants.push(`changes to ${target.real}`);
  }
  if (wants.length === 0) return null;
  return ask(
    `The command asks to run with ${wants.join(' and ')}, beyond what the sandbox allows; ` +
      'that always needs your approval.',
    access,
  );
}

/**
 * Why a write folder is too broad to grant a command, or null: the root, the home folder,
 * or a folder where other programs keep their sockets and temporary files (`/tmp` shown
 * whole would also show the user's ssh-agent and X server sockets).
 */
function broadFolder(real: string, homedir: string): string | null {
  if (real === '/') return 'the whole machine';
  if (real === path.resolve(homedir)) return 'your whole home folder';
  const shared = ['/tmp', '/private/tmp', '/var/tmp', '/run', '/var/run', '/private/var/tmp'];
  if (shared.includes(real) || /^\/run\/user\/\d+$/.test(real)) {
    return 'a folder other programs keep their sockets and temporary files in';
  }
  return null;
}

/**
 * A command whose words are exactly those of a rule added from a remote: it runs unasked
 * in a plain folder of the workspace, when its program is not one that runs code its
 * arguments or the workspace supply, and each word passes `addedRuleWordProblem` in this
 * folder (a rule holds in every folder, so its words are checked in each).
 */
async function decideAddedRule(
  ctx: PolicyContext,
  cwd: Located & { ok: true },
  rule: AddedRule,
): Promise<PolicyDecision> {
  const shown = showRule(rule.words);
  const because = `The command matches "${shown}", a rule added from ${rule.deviceName}, but`;
  const risk = commandRisk(rule.words);
  if (risk?.kind === 'refused') return ask(`${because} ${risk.why}; it needs your approval.`);
  const isProtected = await protectedPaths(ctx);
  const folder = await folderProblem(ctx, cwd, isProtected, because);
  if (folder !== null) return folder;
  for (const word of rule.words.slice(1)) {
    const problem = await addedRuleWordProblem(ctx, cwd.real, word, isProtected);
    if (problem !== null) {
      return ask(`${because} ${problem.why}; it needs your approval.`, problem.access);
    }
  }
  return {
    decision: 'allow',
    reason: `A rule added from ${rule.deviceName} allows "${shown}".`,
    allowedBy: {
      ruleId: rule.id,
      words: [...rule.words],
      deviceId: rule.deviceId,
      deviceName: rule.deviceName,
      addedAt: rule.addedAt,
    },
  };
}

/** Why a command an allow rule matches still asks because of its folder, or null. */
async function folderProblem(
  ctx: PolicyContext,
  cwd: Located & { ok: true },
  isProtected: ProtectedPaths,
  because: string,
): Promise<PolicyDecision | null> {
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
  return null;
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((word, i) => b[i] === word);
}

/**
 * Programs that read a word naming no file as data of their own: git takes it for a
 * revision (`HEAD^!`, a commit or tree hash), which shows every committed file, the
 * protected ones too. Their extra words must name existing paths.
 */
const READS_NAMES_AS_DATA: ReadonlySet<string> = new Set(['git']);

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function startsWith(argv: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= argv.length && prefix.every((word, i) => argv[i] === word);
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
