/**
 * Executes one run of an ACP agent (docs/agents.md): the agent started in the sandbox, its
 * session made (or loaded: the session's earlier run, or this run after a restart), the
 * task sent as its prompt, what it reports recorded (agent-transcript.ts), its permission
 * requests as approvals (agent-approvals.ts), its file reads and writes as calls of
 * read_file and write_file (agent-files.ts). Cancel sends `session/cancel` and waits a
 * bounded time for the agent's stop reason; the agent's process group is gone after every
 * end, and its calls in flight when it died are `unknown`.
 */
import type { ContentBlock } from '@agentclientprotocol/sdk';
import {
  errorMessage,
  type AgentToolInput,
  type RunFailure,
  type RunResult,
} from '../../protocol/index.js';
import {
  AGENT_SETUP_MS,
  AgentSession,
  CANCEL_WAIT_MS,
  crashed,
  exitOf,
  firstEnd,
  raceWork,
  requestFailed,
  stopReasonFailure,
  taskPrompt,
  turnEndMessage,
  usageOf,
  type AgentRequests,
  type AuthMethodOffered,
  type StartedAgent,
  type TurnEnd,
} from '../agents/index.js';
import type { StoredRun } from '../store/index.js';
import { AgentApprovals } from './agent-approvals.js';
import { AgentTerminals } from './agent-terminals.js';
import { AgentFiles } from './agent-files.js';
import { AgentTranscript, type AgentRunScope } from './agent-transcript.js';
import {
  placeRunAttachments,
  readableAttachmentFolders,
  runInputMessage,
} from './attachment-context.js';
import { RunFrame } from './run-frame.js';
import type { ToolStepContext } from './tool-step.js';
import { cancelPendingApprovals, finishToolCall } from './transitions.js';

/** The run's end as the turn left it: its failure, and whether the agent died. */
interface TurnOutcome {
  failure: RunFailure | null;
  crashed: boolean;
}

/** The parts of a run that has its workspace, made once it has. */
interface RunParts {
  transcript: AgentTranscript;
  approvals: AgentApprovals;
  files: AgentFiles;
  terminals: AgentTerminals;
}

export class AgentRunExecutor extends RunFrame {
  private agent: StartedAgent | null = null;
  private session: AgentSession | null = null;
  private sessionId: string | null = null;
  /** Updates while a session loads are the agent replaying its history: not this run's. */
  private loading = false;
  /** Aborted once the agent's turn is over, however it ended. */
  private readonly turnOver = new AbortController();
  /** What the agent asked for stops with the run, and with its turn. */
  private readonly requestsSignal = AbortSignal.any([this.controller.signal, this.turnOver.signal]);
  /** The logins the agent offers, named when it says it has none. */
  private logins: AuthMethodOffered[] = [];
  private workspace = '';
  private readOnly: string[] = [];
  private parts: RunParts | null = null;

  protected async work(): Promise<void> {
    let outcome: TurnOutcome;
    try {
      outcome = await this.turn();
    } catch (error) {
      outcome = { failure: { code: 'internal', message: errorMessage(error) }, crashed: false };
    } finally {
      // The turn is over: nothing the agent asked for goes on (a command it started and
      // did not wait for is stopped, a call not yet decided is cancelled), and the run
      // ends only once each is recorded ended, before its worktree is committed.
      this.turnOver.abort();
      this.parts?.approvals.close();
      this.session?.close();
    }
    await this.parts?.files.settle();
    await this.agent?.end(outcome.failure === null ? null : outcome.failure.message);
    if (this.persistenceLost()) return;
    const committed = await this.commitWorktree();
    if (this.persistenceLost()) return;
    this.finish(committed.failure ?? outcome.failure, committed.result, outcome.crashed);
  }

  private get agentName(): string {
    const name = this.run().agent;
    if (name === undefined) throw new Error(`run ${this.runId} has no agent`);
    return name;
  }

  /** The whole turn; the failure to record, or null when the agent ended its turn. */
  private async turn(): Promise<TurnOutcome> {
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
    const parts = this.makeParts(name);
    try {
      // In its worktree, the repository's git folder read-only, as run_command gets it.
      const gitReadOnly = this.worktree === null ? [] : [this.worktree.commonDir];
      this.agent = await agents.start(name, this.workspace, { gitReadOnly });
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
    const setup = await raceWork(
      this.setUp(agent, run),
      exited,
      AGENT_SETUP_MS,
      this.controller.signal,
    );
    if (setup.kind !== 'done') {
      return this.turnFailure(await exitOf(setup, exited), 'while it started');
    }
    const { sessionId, prompt } = setup.value;
    if (this.stopReason !== null) return { failure: this.stoppedFailure(), crashed: false };
    const end = await this.prompt(sessionId, prompt, exited);
    // The answer's token counts go with the last message (they were lost after it).
    const usage = end.kind === 'stopped' ? usageOf(end.response) : null;
    if (usage !== null) parts.transcript.addUsage(usage);
    parts.transcript.flushMessage(end.kind === 'stopped' ? end.response.stopReason : 'error');
    if (end.kind === 'stopped') {
      // Stopped by the host (refused, out of time), the run fails whatever the agent said.
      if (this.stopReason !== null) return { failure: this.stoppedFailure(), crashed: false };
      const failure = stopReasonFailure(name, end.response);
      return { failure: failure === 'stopped' ? this.stoppedFailure() : failure, crashed: false };
    }
    return this.turnFailure(await exitOf(end, exited), 'mid-turn');
  }

  /** The run's transcript, approvals and file calls, sharing what they need of the run. */
  private makeParts(agentName: string): RunParts {
    const scope: AgentRunScope = {
      deps: this.deps,
      runId: this.runId,
      agentName,
      workspace: this.workspace,
      signal: this.requestsSignal,
      stopping: () => this.stopReason !== null || this.turnOver.signal.aborted,
      run: () => this.run(),
      guarded: (write) => this.guarded(write),
      refuse: (why) =>
        this.refuse({
          code: 'agent_failed',
          message: `the host stopped the agent ${agentName}: ${why}`,
        }),
    };
    const transcript = new AgentTranscript(scope);
    const approvals = new AgentApprovals(scope, transcript);
    const files = new AgentFiles(scope, transcript, approvals, () => this.stepContext());
    const terminals = new AgentTerminals(scope, files);
    this.parts = { transcript, approvals, files, terminals };
    return this.parts;
  }

  /** What the agent asks of the host, for this run's session only. */
  private requests(parts: RunParts): AgentRequests {
    const ours = (sessionId: string) => !this.loading && sessionId === this.sessionId;
    return {
      update: ({ sessionId, update }) => {
        // Once refused, nothing more the agent sends is recorded.
        if (!ours(sessionId) || this.persistenceLost() || this.stopReason === 'refused') return;
        this.guarded(() => parts.transcript.update(update));
      },
      requestPermission: async (params, signal) => {
        if (params.sessionId !== this.sessionId || this.stopReason !== null) {
          return { outcome: { outcome: 'cancelled' } };
        }
        return parts.approvals.requestPermission(params, signal);
      },
      readTextFile: (params, signal) => parts.files.readTextFile(params, signal),
      writeTextFile: (params, signal) => parts.files.writeTextFile(params, signal),
      createTerminal: (params, signal) => parts.terminals.create(params, signal),
      terminalOutput: (terminalId) => parts.terminals.output(terminalId),
      waitForTerminalExit: (terminalId, signal) => parts.terminals.waitForExit(terminalId, signal),
      killTerminal: (terminalId) => parts.terminals.kill(terminalId),
      releaseTerminal: (terminalId) => parts.terminals.release(terminalId),
    };
  }

  /** Initialize, then a session made or loaded, and the prompt to send. */
  private async setUp(
    agent: StartedAgent,
    run: StoredRun,
  ): Promise<{ sessionId: string; prompt: ContentBlock[] }> {
    const { store } = this.deps;
    this.session = await AgentSession.connect(agent.process, this.requests(this.parts!));
    const init = await this.session.initialize();
    this.logins = init.authMethods ?? [];
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
    if (resumed) return { sessionId, prompt: this.resumePrompt(run) };
    const message = runInputMessage(store, run);
    const text = typeof message.content === 'string' ? message.content : run.input.text;
    const images = 'images' in message ? (message.images ?? []) : [];
    const takesImages = init.agentCapabilities?.promptCapabilities?.image === true;
    return { sessionId, prompt: taskPrompt(text, images, takesImages) };
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

  /** The prompt sent; on a stop, `session/cancel` and a bounded wait for the stop reason. */
  private async prompt(
    sessionId: string,
    prompt: ContentBlock[],
    exited: Promise<TurnEnd>,
  ): Promise<TurnEnd> {
    const session = this.session!;
    const answered: Promise<TurnEnd> = session.prompt(sessionId, prompt).then(
      (response) => ({ kind: 'stopped', response }),
      (error: unknown) => requestFailed(error),
    );
    const signal = this.controller.signal;
    const stopped = new Promise<'stop'>((resolve) => {
      if (signal.aborted) resolve('stop');
      signal.addEventListener('abort', () => resolve('stop'), { once: true });
    });
    const first = await Promise.race([answered, exited, stopped]);
    if (first !== 'stop') return first;
    // Cancel: the agent is asked to stop and has a bounded time to say how it stopped.
    await session.cancel(sessionId).catch(() => undefined);
    return firstEnd([answered, exited], CANCEL_WAIT_MS, { kind: 'cancel_timeout' });
  }

  /** The failure of a turn that did not end with a stop reason. */
  private turnFailure(end: TurnEnd, when: string): TurnOutcome {
    if (this.stopReason !== null) return { failure: this.stoppedFailure(), crashed: false };
    const tail = this.agent?.process.stderrTail() ?? [];
    const message = turnEndMessage(this.agentName, end, when, tail, this.logins);
    return {
      failure: { code: 'agent_failed', message: this.deps.store.maskSecrets(message) },
      crashed: crashed(end),
    };
  }

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
      signal: this.requestsSignal,
    };
  }

  /**
   * Ends the run: its pending approvals cancelled, calls that never started cancelled,
   * calls the agent was running when it died `unknown`; then its end and `session.idle`.
   */
  private finish(failure: RunFailure | null, result: RunResult | null, died: boolean): void {
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
        const summary = died
          ? 'the agent died while this ran: it may or may not have happened'
          : 'the agent ended its turn without saying how this ended';
        store.write((tx) => finishToolCall(store, call, tx, { status: 'unknown', summary }));
      }
    }
    this.recordEnd(failure, result);
  }
}
