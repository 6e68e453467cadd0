/**
 * What an ACP agent reports in its turn (`session/update`), recorded as Tether's own
 * facts: message chunks as live previews, the text up to each tool call and at the end as
 * `message.completed` (with the agent's plan and usage), its tool calls as tool calls
 * named `agent:<kind>` moved along with the status it reports.
 */
import type { SessionNotification, ToolCallUpdate } from '@agentclientprotocol/sdk';
import { digest } from '../../protocol/index.js';
import {
  cardInput,
  cutNote,
  fitText,
  oversizedCard,
  planProblem,
  TOOL_CALLS_MAX,
  updatedCall,
  type AgentCall,
} from '../agents/index.js';
import { newId, type StoredRun, type StoredToolCall } from '../store/index.js';
import type { ExecutorDeps } from './run-frame.js';
import { finishToolCall, moveToolCall } from './transitions.js';

/** What the parts of an agent run share of it (agent-run.ts). */
export interface AgentRunScope {
  readonly deps: ExecutorDeps;
  readonly runId: string;
  readonly agentName: string;
  /** Real path of the run's workspace (or its worktree). */
  readonly workspace: string;
  /**
   * The stop of what the agent asked for: aborted when the run is cancelled, out of time or
   * cannot commit, and when the agent's turn is over.
   */
  readonly signal: AbortSignal;
  /** True once the run is stopping, for any reason, or the agent's turn is over. */
  stopping(): boolean;
  run(): StoredRun;
  /** A store write that fails stops the run where it stands: null then. */
  guarded<T>(write: () => T): T | null;
  /** Stops the run, which ends failed: the agent sent more than a bound of the host. */
  refuse(why: string): void;
}

export class AgentTranscript {
  /** The agent's tool calls, by its own id. */
  readonly calls = new Map<string, AgentCall>();
  /** The message tool calls of this stretch of the turn belong to; null: text comes first. */
  private segmentMessageId: string | null = null;
  private liveMessageId: string | null = null;
  private text = '';
  private reasoning = '';
  private usage: Record<string, number> | null = null;
  private plan: unknown[] | null = null;
  /** Characters of this message's text and reasoning past the bound, not kept. */
  private cut = 0;
  /** Tether calls this run recorded (the agent's and its `fs/*` calls). */
  private stored = 0;

  constructor(private readonly scope: AgentRunScope) {}

  /**
   * True when the run may record one more tool call; else the run is refused (a run keeps
   * at most {@link TOOL_CALLS_MAX} calls).
   */
  roomForCall(): boolean {
    if (this.calls.size < TOOL_CALLS_MAX && this.stored < TOOL_CALLS_MAX) return true;
    this.scope.refuse(`it made more than ${TOOL_CALLS_MAX} tool calls in one run`);
    return false;
  }

  /** One `session/update` of this run's session. */
  update(update: SessionNotification['update']): void {
    const { live } = this.scope.deps;
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
      case 'agent_thought_chunk': {
        if (update.content.type !== 'text') return;
        if (this.liveMessageId === null) {
          this.liveMessageId = newId('msg');
          this.segmentMessageId = null;
          live.beginMessage(this.scope.runId, this.liveMessageId);
        }
        // Each cut to what is left of the bound: the live preview is never more either.
        if (update.sessionUpdate === 'agent_message_chunk') {
          const fit = fitText(this.text.length, update.content.text);
          this.cut += fit.cut;
          this.text += fit.text;
          if (fit.text !== '') live.appendText(this.scope.runId, fit.text);
        } else {
          const fit = fitText(this.reasoning.length, update.content.text);
          this.cut += fit.cut;
          this.reasoning += fit.text;
          if (fit.text !== '') live.appendReasoning(this.scope.runId, fit.text);
        }
        return;
      }
      case 'tool_call':
      case 'tool_call_update':
        this.toolUpdate(update);
        return;
      case 'plan': {
        const problem = planProblem(update.entries);
        if (problem !== null) {
          this.scope.refuse(`it sent ${problem}`);
          return;
        }
        this.plan = update.entries.map((entry) => ({
          content: entry.content,
          status: entry.status,
          priority: entry.priority,
        }));
        return;
      }
      case 'usage_update':
        this.usage = {
          ...this.usage,
          contextTokens: update.used,
          contextWindow: update.size,
          ...(update.cost === undefined || update.cost === null
            ? {}
            : { costUsd: update.cost.amount }),
        };
        return;
      default:
    }
  }

  /** The token counts of the prompt's answer, added to the usage the message will carry. */
  addUsage(usage: Record<string, number>): void {
    this.usage = { ...this.usage, ...usage };
  }

  /** What the agent says of a tool call, kept; its Tether call moved along with its status. */
  private toolUpdate(update: ToolCallUpdate): void {
    const known = this.calls.get(update.toolCallId);
    if (known === undefined && !this.roomForCall()) return;
    const call = updatedCall(known, update);
    const oversized = oversizedCard(call);
    if (oversized !== null) {
      this.calls.delete(update.toolCallId);
      this.scope.refuse(`it sent ${oversized}`);
      return;
    }
    this.calls.set(update.toolCallId, call);
    // A pending call waits for its permission request, where its card is made.
    if (call.callId === null && (call.status === null || call.status === 'pending')) return;
    if (call.callId === null) call.callId = this.insertCall(update.toolCallId, call).id;
    this.advance(call);
  }

  /** The Tether call of an agent's tool call, `proposed`, in this stretch's message. */
  insertCall(agentCallId: string, call: AgentCall): StoredToolCall {
    const input = cardInput(call);
    return this.insertToolCall(`agent:${input.kind}`, input, agentCallId);
  }

  /** A `proposed` call of `name` in this stretch's message, `agentCallId` its model call id. */
  insertToolCall(name: string, input: unknown, agentCallId: string): StoredToolCall {
    const { store, tools } = this.scope.deps;
    const run = this.scope.run();
    const messageId = this.segmentMessage();
    return store.write((tx) => {
      const position = store.tools.listToolCalls(run.id).length;
      const call: StoredToolCall = {
        id: newId('tc'),
        runId: run.id,
        name,
        input,
        inputDigest: digest({ tool: name, input, workspace: this.scope.workspace }),
        state: 'proposed',
        startedAt: null,
        finishedAt: null,
        result: null,
        messageId,
        modelCallId: agentCallId,
        position,
        attempt: 0,
        createdAt: tx.at,
        modelContent: null,
        output: null,
        processGroup: null,
      };
      store.tools.insertToolCall(call);
      this.stored += 1;
      const tool = tools.get(name);
      tx.append({
        type: 'tool.proposed',
        sessionId: run.sessionId,
        runId: run.id,
        toolCallId: call.id,
        payload: {
          name,
          input,
          inputDigest: call.inputDigest,
          ...(tool === undefined
            ? { access: 'opaque' as const }
            : { access: tool.access(input).kind }),
        },
      });
      return call;
    });
  }

  /** Moves the Tether call of an agent's tool call as far as the agent's status says. */
  private advance(call: AgentCall): void {
    const { store } = this.scope.deps;
    if (call.callId === null) return;
    let stored = store.tools.getToolCall(call.callId);
    if (stored === undefined) return;
    const status = call.status;
    if (status === 'in_progress' || status === 'completed' || status === 'failed') {
      stored = this.started(stored);
    }
    if (stored.state !== 'running') return;
    if (status !== 'completed' && status !== 'failed') return;
    const text = store.maskSecrets(call.text);
    const summary = `${call.title ?? stored.name}: ${status}`;
    store.write((tx) =>
      finishToolCall(
        store,
        stored,
        tx,
        status === 'completed'
          ? { status: 'succeeded', summary }
          : { status: 'failed', summary, error: { code: 'failed', message: text || summary } },
        { modelContent: text },
      ),
    );
  }

  /** A proposed or ready call moved to running with `tool.started` (the agent runs it). */
  started(call: StoredToolCall): StoredToolCall {
    const { store } = this.scope.deps;
    if (call.state !== 'proposed' && call.state !== 'ready') return call;
    const run = this.scope.run();
    return store.write((tx) => {
      const ready = call.state === 'proposed' ? moveToolCall(store, call, 'ready', tx) : call;
      const running = moveToolCall(store, ready, 'running', tx, { attempt: ready.attempt + 1 });
      tx.append({
        type: 'tool.started',
        sessionId: run.sessionId,
        runId: run.id,
        toolCallId: call.id,
        payload: { attempt: running.attempt },
      });
      return running;
    });
  }

  /**
   * The message this stretch's tool calls belong to: the text so far committed as one
   * (`message.completed`), once, before the first call after it.
   */
  private segmentMessage(): string {
    if (this.segmentMessageId !== null) return this.segmentMessageId;
    this.segmentMessageId = this.flushMessage('tool_calls', true);
    return this.segmentMessageId;
  }

  /**
   * Commits the text since the last message as a message (`message.completed`), with the
   * agent's plan and usage when it gave them. `always`: even with no text (tool calls need
   * one to belong to); else only when there is text, or none was recorded in the run.
   */
  flushMessage(finishReason: string, always = false): string {
    const { store, live } = this.scope.deps;
    const run = this.scope.run();
    const empty = this.text === '' && this.reasoning === '' && this.cut === 0;
    if (!always && empty && store.runs.countMessages(run.id) > 0 && this.usage === null) {
      return this.segmentMessageId ?? '';
    }
    const messageId = this.liveMessageId ?? newId('msg');
    const usage = this.usage;
    const plan = this.plan;
    const cut = this.cut;
    const text = cut === 0 ? this.text : this.text + cutNote(cut);
    store.write((tx) => {
      store.runs.insertMessage({
        id: messageId,
        runId: run.id,
        text,
        reasoning: this.reasoning === '' ? null : this.reasoning,
        finishReason,
        usage,
        createdAt: tx.at,
        provider: 'acp',
        native: {},
        toolCalls: [],
      });
      tx.append({
        type: 'message.completed',
        sessionId: run.sessionId,
        runId: run.id,
        payload: {
          messageId,
          text,
          finishReason,
          ...(cut === 0 ? {} : { cutChars: cut }),
          ...(this.reasoning === '' ? {} : { reasoning: this.reasoning }),
          ...(usage === null ? {} : { usage }),
          ...(plan === null ? {} : { plan }),
        },
      });
    });
    if (this.liveMessageId !== null) live.endMessage(this.scope.runId);
    this.liveMessageId = null;
    this.text = '';
    this.reasoning = '';
    this.cut = 0;
    this.usage = null;
    this.plan = null;
    return messageId;
  }
}
