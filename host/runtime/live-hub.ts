/**
 * Ephemeral state of runs in progress: the assistant text streaming now and the tails of
 * running tools. Never persisted; published to live listeners, read by `run.get`.
 */
import type { LiveState } from '../../protocol/index.js';
import type { LiveListener, LiveMessage, LiveRun } from './types.js';

/** Most output tail kept per running tool call, in characters. */
const OUTPUT_TAIL_CHARS = 16_384;

interface RunLive {
  /** Looked up once, when the run first streams: every message carries it. */
  run: LiveRun;
  messageId: string | null;
  text: string;
  reasoning: string;
  outputs: Map<string, { offset: number; text: string }>;
}

export class LiveHub {
  private readonly runs = new Map<string, RunLive>();
  private readonly listeners = new Set<LiveListener>();

  /** `sessionOf`: the session of a run, read when it first streams. */
  constructor(private readonly sessionOf: (runId: string) => string | null) {}

  listen(listener: LiveListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A new assistant message (or a new attempt of one) starts streaming. */
  beginMessage(runId: string, messageId: string): void {
    const live = this.get(runId);
    live.messageId = messageId;
    live.text = '';
    live.reasoning = '';
  }

  appendText(runId: string, delta: string): void {
    const live = this.get(runId);
    if (live.messageId === null) return;
    const offset = live.text.length;
    live.text += delta;
    this.emit({ t: 'preview', runId, messageId: live.messageId, offset, text: delta }, live.run);
  }

  appendReasoning(runId: string, delta: string): void {
    const live = this.get(runId);
    if (live.messageId === null) return;
    live.reasoning += delta;
    const message = { runId, messageId: live.messageId, offset: live.text.length };
    this.emit({ t: 'preview', ...message, text: '', reasoning: delta }, live.run);
  }

  /** The message was persisted (or abandoned): its preview is no longer live. */
  endMessage(runId: string): void {
    const live = this.runs.get(runId);
    if (live === undefined) return;
    live.messageId = null;
    live.text = '';
    live.reasoning = '';
  }

  appendOutput(runId: string, toolCallId: string, offset: number, text: string): void {
    const { outputs, run } = this.get(runId);
    const tail = outputs.get(toolCallId) ?? { offset, text: '' };
    const joined = tail.text + text;
    const cut = Math.max(0, joined.length - OUTPUT_TAIL_CHARS);
    outputs.set(toolCallId, { offset: tail.offset + cut, text: joined.slice(cut) });
    this.emit({ t: 'output', toolCallId, offset, text }, run);
  }

  endOutput(runId: string, toolCallId: string): void {
    this.runs.get(runId)?.outputs.delete(toolCallId);
  }

  endRun(runId: string): void {
    this.runs.delete(runId);
  }

  /** What is streaming now for `runId`, marked as not durable; undefined when nothing is. */
  snapshot(runId: string): LiveState | undefined {
    const live = this.runs.get(runId);
    if (live === undefined) return undefined;
    return {
      durable: false,
      messageId: live.messageId,
      text: live.text,
      reasoning: live.reasoning,
      outputs: [...live.outputs].map(([toolCallId, tail]) => ({ toolCallId, ...tail })),
    };
  }

  private get(runId: string): RunLive {
    let live = this.runs.get(runId);
    if (live === undefined) {
      const run = { runId, sessionId: this.sessionOf(runId) };
      live = { run, messageId: null, text: '', reasoning: '', outputs: new Map() };
      this.runs.set(runId, live);
    }
    return live;
  }

  private emit(message: LiveMessage, run: LiveRun): void {
    for (const listener of [...this.listeners]) listener(message, run);
  }
}
