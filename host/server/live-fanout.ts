/**
 * Coalesces previews and output tails per run (at most ~30 frames a second each) and
 * hands them to whoever watches that run now. Ephemeral: a frame may be dropped.
 */
import type { OutputMessage, PreviewMessage } from '../../protocol/index.js';
import type { LiveMessage, LiveRun } from '../runtime/index.js';

/** About 30 a second. */
const LIVE_INTERVAL_MS = 33;

export type LiveSink = (message: LiveMessage, run: LiveRun) => void;

interface Pending {
  run: LiveRun;
  preview: PreviewMessage | null;
  outputs: Map<string, OutputMessage>;
}

function mergePreview(pending: PreviewMessage, next: PreviewMessage): PreviewMessage {
  const reasoning = (pending.reasoning ?? '') + (next.reasoning ?? '');
  return {
    ...pending,
    text: pending.text + next.text,
    ...(reasoning.length > 0 ? { reasoning } : {}),
  };
}

export class LiveFanout {
  private readonly pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly sink: LiveSink) {}

  push(message: LiveMessage, run: LiveRun): void {
    let pending = this.pending.get(run.runId);
    if (pending === undefined) {
      pending = { run, preview: null, outputs: new Map() };
      this.pending.set(run.runId, pending);
    }
    if (message.t === 'preview') {
      const current = pending.preview;
      const contiguous =
        current !== null &&
        current.messageId === message.messageId &&
        current.offset + current.text.length === message.offset;
      if (current !== null && !contiguous) this.sink(current, run);
      pending.preview = contiguous ? mergePreview(current, message) : message;
    } else {
      const current = pending.outputs.get(message.toolCallId);
      const contiguous =
        current !== undefined && current.offset + current.text.length === message.offset;
      if (current !== undefined && !contiguous) this.sink(current, run);
      pending.outputs.set(
        message.toolCallId,
        contiguous ? { ...current, text: current.text + message.text } : message,
      );
    }
    this.timer ??= setTimeout(() => this.flush(), LIVE_INTERVAL_MS);
  }

  /**
   * Forgets a run's pending preview once its message is durable: a preview sent after
   * `message.completed` would show, as live, text that is already history.
   */
  discardPreview(runId: string): void {
    const pending = this.pending.get(runId);
    if (pending !== undefined) pending.preview = null;
  }

  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const batches = [...this.pending.values()];
    this.pending.clear();
    for (const { run, preview, outputs } of batches) {
      if (preview !== null) this.sink(preview, run);
      for (const output of outputs.values()) this.sink(output, run);
    }
  }

  close(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.pending.clear();
  }
}
