/**
 * An ACP agent's `fs/read_text_file` and `fs/write_text_file` as calls of Tether's own
 * read_file and write_file in its run, decided and run as the built-in loop's are (its
 * policy, access declarations, cards and sandbox); a refusal is the request's error.
 * Its terminals' run_command calls are made here too (agent-terminals.ts).
 */
import { readFileSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import type {
  ReadTextFileRequest,
  ReadTextFileResponse,
  WriteTextFileRequest,
} from '@agentclientprotocol/sdk';
import { requestError, WAITING_MAX } from '../agents/index.js';
import { newId, type StoredToolCall } from '../store/index.js';
import { readCurrentFile } from '../tools/index.js';
import type { AgentApprovals } from './agent-approvals.js';
import type { AgentRunScope, AgentTranscript } from './agent-transcript.js';
import { runReadyCall, settleProposedCall, type ToolStepContext } from './tool-step.js';

/** JSON-RPC's "internal error" code, for a request the host refuses. */
export const REFUSED = -32603;

export class AgentFiles {
  /** The calls asked for and not yet ended, files' and terminals' alike. */
  private readonly inFlight = new Set<Promise<StoredToolCall>>();

  constructor(
    private readonly scope: AgentRunScope,
    private readonly transcript: AgentTranscript,
    private readonly approvals: AgentApprovals,
    /** What the run's tool calls are decided and run with (its worktree, read-only folders). */
    private readonly stepContext: () => ToolStepContext,
  ) {}

  async readTextFile(
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

  async writeTextFile(params: WriteTextFileRequest, signal: AbortSignal): Promise<void> {
    const path = this.toolPath(params.path);
    const expectedSha256 = await this.currentSha256(params.path, signal);
    await this.toolCall('write_file', { path, content: params.content, expectedSha256 }, signal);
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
    const done = await this.decideAndRun(name, input, signal);
    if (done.state !== 'succeeded') throw await requestError(REFUSED, notDone(done));
    return done;
  }

  /**
   * A call of a Tether tool for the agent, decided and run as the built-in loop's are, in
   * whatever state it ended; a refusal before it was recorded is the request's error.
   * `signal` ends the wait for an answer; `run` changes how it runs: a signal that stops
   * it (with the run's), and who is told once it is running.
   */
  decideAndRun(
    name: string,
    input: unknown,
    signal: AbortSignal,
    run: { stop?: AbortSignal; onStarted?: (call: StoredToolCall) => void } = {},
  ): Promise<StoredToolCall> {
    const call = this.decideAndRunNow(name, input, signal, run);
    this.inFlight.add(call);
    const forget = () => this.inFlight.delete(call);
    call.then(forget, forget);
    return call;
  }

  /** Resolves once every call the agent asked for has ended (the run's end waits on it). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private async decideAndRunNow(
    name: string,
    input: unknown,
    signal: AbortSignal,
    run: { stop?: AbortSignal; onStarted?: (call: StoredToolCall) => void },
  ): Promise<StoredToolCall> {
    const { store, tools } = this.scope.deps;
    if (this.scope.stopping()) throw await requestError(REFUSED, 'the run is stopping');
    if (tools.get(name) === undefined) {
      throw await requestError(REFUSED, `this host offers no ${name} tool`);
    }
    if (this.approvals.waiting() >= WAITING_MAX) {
      throw await requestError(
        REFUSED,
        `the run already waits for ${WAITING_MAX} answers: ask again once they are answered`,
      );
    }
    if (!this.transcript.roomForCall()) {
      throw await requestError(REFUSED, 'the run made all the tool calls it may');
    }
    const call = this.transcript.insertToolCall(name, input, `fs-${newId('tc')}`);
    const step = this.stepContext();
    const ctx: ToolStepContext = {
      ...step,
      ...(run.stop === undefined ? {} : { signal: AbortSignal.any([step.signal, run.stop]) }),
      ...(run.onStarted === undefined ? {} : { onStarted: run.onStarted }),
    };
    const settled = await settleProposedCall(ctx, call);
    if (settled === 'waiting') {
      const approvalId = this.approvals.pendingApprovalOf(call.id);
      if (approvalId !== undefined) await this.approvals.awaitAnswer(approvalId, signal);
      const now = store.tools.getToolCall(call.id)!;
      if (now.state === 'ready') await runReadyCall(ctx, now);
    }
    return store.tools.getToolCall(call.id)!;
  }

  /** The path as the tools take it: relative to the workspace when inside it. */
  private toolPath(path: string): string {
    if (!isAbsolute(path)) return path;
    const inside = relative(this.scope.workspace, path);
    return inside === '' ? '.' : inside.startsWith('..') || isAbsolute(inside) ? path : inside;
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
      real = await realpath(isAbsolute(path) ? path : join(this.scope.workspace, path));
    } catch {
      return null;
    }
    const current = await readCurrentFile(real, path, 0, signal);
    return 'exists' in current && current.exists ? current.sha256 : null;
  }
}

/** Why a call of the agent's was not done, as its request's error says it. */
export function notDone(done: StoredToolCall): string {
  const result = done.result as { summary?: string; error?: { message?: string } } | null;
  const why = result?.error?.message ?? result?.summary ?? `the call ended ${done.state}`;
  return `${done.name} was not done: ${why}`;
}
