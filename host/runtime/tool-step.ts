/**
 * One tool call through its states: proposed → (policy) → ready (intent) → running →
 * outcome, or proposed → waiting_for_approval. Each state commits before the next step,
 * so after a crash the store says exactly how far it got.
 */
import { join } from 'node:path';
import type { Approval, ApprovalPreview } from '../../protocol/index.js';
import { faultPoint } from '../faults/index.js';
import { newId, type Store, type StoredToolCall } from '../store/index.js';
import {
  parseToolInput,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
} from '../tools/index.js';
import type { LiveHub } from './live-hub.js';
import { addedRulesOf } from './rule-commands.js';
import { finishToolCall, moveRun, moveToolCall, sessionOf } from './transitions.js';
import type { PolicyDecision } from '../policy/index.js';
import type { PolicyFn, RuntimeLimits, ToolTable } from './types.js';

/** Keeps the head and the tail of a long result and says what was left out and where it is. */
function capForModel(content: string, maxChars: number, toolCallId: string, bytes: number): string {
  if (content.length <= maxChars) return content;
  const note = `\n\n[… output shortened: ${content.length} characters (${bytes} bytes) in all, the middle left out; the full output is kept as output ${toolCallId} …]\n\n`;
  const room = Math.max(0, maxChars - note.length);
  const head = Math.ceil(room * 0.6);
  const tail = room - head;
  return content.slice(0, head) + note + content.slice(content.length - tail);
}

export interface ToolStepContext {
  store: Store;
  live: LiveHub;
  tools: ToolTable;
  policy: PolicyFn;
  workspace: string;
  /**
   * Set when `workspace` is the run's own worktree: its repository's git folder, and the
   * user's workspace (the repository's top folder), which rules added there are kept for.
   */
  worktree: { gitReadOnly: readonly string[]; repository: string } | null;
  limits: RuntimeLimits;
  signal: AbortSignal;
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

function failedContent(result: ToolResult): string {
  if (result.content.length > 0) return result.content;
  return `error (${result.error?.code ?? 'failed'}): ${result.error?.message ?? result.summary}`;
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
  const { store } = ctx;
  const preview = await previewOf(ctx, tool, input, decision);
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
      reason: decision.reason,
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
    { worktree: ctx.worktree !== null },
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
 * What the user's approval of this call binds the tool to: the one path outside the
 * workspace they allowed, or the file version they saw in a write's diff.
 */
function approvedContext(approval: Approval | undefined): Partial<ToolContext> {
  if (approval === undefined) return { unattended: true };
  const { preview } = approval;
  const outside =
    preview.outside ??
    // Rows stored before `outside` existed named the path in a `path` preview.
    (preview.kind === 'path'
      ? { path: preview.path, access: preview.access === 'write' ? 'write' : 'read' }
      : undefined);
  return {
    unattended: false,
    ...(outside === undefined
      ? {}
      : { outsideAccess: { path: outside.path, kind: outside.access } }),
    ...(preview.kind === 'write' ? { approvedBaseSha256: preview.baseSha256 } : {}),
  };
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
  // Decided again on the paths as they are now, under the policy in force: a call
  // approved under an older config, or a folder swapped for a symlink since the card,
  // is judged by what it would do now.
  const decision =
    decided ??
    (await ctx.policy(
      { name: ready.name, access: tool.access(input) },
      ctx.workspace,
      addedRulesOf(store, rulesWorkspace(ctx)),
      { worktree: ctx.worktree !== null },
    ));
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
  // A rule removed while policy was deciding no longer allows: decided again without it.
  const ruleId = approval === undefined ? decision.allowedBy?.ruleId : undefined;
  const rule = ruleId === undefined ? undefined : store.allowRules.get(ruleId);
  if (rule !== undefined && rule.removedAt !== null) return runReadyCall(ctx, ready);
  const sessionId = sessionOf(store, ready.runId);
  // Nobody approved this call: the rule added from a remote that let it through, if one did.
  const allowedBy = approval === undefined ? decision.allowedBy : undefined;
  const running = store.write((tx) => {
    const moved = moveToolCall(store, ready, 'running', tx, { attempt: ready.attempt + 1 });
    if (allowedBy !== undefined) store.tools.recordAllowedBy(ready.id, allowedBy);
    tx.append({
      type: 'tool.started',
      sessionId,
      runId: ready.runId,
      toolCallId: ready.id,
      payload: { attempt: moved.attempt, ...(allowedBy === undefined ? {} : { allowedBy }) },
    });
    return moved;
  });
  faultPoint('tool-running');

  const outputPath = join(store.outputsDir, `${ready.id}.out`);
  const approved = approvedContext(approval);
  let result: ToolResult;
  try {
    result = await tool.execute(input, {
      workspace: ctx.workspace,
      signal: ctx.signal,
      ...(ctx.worktree === null ? {} : { gitReadOnly: ctx.worktree.gitReadOnly }),
      output: {
        path: outputPath,
        capBytes: ctx.limits.toolOutputMaxBytes,
        onChunk: (text, offset) => ctx.live.appendOutput(ready.runId, ready.id, offset, text),
      },
      ...approved,
      onProcessGroup: (pgid) => {
        store.write(() => store.tools.updateToolCall(ready.id, { processGroup: pgid }));
        faultPoint('tool-spawned');
      },
    });
  } catch (error) {
    result = {
      status: 'failed',
      summary: `${ready.name} failed unexpectedly`,
      content: '',
      error: { code: 'io_error', message: error instanceof Error ? error.message : String(error) },
    };
  } finally {
    ctx.live.endOutput(ready.runId, ready.id);
  }
  faultPoint('tool-exited');
  const cancelled = result.status === 'failed' && result.error?.code === 'cancelled';
  const status: 'succeeded' | 'failed' | 'cancelled' | 'unknown' = cancelled
    ? 'cancelled'
    : result.status;
  // No registered secret reaches the model, the row or an output file written here (a
  // command's own streamed output file is kept as the command wrote it).
  const content = store.maskSecrets(
    result.status === 'failed' ? failedContent(result) : result.content,
  );
  const output = result.outputFile ?? store.writeFile(outputPath, content);
  const artifacts = (result.artifacts ?? []).map((artifact) => {
    const id = newId('art');
    const file = store.writeFile(join(store.artifactsDir, `${id}`), artifact.content);
    return { id, kind: artifact.kind, name: artifact.name, file };
  });
  const modelContent = capForModel(content, ctx.limits.toolResultMaxChars, ready.id, output.bytes);
  const facts = {
    status,
    summary: result.summary,
    bytes: output.bytes,
    truncated: output.truncated,
    ...(result.exit === undefined
      ? {}
      : { exitCode: result.exit.code, signal: result.exit.signal }),
    ...(result.error === undefined ? {} : { error: result.error }),
  };
  store.write((tx) => {
    for (const artifact of artifacts) {
      store.tools.insertArtifact({
        id: artifact.id,
        runId: ready.runId,
        toolCallId: ready.id,
        kind: artifact.kind,
        name: artifact.name,
        bytes: artifact.file.bytes,
        sha256: artifact.file.sha256,
        createdAt: tx.at,
        path: artifact.file.path,
      });
      tx.append({
        type: 'artifact.created',
        sessionId,
        runId: ready.runId,
        toolCallId: ready.id,
        payload: {
          artifactId: artifact.id,
          kind: artifact.kind,
          name: artifact.name,
          bytes: artifact.file.bytes,
          sha256: artifact.file.sha256,
        },
      });
    }
    finishToolCall(store, running, tx, facts, {
      modelContent,
      output,
      result: {
        ...facts,
        ...(result.exit === undefined ? {} : { durationMs: result.exit.durationMs }),
        ...(result.data === undefined ? {} : { data: result.data }),
      },
    });
  });
  return 'done';
}
