/**
 * A tool call run: the call moved to `running` with `tool.started`, its tool executed in
 * the run's workspace (or worktree) with what the approval binds it to, and its outcome,
 * output and artifacts recorded with `tool.finished`. What the model is told is masked
 * and cut to the limit; the whole output stays in its file.
 */
import { join } from 'node:path';
import type { Approval, AllowedBy } from '../../protocol/index.js';
import { faultPoint } from '../faults/index.js';
import { newId, type Store, type StoredToolCall } from '../store/index.js';
import type { ToolContext, ToolDefinition, ToolResult } from '../tools/index.js';
import type { LiveHub } from './live-hub.js';
import { finishToolCall, moveToolCall, sessionOf } from './transitions.js';
import type { RuntimeLimits } from './types.js';
import { errorMessage } from '../../protocol/index.js';

/** What running a call needs of its run. */
export interface ToolExecutionContext {
  store: Store;
  live: LiveHub;
  workspace: string;
  /** Set in a run's own worktree: its repository's git folder, read-only to commands. */
  worktree: { gitReadOnly: readonly string[] } | null;
  /** Real paths of folders the run may read and never write: its attachments. */
  readOnly: readonly string[];
  limits: RuntimeLimits;
  signal: AbortSignal;
  /** Told once a call's process runs, its group recorded (an agent's terminal). */
  onStarted?: (call: StoredToolCall) => void;
}

/** Keeps the head and the tail of a long result and says what was left out and where it is. */
function capForModel(content: string, maxChars: number, toolCallId: string, bytes: number): string {
  if (content.length <= maxChars) return content;
  const note = `\n\n[… output shortened: ${content.length} characters (${bytes} bytes) in all, the middle left out; the full output is kept as output ${toolCallId} …]\n\n`;
  const room = Math.max(0, maxChars - note.length);
  const head = Math.ceil(room * 0.6);
  const tail = room - head;
  return content.slice(0, head) + note + content.slice(content.length - tail);
}

function failedContent(result: ToolResult): string {
  if (result.content.length > 0) return result.content;
  return `error (${result.error?.code ?? 'failed'}): ${result.error?.message ?? result.summary}`;
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
 * Runs a `ready` call the policy allowed or the user approved, and records its outcome.
 * `allowedBy` names the rule added from a remote that let an unapproved call through.
 */
export async function executeToolCall(
  ctx: ToolExecutionContext,
  ready: StoredToolCall,
  tool: ToolDefinition<unknown>,
  input: unknown,
  approval: Approval | undefined,
  allowedBy: AllowedBy | undefined,
): Promise<void> {
  const { store } = ctx;
  const sessionId = sessionOf(store, ready.runId);
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

  const outputPath = store.outputPath(ready.id);
  const approved = approvedContext(approval);
  let result: ToolResult;
  try {
    result = await tool.execute(input, {
      workspace: ctx.workspace,
      signal: ctx.signal,
      ...(ctx.worktree === null ? {} : { gitReadOnly: ctx.worktree.gitReadOnly }),
      readOnlyFolders: ctx.readOnly,
      output: {
        path: outputPath,
        capBytes: ctx.limits.toolOutputMaxBytes,
        onChunk: (text, offset) => ctx.live.appendOutput(ready.runId, ready.id, offset, text),
      },
      ...approved,
      onProcessGroup: (pgid) => {
        store.write(() => store.tools.updateToolCall(ready.id, { processGroup: pgid }));
        faultPoint('tool-spawned');
        ctx.onStarted?.(running);
      },
    });
  } catch (error) {
    result = {
      status: 'failed',
      summary: `${ready.name} failed unexpectedly`,
      content: '',
      error: { code: 'io_error', message: errorMessage(error) },
    };
  } finally {
    ctx.live.endOutput(ready.runId, ready.id);
  }
  faultPoint('tool-exited');
  recordOutcome(ctx, running, sessionId, result, outputPath);
}

/**
 * The outcome of a call that ran, in one transaction: its artifacts with
 * `artifact.created`, and the call finished with what the model is told.
 */
function recordOutcome(
  ctx: ToolExecutionContext,
  running: StoredToolCall,
  sessionId: string | null,
  result: ToolResult,
  outputPath: string,
): void {
  const { store } = ctx;
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
  const modelContent = capForModel(
    content,
    ctx.limits.toolResultMaxChars,
    running.id,
    output.bytes,
  );
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
        runId: running.runId,
        toolCallId: running.id,
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
        runId: running.runId,
        toolCallId: running.id,
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
}
