/**
 * Executes one run of an ACP agent (docs/agents.md): the agent started in the sandbox, its
 * session made (or loaded: the session's earlier run, or this run after a restart), the
 * task sent as its prompt, and what it reports recorded as Tether's own facts: message
 * text as live previews and completed messages, its tool calls as tool calls with their
 * status, its permission requests as approvals (the one approval path of tool-step.ts),
 * its file reads and writes as calls of read_file and write_file under the host's policy.
 * Cancel sends `session/cancel` and waits a bounded time for the agent's stop reason; the
 * agent's process group is gone after every end.
 */
import { readFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import type {
  ContentBlock,
  PromptResponse,
  ReadTextFileRequest,
  ReadTextFileResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
  ToolCallContent,
  ToolCallUpdate,
  WriteTextFileRequest,
} from '@agentclientprotocol/sdk';
import {
  digest,
  errorMessage,
  type AgentToolInput,
  type Event,
  type RunFailure,
  type RunResult,
} from '../../protocol/index.js';
import {
  AgentSession,
  requestError,
  type AgentRequests,
  type StartedAgent,
} from '../agents/index.js';
import { isPersistenceFailed, newId, type StoredRun, type StoredToolCall } from '../store/index.js';
import { readCurrentFile } from '../tools/index.js';
import {
  placeRunAttachments,
  readableAttachmentFolders,
  runInputMessage,
} from './attachment-context.js';
import type { ExecutorDeps } from './run-executor.js';
import {
  recordApproval,
  runReadyCall,
  settleProposedCall,
  type ToolStepContext,
} from './tool-step.js';
import {
  cancelPendingApprovals,
  finishRun,
  finishToolCall,
  markSessionIdle,
  moveRun,
  moveToolCall,
} from './transitions.js';
import type { OpenWorktree } from './worktree-runs.js';

/** How long an agent has to answer initialize and session/new or session/load. */
const AGENT_SETUP_MS = 60_000;
/** After `session/cancel`, how long the agent has to answer the prompt with its stop reason. */
const CANCEL_WAIT_MS = 5_000;
/** The most a permission request's card may hold (its raw input as JSON, and the rest). */
const CARD_MAX_CHARS = 256 * 1024;
/** A tool call's text the run keeps (its content as the agent reported it). */
const TOOL_TEXT_MAX_CHARS = 16_000;

type StopReason = 'cancel' | 'wall_time' | 'persistence';

/** JSON-RPC's "internal error" code, for a request the host refuses. */
const REFUSED = -32603;

/** What the agent said of one of its tool calls so far, by its own id. */
interface AgentCall {
  title: string | null;
  kind: string | null;
  locations: { path: string; line?: number | null }[];
  rawInput: unknown;
  status: string | null;
  text: string;
  /** The Tether tool call, once there is one. */
  callId: string | null;
}

/** How the turn ended: the agent's stop reason, or why there was none. */
type TurnEnd =
  | { kind: 'stopped'; response: PromptResponse }
  | { kind: 'exited'; code: number | null; signal: string | null }
  | { kind: 'error'; message: string }
  | { kind: 'cancel_timeout' };

function textOf(content: readonly ToolCallContent[] | null | undefined): string {
  return (content ?? [])
    .map((item) => {
      if (item.type === 'content' && item.content.type === 'text') return item.content.text;
      if (item.type === 'diff') return `diff of ${item.path}`;
      return '';
    })
    .filter((text) => text !== '')
    .join('\n');
}

/** A value as JSON would carry it (undefined fields gone), or undefined when it cannot be. */
function jsonValue(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? null : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

export class AgentRunExecutor {
  private readonly controller = new AbortController();
  private stopReason: StopReason | null = null;
  private worktree: OpenWorktree | null = null;
  private agent: StartedAgent | null = null;
  private session: AgentSession | null = null;
  private sessionId: string | null = null;
  /** Updates while a session loads are the agent replaying its history: not this run's. */
  private loading = false;
  private readonly calls = new Map<string, AgentCall>();
  /** The message tool calls of this stretch of the turn belong to; null: text comes first. */
  private segmentMessageId: string | null = null;
  private liveMessageId: string | null = null;
  private text = '';
  private reasoning = '';
  private usage: Record<string, number> | null = null;
  private plan: unknown[] | null = null;
  private workspace = '';
  private readOnly: string[] = [];
  /** Waiters for approvals to be resolved, by approval id. */
  private readonly answers = new Map<string, (decision: string) => void>();
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly deps: ExecutorDeps,
    readonly runId: string,
  ) {}

  stop(reason: StopReason): void {
    this.stopReason = reason === 'persistence' ? reason : (this.stopReason ?? reason);
    this.controller.abort();
  }

  async execute(): Promise<void> {
    const timer = setTimeout(() => this.stop('wall_time'), this.deps.limits.runWallTimeMs);
    this.unsubscribe = this.deps.store.subscribe((events) => this.heard(events));
    let failure: RunFailure | null = null;
    let crashed = false;
    try {
      const outcome = await this.work();
      failure = outcome.failure;
      crashed = outcome.crashed;
    } catch (error) {
      failure = { code: 'internal', message: errorMessage(error) };
    } finally {
      clearTimeout(timer);
      this.unsubscribe?.();
      for (const answer of this.answers.values()) answer('cancelled');
      this.session?.close();
      await this.agent?.end(failure === null ? null : failure.message);
      this.deps.live.endRun(this.runId);
    }
    if (this.stopReason === 'persistence') return;
    const result = await this.commitWorktree();
    if ((this.stopReason as StopReason | null) === 'persistence') return;
    this.finish(result.failure ?? failure, result.result, crashed);
  }

  private run(): StoredRun {
    const run = this.deps.store.runs.getRun(this.runId);
    if (run === undefined) throw new Error(`no run ${this.runId}`);
    return run;
  }

  private get agentName(): string {
    const name = this.run().agent;
    if (name === undefined) throw new Error(`run ${this.runId} has no agent`);
    return name;
  }

  /** The whole turn; the failure to record, or null when the agent ended its turn. */
  private async work(): Promise<{ failure: RunFailure | null; crashed: boolean }> {
    const { store } = this.deps;
    const agents = this.deps.agents ?? null;
    const run = this.run();
    const name = this.agentName;
    if (agents === null || !agents.has(name)) {
      return {
        failure: {
          code: 'agent_failed',
          message: `no agent named ${name} is configured on this host any more: add it to agents in the config file and restart the host`,
        },
        crashed: false,
      };
    }
    const sessionWorkspace = store.runs.getSession(run.sessionId)?.workspace;
    if (sessionWorkspace === undefined) throw new Error(`run ${run.id} has no session`);
    try {
      this.worktree = await this.deps.worktrees.open(run.sessionId);
    } catch (error) {
      const why = errorMessage(error);
      return {
        failure: { code: 'internal', message: `the run's own worktree could not be made: ${why}` },
        crashed: false,
      };
    }
    this.workspace = this.worktree?.path ?? sessionWorkspace;
    placeRunAttachments(store, run);
    this.readOnly = readableAttachmentFolders(store, run.sessionId);
    try {
      this.agent = await agents.start(name, this.workspace);
    } catch (error) {
      return {
        failure: {
          code: 'agent_failed',
          message: `the agent ${name} could not start: ${errorMessage(error)}`,
        },
        crashed: false,
      };
    }
    const agent = this.agent;
    const exited = agent.process.exited.then((exit) => ({ kind: 'exited' as const, ...exit }));
    const setup = await this.race(this.setUp(agent, run), exited, AGENT_SETUP_MS);
    if (setup.kind !== 'done') {
      return this.turnFailure(await this.exitOf(setup, exited), 'while it started');
    }
    const { sessionId, prompt } = setup.value;
    if (this.stopReason !== null) return { failure: this.stoppedFailure(), crashed: false };
    const turn = await this.prompt(sessionId, prompt, exited);
    this.flushMessage(turn.kind === 'stopped' ? turn.response.stopReason : 'error');
    if (turn.kind === 'stopped') {
      this.recordUsage(turn.response);
      return { failure: this.stopFailure(turn.response), crashed: false };
    }
    return this.turnFailure(await this.exitOf(turn, exited), 'mid-turn');
  }

  /**
   * A connection that closed under a request is the agent exiting, most often: its exit
   * (which may come a moment after) says more than the closed connection.
   */
  private async exitOf(end: TurnEnd, exited: Promise<TurnEnd>): Promise<TurnEnd> {
    if (end.kind !== 'error') return end;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<TurnEnd>((resolve) => {
      timer = setTimeout(() => resolve(end), 2_000);
    });
    const found = await Promise.race([exited, late]);
    clearTimeout(timer);
    return found;
  }

  /** Initialize, then a session made or loaded, and the prompt to send. */
  private async setUp(
    agent: StartedAgent,
    run: StoredRun,
  ): Promise<{ sessionId: string; prompt: ContentBlock[] }> {
    const { store } = this.deps;
    this.session = await AgentSession.connect(agent.process, this.requests());
    const init = await this.session.initialize();
    const canLoad = init.agentCapabilities?.loadSession === true;
    const previous = run.agentSession ?? store.runs.lastAgentSession(run.sessionId, this.agentName);
    let sessionId: string;
    if (previous !== undefined && canLoad) {
      this.loading = true;
      try {
        await this.session.loadSession(previous, this.workspace);
      } finally {
        this.loading = false;
      }
      sessionId = previous;
    } else {
      sessionId = await this.session.newSession(this.workspace);
    }
    this.sessionId = sessionId;
    store.write(() => store.runs.setAgentSession(run.id, sessionId));
    const resumed = run.agentSession !== undefined;
    if (resumed && !canLoad) {
      throw new Error(
        'the host restarted during this run, and the agent cannot load its session again (it does not offer session/load)',
      );
    }
    return {
      sessionId,
      prompt: resumed
        ? this.resumePrompt(run)
        : this.taskPrompt(run, init.agentCapabilities?.promptCapabilities?.image === true),
    };
  }

  /** The task as content blocks: its text (with what was attached), and images the agent takes. */
  private taskPrompt(run: StoredRun, takesImages: boolean): ContentBlock[] {
    const message = runInputMessage(this.deps.store, run);
    const text = typeof message.content === 'string' ? message.content : run.input.text;
    const images = 'images' in message ? (message.images ?? []) : [];
    const blocks: ContentBlock[] = [];
    const note =
      images.length > 0 && !takesImages
        ? `\n\n(${images.length} attached image(s) were not sent: this agent does not take images.)`
        : '';
    blocks.push({ type: 'text', text: text + note });
    if (takesImages) {
      for (const url of images) {
        const match = /^data:([^;]+);base64,(.*)$/s.exec(url);
        if (match !== null) blocks.push({ type: 'image', mimeType: match[1]!, data: match[2]! });
      }
    }
    return blocks;
  }

  /**
   * After a restart: the calls the agent waited on were answered while it was gone, and
   * the request that asked died with it. The agent is told what was answered and goes on.
   */
  private resumePrompt(run: StoredRun): ContentBlock[] {
    const { store } = this.deps;
    const lines = [
      'The Tether host restarted while this task was in progress, and your turn ended with it.',
    ];
    for (const call of store.tools.listToolCalls(run.id)) {
      const approval = store.tools
        .listApprovals({ runId: run.id })
        .find((candidate) => candidate.toolCallId === call.id);
      if (approval === undefined || approval.decidedAt === undefined) continue;
      if (call.state === 'ready') {
        store.write((tx) =>
          finishToolCall(
            store,
            call,
            tx,
            {
              status: 'cancelled',
              summary:
                'approved after the agent that asked had stopped: it was told so, and asks again if it still needs it',
            },
            { modelContent: 'not run' },
          ),
        );
      }
      if (approval.state === 'approved' || approval.state === 'denied') {
        const title = (call.input as Partial<AgentToolInput>).title ?? call.name;
        lines.push(
          `Your permission request "${title}" was ${approval.state} by the user, but that request ended with the restart: ask again if you still need it.`,
        );
      }
    }
    lines.push('', 'Continue the task where you left off. The task was:', run.input.text);
    return [{ type: 'text', text: lines.join('\n') }];
  }

  private async prompt(
    sessionId: string,
    prompt: ContentBlock[],
    exited: Promise<TurnEnd>,
  ): Promise<TurnEnd> {
    const session = this.session!;
    const answered: Promise<TurnEnd> = session.prompt(sessionId, prompt).then(
      (response) => ({ kind: 'stopped', response }),
      (error: unknown) => ({ kind: 'error', message: errorMessage(error) }),
    );
    const stopped = new Promise<'stop'>((resolve) => {
      if (this.controller.signal.aborted) resolve('stop');
      this.controller.signal.addEventListener('abort', () => resolve('stop'), { once: true });
    });
    const first = await Promise.race([answered, exited, stopped]);
    if (first !== 'stop') return first;
    // Cancel: the agent is asked to stop and has a bounded time to say how it stopped.
    await session.cancel(sessionId).catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<TurnEnd>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'cancel_timeout' }), CANCEL_WAIT_MS);
    });
    const end = await Promise.race([answered, exited, late]);
    clearTimeout(timer);
    return end;
  }

  private async race<T>(
    work: Promise<T>,
    exited: Promise<TurnEnd>,
    ms: number,
  ): Promise<{ kind: 'done'; value: T } | TurnEnd> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<TurnEnd>((resolve) => {
      timer = setTimeout(
        () => resolve({ kind: 'error', message: `no answer within ${ms / 1000} s` }),
        ms,
      );
    });
    const stopped = new Promise<TurnEnd>((resolve) => {
      this.controller.signal.addEventListener(
        'abort',
        () => resolve({ kind: 'error', message: 'stopped' }),
        { once: true },
      );
    });
    try {
      return await Promise.race([
        work.then(
          (value) => ({ kind: 'done' as const, value }),
          (error: unknown) => ({ kind: 'error' as const, message: errorMessage(error) }),
        ),
        exited,
        late,
        stopped,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The failure of a turn that did not end with a stop reason. */
  private turnFailure(end: TurnEnd, when: string): { failure: RunFailure; crashed: boolean } {
    if (this.stopReason !== null) return { failure: this.stoppedFailure(), crashed: false };
    const name = this.agentName;
    const tail = this.agent?.process.stderrTail() ?? [];
    const said = tail.length === 0 ? '' : `; its last lines on stderr:\n${tail.join('\n')}`;
    let what: string;
    switch (end.kind) {
      case 'exited':
        what = `the agent ${name} exited ${when} (${end.signal === null ? `code ${end.code}` : end.signal})`;
        break;
      case 'error':
        what = `the agent ${name} failed ${when}: ${end.message}`;
        break;
      case 'cancel_timeout':
        what = `the agent ${name} did not stop within ${CANCEL_WAIT_MS / 1000} s of session/cancel`;
        break;
      case 'stopped':
        what = `the agent ${name} stopped: ${end.response.stopReason}`;
    }
    return {
      failure: { code: 'agent_failed', message: this.deps.store.maskSecrets(what + said) },
      crashed: end.kind === 'exited' || end.kind === 'error',
    };
  }

  /** The failure a stop reason other than `end_turn` is, or null. */
  private stopFailure(response: PromptResponse): RunFailure | null {
    switch (response.stopReason) {
      case 'end_turn':
        return null;
      case 'cancelled':
        return this.stoppedFailure();
      case 'refusal':
        return { code: 'refusal', message: `the agent ${this.agentName} refused to go on` };
      default:
        return {
          code: 'budget_exhausted',
          message: `the agent ${this.agentName} stopped: ${response.stopReason}`,
        };
    }
  }

  private stoppedFailure(): RunFailure {
    if (this.stopReason === 'wall_time') {
      return {
        code: 'wall_time_exceeded',
        message: `the run took longer than ${this.deps.limits.runWallTimeMs} ms`,
      };
    }
    return { code: 'cancelled', message: 'cancelled' };
  }

  private recordUsage(response: PromptResponse): void {
    // ACP's `usage` on the prompt's answer (where the agent gives it): token counts.
    const usage = (response as { usage?: Record<string, unknown> }).usage;
    if (typeof usage !== 'object' || usage === null) return;
    const count = (key: string) => (typeof usage[key] === 'number' ? usage[key] : undefined);
    const promptTokens = count('inputTokens');
    const completionTokens = count('outputTokens');
    if (promptTokens === undefined && completionTokens === undefined) return;
    this.usage = {
      ...this.usage,
      ...(promptTokens === undefined ? {} : { promptTokens }),
      ...(completionTokens === undefined ? {} : { completionTokens }),
    };
  }

  // ----- What the agent reports and asks -----

  private requests(): AgentRequests {
    return {
      update: (notification) => this.guard(() => this.update(notification)),
      requestPermission: (params, signal) => this.requestPermission(params, signal),
      readTextFile: (params, signal) => this.readTextFile(params, signal),
      writeTextFile: (params, signal) => this.writeTextFile(params, signal),
    };
  }

  /** A store write that fails stops the run where it stands (recovery settles it). */
  private guard(write: () => void): void {
    try {
      write();
    } catch (error) {
      if (!isPersistenceFailed(error)) throw error;
      this.stop('persistence');
    }
  }

  private update({ sessionId, update }: SessionNotification): void {
    if (this.loading || sessionId !== this.sessionId || this.stopReason === 'persistence') return;
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
      case 'agent_thought_chunk': {
        if (update.content.type !== 'text') return;
        if (this.liveMessageId === null) {
          this.liveMessageId = newId('msg');
          this.segmentMessageId = null;
          this.deps.live.beginMessage(this.runId, this.liveMessageId);
        }
        if (update.sessionUpdate === 'agent_message_chunk') {
          this.text += update.content.text;
          this.deps.live.appendText(this.runId, update.content.text);
        } else {
          this.reasoning += update.content.text;
          this.deps.live.appendReasoning(this.runId, update.content.text);
        }
        return;
      }
      case 'tool_call':
      case 'tool_call_update':
        this.toolUpdate(update);
        return;
      case 'plan':
        this.plan = update.entries.map((entry) => ({
          content: entry.content,
          status: entry.status,
          priority: entry.priority,
        }));
        return;
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

  /** What the agent says of a tool call, kept; its Tether call moved along with its status. */
  private toolUpdate(update: ToolCallUpdate): void {
    const known = this.calls.get(update.toolCallId);
    const call: AgentCall = known ?? {
      title: null,
      kind: null,
      locations: [],
      rawInput: undefined,
      status: null,
      text: '',
      callId: null,
    };
    if (typeof update.title === 'string') call.title = update.title;
    if (typeof update.kind === 'string') call.kind = update.kind;
    if (Array.isArray(update.locations)) {
      call.locations = update.locations.map((at) => ({ path: at.path, line: at.line ?? null }));
    }
    if (update.rawInput !== undefined) call.rawInput = update.rawInput;
    if (typeof update.status === 'string') call.status = update.status;
    const text = textOf(update.content);
    if (text !== '') call.text = text.slice(0, TOOL_TEXT_MAX_CHARS);
    this.calls.set(update.toolCallId, call);
    // A pending call waits for its permission request, where its card is made.
    if (call.callId === null && (call.status === null || call.status === 'pending')) return;
    if (call.callId === null) call.callId = this.insertCall(update.toolCallId, call).id;
    this.advance(call);
  }

  /** The card's input of an agent's tool call: exactly what the agent sent. */
  private cardInput(call: AgentCall): AgentToolInput {
    return {
      title: call.title ?? '',
      kind: call.kind ?? 'other',
      locations: call.locations,
      rawInput: jsonValue(call.rawInput) ?? null,
    };
  }

  /** The Tether call of an agent's tool call, `proposed`, in this stretch's message. */
  private insertCall(agentCallId: string, call: AgentCall): StoredToolCall {
    const input = this.cardInput(call);
    return this.insertToolCall(`agent:${input.kind}`, input, agentCallId);
  }

  private insertToolCall(name: string, input: unknown, agentCallId: string): StoredToolCall {
    const { store } = this.deps;
    const run = this.run();
    const messageId = this.segmentMessage();
    return store.write((tx) => {
      const position = store.tools.listToolCalls(run.id).length;
      const call: StoredToolCall = {
        id: newId('tc'),
        runId: run.id,
        name,
        input,
        inputDigest: digest({ tool: name, input, workspace: this.workspace }),
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
      const tool = this.deps.tools.get(name);
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
    const { store } = this.deps;
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
  private started(call: StoredToolCall): StoredToolCall {
    const { store } = this.deps;
    if (call.state !== 'proposed' && call.state !== 'ready') return call;
    const run = this.run();
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
  private flushMessage(finishReason: string, always = false): string {
    const { store } = this.deps;
    const run = this.run();
    const empty = this.text === '' && this.reasoning === '';
    if (!always && empty && store.runs.countMessages(run.id) > 0 && this.usage === null) {
      return this.segmentMessageId ?? '';
    }
    const messageId = this.liveMessageId ?? newId('msg');
    const usage = this.usage;
    const plan = this.plan;
    store.write((tx) => {
      store.runs.insertMessage({
        id: messageId,
        runId: run.id,
        text: this.text,
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
          text: this.text,
          finishReason,
          ...(this.reasoning === '' ? {} : { reasoning: this.reasoning }),
          ...(usage === null ? {} : { usage }),
          ...(plan === null ? {} : { plan }),
        },
      });
    });
    if (this.liveMessageId !== null) this.deps.live.endMessage(this.runId);
    this.liveMessageId = null;
    this.text = '';
    this.reasoning = '';
    this.usage = null;
    this.plan = null;
    return messageId;
  }

  // ----- Permission requests: Tether approvals -----

  private async requestPermission(
    params: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    const allowOnce = params.options.find((option) => option.kind === 'allow_once');
    const rejectOnce =
      params.options.find((option) => option.kind === 'reject_once') ??
      params.options.find((option) => option.kind === 'reject_always');
    const reject = (): RequestPermissionResponse =>
      rejectOnce === undefined
        ? { outcome: { outcome: 'cancelled' } }
        : { outcome: { outcome: 'selected', optionId: rejectOnce.optionId } };
    if (params.sessionId !== this.sessionId || this.stopReason !== null) {
      return { outcome: { outcome: 'cancelled' } };
    }
    // The card shows what the agent sent with the request, over what it said before.
    const known = this.calls.get(params.toolCall.toolCallId);
    const call: AgentCall = {
      title: params.toolCall.title ?? known?.title ?? null,
      kind: params.toolCall.kind ?? known?.kind ?? null,
      locations:
        params.toolCall.locations?.map((at) => ({ path: at.path, line: at.line ?? null })) ??
        known?.locations ??
        [],
      rawInput: params.toolCall.rawInput !== undefined ? params.toolCall.rawInput : known?.rawInput,
      status: known?.status ?? null,
      text: known?.text ?? '',
      callId: null,
    };
    const input = this.cardInput(call);
    const unfaithful =
      call.title === null || call.title === ''
        ? 'it has no title'
        : call.rawInput !== undefined && jsonValue(call.rawInput) === undefined
          ? 'its raw input is not JSON'
          : JSON.stringify(input).length > CARD_MAX_CHARS
            ? `it is longer than ${CARD_MAX_CHARS} characters`
            : allowOnce === undefined
              ? 'it offers no "allow once": Tether answers for one call only'
              : null;
    this.calls.set(params.toolCall.toolCallId, call);
    const stored = this.guarded(() => this.insertCall(params.toolCall.toolCallId, call));
    if (stored === null) return { outcome: { outcome: 'cancelled' } };
    call.callId = stored.id;
    const { store } = this.deps;
    if (unfaithful !== null) {
      const why = `the host refused the agent's permission request without asking: ${unfaithful}, so no card can show it faithfully`;
      store.write((tx) =>
        finishToolCall(
          store,
          stored,
          tx,
          { status: 'failed', summary: why, error: { code: 'permission_denied', message: why } },
          { modelContent: why },
        ),
      );
      return reject();
    }
    const decision = await this.approval(
      stored,
      { kind: 'agent', agent: this.agentName },
      `the agent ${this.agentName} asks before this tool call`,
      signal,
    );
    if (decision === 'approved') {
      this.guarded(() => this.started(store.tools.getToolCall(stored.id)!));
      return { outcome: { outcome: 'selected', optionId: allowOnce!.optionId } };
    }
    if (decision === 'cancelled') return { outcome: { outcome: 'cancelled' } };
    return reject();
  }

  /**
   * Records an approval of `call` and waits for its answer; the run goes back to running
   * once no other call waits. Returns how it was resolved.
   */
  private async approval(
    call: StoredToolCall,
    preview: Parameters<typeof recordApproval>[2],
    reason: string,
    signal: AbortSignal,
  ): Promise<string> {
    const { store, limits } = this.deps;
    let approvalId: string | undefined;
    const recorded = this.guarded(() => {
      recordApproval({ store, workspace: this.workspace, limits }, call, preview, reason);
      approvalId = store.tools
        .listApprovals({ runId: this.runId, state: 'pending' })
        .find((candidate) => candidate.toolCallId === call.id)?.id;
      return true;
    });
    if (recorded === null || approvalId === undefined) return 'cancelled';
    return this.awaitAnswer(approvalId, signal);
  }

  /** Waits until the approval is resolved (by anyone, by expiry, by a cancel). */
  private awaitAnswer(approvalId: string, signal: AbortSignal): Promise<string> {
    const { store } = this.deps;
    return new Promise<string>((resolve) => {
      const done = (decision: string) => {
        this.answers.delete(approvalId);
        signal.removeEventListener('abort', onAbort);
        this.controller.signal.removeEventListener('abort', onAbort);
        if (decision !== 'cancelled') this.guarded(() => this.resumeRun());
        resolve(decision);
      };
      const onAbort = () => done('cancelled');
      this.answers.set(approvalId, done);
      signal.addEventListener('abort', onAbort, { once: true });
      this.controller.signal.addEventListener('abort', onAbort, { once: true });
      // It may have been answered already.
      const approval = store.tools.getApproval(approvalId);
      if (approval !== undefined && approval.state !== 'pending') done(approval.state);
      if (this.controller.signal.aborted) done('cancelled');
    });
  }

  /** Hears committed events: the answer to an approval this run waits for. */
  private heard(events: readonly Event[]): void {
    for (const event of events) {
      if (event.type !== 'tool.approval_resolved' || event.runId !== this.runId) continue;
      const answer = this.answers.get(event.payload.approvalId);
      const approval = this.deps.store.tools.getApproval(event.payload.approvalId);
      if (answer !== undefined && approval !== undefined) answer(approval.state);
    }
  }

  /** The run back to running from waiting for approval, once no call of it waits. */
  private resumeRun(): boolean {
    const { store } = this.deps;
    const run = this.run();
    if (run.state !== 'waiting_for_approval') return true;
    if (store.tools.listToolCallsInState(run.id, ['waiting_for_approval']).length > 0) return true;
    store.write((tx) => moveRun(store, run, 'running', tx));
    return true;
  }

  private guarded<T>(write: () => T): T | null {
    try {
      return write();
    } catch (error) {
      if (!isPersistenceFailed(error)) throw error;
      this.stop('persistence');
      return null;
    }
  }

  // ----- fs/*: Tether's own read_file and write_file under its policy -----

  private stepContext(): ToolStepContext {
    const { store, live, tools, policy, limits } = this.deps;
    const worktree = this.worktree;
    return {
      store,
      live,
      tools,
      policy,
      limits,
      workspace: this.workspace,
      worktree:
        worktree === null
          ? null
          : { gitReadOnly: [worktree.commonDir], repository: worktree.repository },
      readOnly: this.readOnly,
      signal: this.controller.signal,
    };
  }

  /**
   * One call of a Tether tool for the agent, decided and run as the built-in loop's are:
   * allowed, refused, or asked on a card (then run once approved). Its finished call, or
   * a refusal the agent gets as its request's error.
   */
  private async toolCall(
    name: string,
    input: unknown,
    signal: AbortSignal,
  ): Promise<StoredToolCall> {
    const { store } = this.deps;
    if (this.stopReason !== null) throw await requestError(REFUSED, 'the run is stopping');
    if (this.deps.tools.get(name) === undefined) {
      throw await requestError(REFUSED, `this host offers no ${name} tool`);
    }
    const call = this.insertToolCall(name, input, `fs-${newId('tc')}`);
    const ctx = this.stepContext();
    const settled = await settleProposedCall(ctx, call);
    if (settled === 'waiting') {
      const approvalId = store.tools
        .listApprovals({ runId: this.runId, state: 'pending' })
        .find((candidate) => candidate.toolCallId === call.id)?.id;
      if (approvalId !== undefined) await this.awaitAnswer(approvalId, signal);
      const now = store.tools.getToolCall(call.id)!;
      if (now.state === 'ready') await runReadyCall(ctx, now);
    }
    const done = store.tools.getToolCall(call.id)!;
    if (done.state !== 'succeeded') {
      const result = done.result as { summary?: string; error?: { message?: string } } | null;
      const why = result?.error?.message ?? result?.summary ?? `the call ended ${done.state}`;
      throw await requestError(REFUSED, `${name} was not done: ${why}`);
    }
    return done;
  }

  /** The path as the tools take it: relative to the workspace when inside it. */
  private toolPath(path: string): string {
    if (!isAbsolute(path)) return path;
    const inside = relative(this.workspace, path);
    return inside === '' ? '.' : inside.startsWith('..') || isAbsolute(inside) ? path : inside;
  }

  private async readTextFile(
    params: ReadTextFileRequest,
    signal: AbortSignal,
  ): Promise<ReadTextFileResponse> {
    const input = {
      path: this.toolPath(params.path),
      ...(params.line == null ? {} : { offset: params.line }),
      ...(params.limit == null ? {} : { limit: params.limit }),
    };
    const done = await this.toolCall('read_file', input, signal);
    // The whole text the tool read (masked), less its header line.
    const file = done.output?.path;
    const content = file === undefined ? (done.modelContent ?? '') : readFileSync(file, 'utf8');
    const newline = content.indexOf('\n');
    return { content: newline === -1 ? '' : content.slice(newline + 1) };
  }

  private async writeTextFile(params: WriteTextFileRequest, signal: AbortSignal): Promise<void> {
    const path = this.toolPath(params.path);
    const expectedSha256 = await this.currentSha256(params.path, signal);
    await this.toolCall('write_file', { path, content: params.content, expectedSha256 }, signal);
  }

  /**
   * The file's sha256 as it is now, which the write is bound to; null when there is no
   * regular file there (none, a FIFO, a device, a folder: write_file then refuses what is
   * not a file). Read as write_file reads it, without waiting on a FIFO nor reading a
   * device or a huge file into memory: the agent names the path.
   */
  private async currentSha256(path: string, signal: AbortSignal): Promise<string | null> {
    let real: string;
    try {
      real = await realpath(isAbsolute(path) ? path : join(this.workspace, path));
    } catch {
      return null;
    }
    const current = await readCurrentFile(real, path, 0, signal);
    return 'exists' in current && current.exists ? current.sha256 : null;
  }

  // ----- The end -----

  private async commitWorktree(): Promise<{
    failure: RunFailure | null;
    result: RunResult | null;
  }> {
    const worktree = this.worktree;
    if (worktree === null) return { failure: null, result: null };
    try {
      return { failure: null, result: await this.deps.worktrees.commit(this.run(), worktree) };
    } catch (error) {
      const message = `the run's files could not be committed on ${worktree.branch} (they are still in ${worktree.path}): ${errorMessage(error)}`;
      return { failure: { code: 'internal', message }, result: null };
    }
  }

  /**
   * Ends the run: its pending approvals cancelled, calls that never started cancelled,
   * calls the agent was running when it died `unknown`; then `session.idle`.
   */
  private finish(failure: RunFailure | null, result: RunResult | null, crashed: boolean): void {
    const { store } = this.deps;
    store.write((tx) => cancelPendingApprovals(store, this.run(), tx));
    for (const call of store.tools.listToolCalls(this.runId)) {
      if (
        call.state === 'proposed' ||
        call.state === 'waiting_for_approval' ||
        call.state === 'ready'
      ) {
        store.write((tx) =>
          finishToolCall(
            store,
            call,
            tx,
            { status: 'cancelled', summary: 'the run ended before the agent ran this' },
            { modelContent: 'not run' },
          ),
        );
      } else if (call.state === 'running') {
        const summary = crashed
          ? 'the agent died while this ran: it may or may not have happened'
          : 'the agent ended its turn without saying how this ended';
        store.write((tx) => finishToolCall(store, call, tx, { status: 'unknown', summary }));
      }
    }
    store.write((tx) => {
      let run = this.run();
      if (result !== null) this.deps.worktrees.record(tx, run, result);
      if (this.stopReason === 'cancel' || run.state === 'cancelling') {
        if (run.state !== 'cancelling') run = moveRun(store, run, 'cancelling', tx);
        finishRun(store, run, 'cancelled', tx, { reason: 'cancelled' });
        return;
      }
      if (run.state === 'waiting_for_approval') run = moveRun(store, run, 'running', tx);
      if (failure === null) finishRun(store, run, 'succeeded', tx);
      else finishRun(store, run, 'failed', tx, { reason: failure.code, error: failure });
    });
    store.write((tx) => markSessionIdle(store, this.run(), tx));
  }
}
