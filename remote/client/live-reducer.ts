/**
 * Ephemeral streaming (docs/protocol.md §6): `preview` text appended only where its
 * offset fits, `output` tails kept bounded. Neither is ever shown as durable history.
 */
import {
  isTerminalRunState,
  type OutputMessage,
  type PreviewMessage,
} from '../../protocol/index.js';
import type { StateDraft } from './state-draft.js';

/** Most characters of a tool's output tail kept. */
export const OUTPUT_TAIL_CHARS = 16_384;

/**
 * Appends a preview chunk when its `offset` equals the text held for that messageId; a
 * chunk at offset 0 under a new messageId starts over (a new message, or a retried attempt).
 * Anything else (a gap, a repeat, a message already completed) is dropped.
 */
export function applyPreview(draft: StateDraft, message: PreviewMessage): void {
  const { runId, messageId, offset, text, reasoning = '' } = message;
  const run = draft.get('runs', runId);
  if (run !== undefined && isTerminalRunState(run.state)) return;
  if (draft.get('messages', runId)?.some((completed) => completed.id === messageId)) return;
  const current = draft.get('previews', runId);
  if (current?.messageId === messageId) {
    if (offset !== current.text.length) return;
    const next = { messageId, text: current.text + text, reasoning: current.reasoning + reasoning };
    draft.put('previews', runId, next);
    return;
  }
  if (offset !== 0) return;
  draft.put('previews', runId, { messageId, text, reasoning });
}

/**
 * Adds an output chunk to its tool call's tail: appended where it continues the tail,
 * the unseen part where it overlaps, a fresh tail after a gap; at most
 * {@link OUTPUT_TAIL_CHARS} characters are kept.
 */
export function applyOutput(draft: StateDraft, message: OutputMessage): void {
  const { toolCallId, offset, text } = message;
  const call = draft.get('toolCalls', toolCallId);
  if (call !== undefined && call.finishedAt !== null) return;
  const tail = draft.get('outputs', toolCallId);
  const end = tail === undefined ? undefined : tail.offset + tail.text.length;
  let joined: { offset: number; text: string };
  if (tail === undefined || end === undefined || offset > end) {
    joined = { offset, text };
  } else if (offset + text.length <= end) {
    return;
  } else {
    joined = { offset: tail.offset, text: tail.text + text.slice(end - offset) };
  }
  const cut = Math.max(0, joined.text.length - OUTPUT_TAIL_CHARS);
  draft.put('outputs', toolCallId, { offset: joined.offset + cut, text: joined.text.slice(cut) });
}
