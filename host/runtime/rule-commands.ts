/**
 * Allow rules added from a remote ("Allow like this from now on", docs/policy.md): adding
 * the rule an approval card offered (and approving that call), listing every rule, and
 * removing one, as deduplicated commands with their events.
 */
import {
  TetherError,
  type OpArgs,
  type OpResult,
  type RuleProposal,
} from '../../protocol/index.js';
import type { AddedRule } from '../policy/index.js';
import { newId, type Store, type StoredAllowRule, type WriteContext } from '../store/index.js';
import { pendingApproval } from './approval-commands.js';
import { moveToolCall, resolveApproval } from './transitions.js';
import { parseToolInput } from '../tools/index.js';
import type { Actor, PolicyFn, ToolTable } from './types.js';

/** What the rule commands need besides the store. */
export interface RuleContext {
  store: Store;
  policy: PolicyFn;
  /** The tools, whose declared access policy decides on. */
  tools: ToolTable;
  /** The config file's allow rules (listed, never removable from a remote). */
  configRules: readonly (readonly string[])[];
}

/**
 * Where an approval's call runs, and the workspace a rule added from its card is kept
 * for: the same folder, except in a run's own worktree (docs/worktrees.md), where the
 * rule is the user's workspace's, so it holds in the checkout and in every later worktree.
 */
function ruleScope(
  store: Store,
  approval: { runId: string; workspace: string },
): { workspace: string; worktree: boolean } {
  const run = store.runs.getRun(approval.runId);
  const worktree = run === undefined ? undefined : store.worktrees.get(run.sessionId);
  return worktree !== undefined && worktree.path === approval.workspace
    ? { workspace: worktree.repository, worktree: true }
    : { workspace: approval.workspace, worktree: false };
}

/** The prefix of the ids `policy.rules` gives the config file's rules. */
const CONFIG_RULE_PREFIX = 'cfg_';

/** The rules added from a remote for `workspace`, as policy matches them. */
export function addedRulesOf(store: Store, workspace: string): AddedRule[] {
  return store.allowRules.active(workspace).map(addedRule);
}

function addedRule(rule: StoredAllowRule): AddedRule {
  return {
    id: rule.id,
    words: rule.words,
    deviceId: rule.addedBy,
    deviceName: rule.addedByName,
    addedAt: rule.addedAt,
  };
}

/** Every rule: the config file's first (they win), then those added from remotes. */
export function listRules(ctx: RuleContext): OpResult<'policy.rules'> {
  const config = ctx.configRules.map((words, i) => ({
    id: `${CONFIG_RULE_PREFIX}${i}`,
    source: 'config' as const,
    words: [...words],
    workspace: null,
    addedBy: null,
    addedAt: null,
    removable: false,
  }));
  const added = ctx.store
    .read(() => ctx.store.allowRules.active())
    .map((rule) => ({
      id: rule.id,
      source: 'app' as const,
      words: rule.words,
      workspace: rule.workspace,
      addedBy: { deviceId: rule.addedBy, name: rule.addedByName },
      addedAt: rule.addedAt,
      removable: true,
    }));
  return { rules: [...config, ...added] };
}

/**
 * Adds the rule the host offered on a pending approval's card and approves that call, in
 * one transaction with `policy.rule_added` and the approval's resolution. Only the words
 * the host computed are stored, never words from the remote; they are checked again now
 * (policy, on the files as they are): a rule no longer offered is `invalid_state` and
 * changes nothing. A rule with the same words already in force is reused.
 */
export async function addRule(
  ctx: RuleContext,
  args: OpArgs<'policy.rule_add'>,
  by: Actor,
): Promise<OpResult<'policy.rule_add'>> {
  const { store } = ctx;
  // A resent command answers as the first time; only a new one is checked again.
  if (store.commands.find(args.commandId) === undefined) {
    const { approval } = store.read(() => pendingApproval(store, args));
    const words = offeredWords(approval.preview.ruleProposal);
    const tool = ctx.tools.get(approval.name);
    const parsed = tool === undefined ? null : parseToolInput(tool, JSON.stringify(approval.input));
    if (tool === undefined || parsed === null || !parsed.ok) {
      throw new TetherError(
        'invalid_state',
        `the host no longer has the tool ${approval.name} with this input: approve or deny the call instead.`,
      );
    }
    const scope = store.read(() => ruleScope(store, approval));
    const decision = await ctx.policy(
      { name: approval.name, access: tool.access(parsed.input) },
      approval.workspace,
      addedRulesOf(store, scope.workspace),
      { worktree: scope.worktree },
    );
    const offered = decision.proposal?.offered === true ? decision.proposal.words : undefined;
    const inForce = decision.allowedBy?.words;
    if (!sameWords(offered, words) && !sameWords(inForce, words)) {
      throw new TetherError(
        'invalid_state',
        `the host no longer offers this rule: ${decision.reason} Approve or deny the call instead.`,
      );
    }
  }
  return store.applyCommand(
    { commandId: args.commandId, op: 'policy.rule_add', args, deviceId: by },
    (tx) => {
      // The check above awaited policy: a revocation committed meanwhile removed this
      // device's rules, and must not be followed by one more of its own.
      if (store.devices.get(by)?.revokedAt != null) {
        throw new TetherError('device_revoked', 'this device was revoked; it adds no rule');
      }
      const { approval, call } = pendingApproval(store, args);
      const words = offeredWords(approval.preview.ruleProposal);
      const { workspace } = ruleScope(store, approval);
      const existing = store.allowRules
        .active(workspace)
        .find((rule) => sameWords(rule.words, words));
      let ruleId = existing?.id;
      if (ruleId === undefined) {
        ruleId = newId('rul');
        const byName = by === 'local' ? 'this Mac' : (store.devices.get(by)?.name ?? by);
        store.allowRules.insert({
          id: ruleId,
          workspace,
          words,
          addedBy: by,
          addedByName: byName,
          addedAt: tx.at,
          approvalId: approval.id,
        });
        tx.append({
          type: 'policy.rule_added',
          payload: {
            ruleId,
            rule: words,
            workspace,
            by,
            byName,
            approvalId: approval.id,
          },
        });
      }
      resolveApproval(store, approval, 'approved', by, tx);
      moveToolCall(store, call, 'ready', tx);
      return { ruleId, status: 'approved' as const };
    },
  ).result;
}

/**
 * Removes a rule added from a remote, with `policy.rule_removed`: calls not run yet are
 * decided again without it. A config rule, an unknown id or a rule removed before is an
 * error that says so and changes nothing.
 */
export function removeRule(
  store: Store,
  args: OpArgs<'policy.rule_remove'>,
  by: Actor,
): OpResult<'policy.rule_remove'> {
  return store.applyCommand(
    { commandId: args.commandId, op: 'policy.rule_remove', args, deviceId: by },
    (tx) => {
      if (args.ruleId.startsWith(CONFIG_RULE_PREFIX)) {
        throw new TetherError(
          'invalid_state',
          `rule ${args.ruleId} is in the host's config file: remove it there, on the Mac (policy.commands.allow)`,
        );
      }
      const rule = store.allowRules.get(args.ruleId);
      if (rule === undefined) {
        throw new TetherError(
          'not_found',
          `no rule ${args.ruleId} on this host: policy.rules lists the rules there are`,
        );
      }
      if (rule.removedAt !== null) {
        throw new TetherError(
          'invalid_state',
          `rule ${args.ruleId} was removed already, at ${new Date(rule.removedAt).toISOString()}`,
        );
      }
      markRuleRemoved(store, tx, rule, by);
      return {};
    },
  ).result;
}

/**
 * Marks an added rule removed by `by`, with its `policy.rule_removed`, inside the caller's
 * write (a removal from the Rules screen, or the revocation of the device that added it).
 */
export function markRuleRemoved(
  store: Store,
  tx: WriteContext,
  rule: StoredAllowRule,
  by: Actor,
): void {
  store.allowRules.remove(rule.id, by, tx.at);
  tx.append({
    type: 'policy.rule_removed',
    payload: { ruleId: rule.id, rule: rule.words, workspace: rule.workspace, by },
  });
}

/** The words a card offered, or the error saying none was offered. */
function offeredWords(proposal: RuleProposal | undefined): string[] {
  if (proposal?.offered === true) return proposal.words;
  const why = proposal === undefined ? 'it asked before rules existed' : proposal.reason;
  throw new TetherError(
    'invalid_state',
    `the host offered no rule for this approval (${why}); approve or deny it instead`,
  );
}

function sameWords(a: readonly string[] | undefined, b: readonly string[]): boolean {
  return a !== undefined && a.length === b.length && a.every((word, i) => b[i] === word);
}
