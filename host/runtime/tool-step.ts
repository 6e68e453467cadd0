/**
 * One tool call through its states: proposed → (policy) → ready (intent) → running →
 * outcome, or proposed → waiting_for_approval. Each state commits before the next step,
 * so after a crash the store says exactly how far it got.
 */
import type { Approval, ApprovalPreview } from '../../protocol/index.js';
import { faultPoint } from '../faults/index.js';
import { newId, type Store, type StoredToolCall } from '../store/index.js';
import { parseToolInput, type ToolDefinition } from '../tools/index.js';
import { executeToolCall, type ToolExecutionContext } from './tool-execution.js';
import { addedRulesOf } from './rule-commands.js';
import { finishToolCall, moveRun, moveToolCall } from './transitions.js';
import type { PolicyDecision } from '../policy/index.js';
import type { PolicyFn, ToolTable } from './types.js';

export interface ToolStepContext extends ToolExecutionContext {
  tools: ToolTable;
  policy: PolicyFn;
  /**
   * Set when `workspace` is the run's own worktree: its repository's git folder, and the
   * user's workspace (the repository's top folder), which rules added there are kept for.
   */
  worktree: { gitReadOnly: readonly string[]; repository: string } | null;
}

/**
 * The workspace whose added rules apply: the user's, also in a run's own worktree, where a
 * rule added from a card outlives the worktree (rule-commands.ts keys it so).
 */
function rulesWorkspace(ctx: ToolStepContext): string {
  return ctx.worktree?.repository ?? ctx.workspace;
}

/** Cancels a call that has not started (proposed, waiting or ready): it never ran. */
export function cancelUnstartedCall(store: Store, call: StoredToolCall, summary: string): void {
  store.write((tx) => {
    const message = `[not run: ${summary}]`;
    finishToolCall(store, call, tx, { status: 'cancelled', summary }, { modelContent: message });
  });
}

/**
 * The call's tool and its input checked again. Null once the call has failed unsent: an
 * MCP server's tool that is gone since the call was proposed, or whose new schema refuses
 * the stored input, is never called with it.
 */
function toolOf(
  ctx: ToolStepContext,
  call: StoredToolCall,
): { tool: ToolDefinition<unknown>; input: unknown } | null {
  const tool = ctx.tools.get(call.name);
  const parsed = tool === undefined ? null : parseToolInput(tool, JSON.stringify(call.input));
  if (tool !== undefined && parsed?.ok === true) return { tool, input: parsed.input };
  const message =
    parsed === null || parsed.ok
      ? `there is no tool named ${call.name} any more: it was not called`
      : `${parsed.message}: it was not called`;
  const code = parsed === null ? 'unavailable' : 'invalid_input';
  ctx.store.write((tx) =>
    finishToolCall(
      ctx.store,
      call,
      tx,
      { status: 'failed', summary: message, error: { code, message } },
      { modelContent: `error (${code}): ${message}` },
    ),
  );
  return null;
}

/**
 * What the approval card shows: the tool's own preview (the command and its folder, the
 * diff and the real target), else the path; with `outside` when the call reaches outside
 * the workspace, so every field that changes what runs is on the card.
 */
async function previewOf(
  ctx: ToolStepContext,
  tool: ToolDefinition<unknown>,
  input: unknown,
  decision: PolicyDecision,
): Promise<ApprovalPreview> {
  const access = decision.access;
  const outside =
    access === undefined ? {} : { outside: { path: access.path, access: access.kind } };
  const proposal = decision.proposal === undefined ? {} : { ruleProposal: decision.proposal };
  if (tool.preview !== undefined) {
    const preview = await tool.preview(input, {
      workspace: ctx.workspace,
      signal: ctx.signal,
      ...(access === undefined ? {} : { outsideAccess: access }),
    });
    return { ...preview, ...outside, ...proposal };
  }
  if (access !== undefined)
    return { kind: 'path', path: access.path, access: access.kind, ...outside, ...proposal };
  const declared = tool.access(input);
  return {
    kind: 'path',
    path: ctx.workspace,
    access: declared.kind === 'read' ? 'read' : 'write',
    ...proposal,
  };
}

function refuseByPolicy(store: Store, call: StoredToolCall, reason: string): void {
  store.write((tx) =>
    finishToolCall(
      store,
      call,
      tx,
      {
        status: 'failed',
        summary: `refused by policy: ${reason}`,
        error: { code: 'permission_denied', message: reason },
      },
      { modelContent: `permission_denied: ${reason}. The tool did not run.` },
    ),
  );
}

/** Records an approval for `call` (proposed, or ready under a policy that now asks) and parks its run. */
async function requestApproval(
  ctx: ToolStepContext,
  call: StoredToolCall,
  tool: ToolDefinition<unknown>,
  input: unknown,
  decision: PolicyDecision,
): Promise<'waiting'> {
  const preview = await previewOf(ctx, tool, input, decision);
  return recordApproval(ctx, call, preview, decision.reason);
}

/**
 * Records a pending approval of `call` (proposed, or ready under a policy that now asks)
 * with what its card shows, moves the call to `waiting_for_approval`, parks its run, and
 * announces it (`tool.approval_requested`, pushed to the devices). The one approval path:
 * a tool's call and an ACP agent's permission request both come here.
 */
export function recordApproval(
  ctx: Pick<ToolStepContext, 'store' | 'workspace' | 'limits'>,
  call: StoredToolCall,
  preview: ApprovalPreview,
  reason: string,
): 'waiting' {
  const { store } = ctx;
  store.write((tx) => {
    const approval = {
      id: newId('apr'),
      toolCallId: call.id,
      runId: call.runId,
      state: 'pending' as const,
      name: call.name,
      input: call.input,
      workspace: ctx.workspace,
      inputDigest: call.inputDigest,
      preview,
      reason,
      expiresAt: tx.at + ctx.limits.approvalTtlMs,
      decidedBy: null,
    };
    store.tools.insertApproval(approval, tx.at);
    moveToolCall(store, call, 'waiting_for_approval', tx);
    const run = store.runs.getRun(call.runId)!;
    if (run.state === 'running') moveRun(store, run, 'waiting_for_approval', tx);
    tx.append({
      type: 'tool.approval_requested',
      sessionId: run.sessionId,
      runId: run.id,
      toolCallId: call.id,
      payload: {
        approvalId: approval.id,
        name: approval.name,
        input: approval.input,
        workspace: approval.workspace,
        inputDigest: approval.inputDigest,
        reason: approval.reason,
        preview,
        expiresAt: approval.expiresAt,
      },
    });
  });
  faultPoint('approval-requested');
  return 'waiting';
}

/**
 * Asks policy about a `proposed` call, then runs it (allow), refuses it (deny), or records
 * an approval and parks the run (ask). Returns `waiting` when the run must wait.
 */
export async function settleProposedCall(
  ctx: ToolStepContext,
  call: StoredToolCall,
): Promise<'done' | 'waiting'> {
  const { store } = ctx;
  const known = toolOf(ctx, call);
  if (known === null) return 'done';
  const { tool, input } = known;
  const rules = addedRulesOf(store, rulesWorkspace(ctx));
  const decision = await ctx.policy(
    { name: call.name, access: tool.access(input) },
    ctx.workspace,
    rules,
    { worktree: ctx.worktree !== null, readOnly: ctx.readOnly },
  );
  if (decision.decision === 'deny') {
    refuseByPolicy(store, call, decision.reason);
    return 'done';
  }
  // Fails closed: only an explicit allow runs unasked (a decision of any other value, as a
  // setting looked up by a tool's name once gave, asks).
  if (decision.decision !== 'allow') return requestApproval(ctx, call, tool, input, decision);
  const ready = store.write((tx) => moveToolCall(store, call, 'ready', tx));
  return runReadyCall(ctx, ready, decision);
}

/** The user's approval of this call, if one was given. */
function approvalOf(store: Store, call: StoredToolCall): Approval | undefined {
  return store.tools
    .listApprovals({ runId: call.runId, state: 'approved' })
    .find((candidate) => candidate.toolCallId === call.id);
}

/**
 * Runs a `ready` call to its outcome. Returns without running it when the signal has
 * already aborted (the call is then cancelled, never started).
 */
export async function runReadyCall(
  ctx: ToolStepContext,
  ready: StoredToolCall,
  decided?: PolicyDecision,
): Promise<'done' | 'waiting'> {
  const { store } = ctx;
  faultPoint('tool-ready');
  const known = toolOf(ctx, ready);
  if (known === null) return 'done';
  const { tool, input } = known;
  if (ctx.signal.aborted) {
    cancelUnstartedCall(store, ready, 'the run was stopped before this tool started');
    return 'done';
  }
  const approval = approvalOf(store, ready);
  const decision = await decideAgain(ctx, ready, known, approval, decided);
  if (decision.decision === 'deny') {
    const why = approval === undefined ? '' : ' (it was approved, but the policy changed since)';
    refuseByPolicy(store, ready, `${decision.reason}${why}`);
    return 'done';
  }
  if (decision.decision !== 'allow' && approval === undefined) {
    return requestApproval(ctx, ready, tool, input, decision);
  }
  if (ctx.signal.aborted) {
    cancelUnstartedCall(store, ready, 'the run was stopped before this tool started');
    return 'done';
  }
  // Nobody approved this call: the rule added from a remote that let it through, if one did.
  const allowedBy = approval === undefined ? decision.allowedBy : undefined;
  await executeToolCall(ctx, ready, tool, input, approval, allowedBy);
  return 'done';
}

/**
 * The policy's decision on a ready call, made again on the paths as they are now, under
 * the policy in force: a call approved under an older config, or a folder swapped for a
 * symlink since the card, is judged by what it would do now. A rule removed while the
 * policy was deciding no longer allows: the call is decided again without it.
 */
async function decideAgain(
  ctx: ToolStepContext,
  ready: StoredToolCall,
  { tool, input }: { tool: ToolDefinition<unknown>; input: unknown },
  approval: Approval | undefined,
  decided: PolicyDecision | undefined,
): Promise<PolicyDecision> {
  for (let given = decided; ; given = undefined) {
    const decision =
      given ??
      (await ctx.policy(
        { name: ready.name, access: tool.access(input) },
        ctx.workspace,
        addedRulesOf(ctx.store, rulesWorkspace(ctx)),
        { worktree: ctx.worktree !== null, readOnly: ctx.readOnly },
      ));
    const ruleId = approval === undefined ? decision.allowedBy?.ruleId : undefined;
    const rule = ruleId === undefined ? undefined : ctx.store.allowRules.get(ruleId);
    if (rule === undefined || rule.removedAt === null) return decision;
  }
}
