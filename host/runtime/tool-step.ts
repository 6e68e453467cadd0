/**
 * One tool call through its states: proposed → ready (intent) → running → outcome. Each
 * state commits before the next step, so after a crash the store says exactly how far it got.
 */
import { join } from 'node:path';
import { writeDurableFile, type Store, type StoredToolCall } from '../store/index.js';
import { parseToolInput, type ToolDefinition, type ToolResult } from '../tools/index.js';
import { finishToolCall, moveToolCall, sessionOf } from './transitions.js';

/** Keeps the head and the tail of a long result and says what was left out and where it is. */
export function capForModel(
  content: string,
  maxChars: number,
  toolCallId: string,
  bytes: number,
): string {
  if (content.length <= maxChars) return content;
  const note = `\n\n[… output shortened: ${content.length} characters (${bytes} bytes) in all, the middle left out; the full output is kept as output ${toolCallId} …]\n\n`;
  const room = Math.max(0, maxChars - note.length);
  const head = Math.ceil(room * 0.6);
  const tail = room - head;
  return content.slice(0, head) + note + content.slice(content.length - tail);
}

export interface ToolStepContext {
  store: Store;
  tools: ReadonlyMap<string, ToolDefinition<unknown>>;
  workspace: string;
  toolResultMaxChars: number;
  signal: AbortSignal;
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
 * Runs an allowed, `proposed` tool call to its outcome. Returns without running it when
 * the signal has already aborted (the call is then cancelled, never started).
 */
export async function runToolCall(ctx: ToolStepContext, call: StoredToolCall): Promise<void> {
  const { store } = ctx;
  const tool = ctx.tools.get(call.name);
  if (tool === undefined) throw new Error(`tool call ${call.id} names no tool: ${call.name}`);
  const parsed = parseToolInput(tool, JSON.stringify(call.input));
  if (!parsed.ok) throw new Error(`tool call ${call.id} was stored with invalid input`);

  let ready = store.write((tx) => moveToolCall(store, call, 'ready', tx));
  if (ctx.signal.aborted) {
    cancelUnstartedCall(store, ready, 'the run was stopped before this tool started');
    return;
  }
  ready = store.write((tx) => {
    const running = moveToolCall(store, ready, 'running', tx, { attempt: ready.attempt + 1 });
    tx.append({
      type: 'tool.started',
      sessionId: sessionOf(store, call.runId),
      runId: call.runId,
      toolCallId: call.id,
      payload: { attempt: running.attempt },
    });
    return running;
  });

  let result: ToolResult;
  try {
    result = await tool.execute(parsed.input, { workspace: ctx.workspace, signal: ctx.signal });
  } catch (error) {
    result = {
      status: 'failed',
      summary: `${call.name} failed unexpectedly`,
      content: '',
      error: { code: 'io_error', message: error instanceof Error ? error.message : String(error) },
    };
  }
  const cancelled = result.status === 'failed' && result.error?.code === 'cancelled';
  const content = result.status === 'succeeded' ? result.content : failedContent(result);
  const output = writeDurableFile(join(store.outputsDir, `${call.id}.out`), content);
  const modelContent = capForModel(content, ctx.toolResultMaxChars, call.id, output.bytes);
  store.write((tx) =>
    finishToolCall(
      store,
      ready,
      tx,
      {
        status: cancelled ? 'cancelled' : result.status,
        summary: result.summary,
        bytes: output.bytes,
        truncated: output.truncated,
        ...(result.error === undefined ? {} : { error: result.error }),
      },
      {
        modelContent,
        output,
        result: {
          status: cancelled ? 'cancelled' : result.status,
          summary: result.summary,
          bytes: output.bytes,
          ...(result.error === undefined ? {} : { error: result.error }),
          ...(result.data === undefined ? {} : { data: result.data }),
        },
      },
    ),
  );
}
