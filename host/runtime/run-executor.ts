/**
 * Executes one run: model → tools → model until the model stops, a budget ends it, it
 * fails, or it is cancelled. Works from the store, so what it does next depends only on
 * what has been committed.
 */
import { digest, type RunFailure, type RunResult, errorMessage } from '../../protocol/index.js';
import type { ModelCompletion, ModelToolSpec } from '../model/index.js';
import { faultPoint } from '../faults/index.js';
import type { Store, StoredRun } from '../store/index.js';
import { parseToolInput } from '../tools/index.js';
import { placeRunAttachments, readableAttachmentFolders } from './attachment-context.js';
import { ContextCache } from './context-builder.js';
import type { LiveHub } from './live-hub.js';
import { runModelTurn } from './model-turn.js';
import { prepareContext } from './session-compaction.js';
import { TokenCount, inputBudget } from './token-count.js';
import { cancelUnstartedCall, runReadyCall, settleProposedCall } from './tool-step.js';
import {
  cancelPendingApprovals,
  finishRun,
  finishToolCall,
  markSessionIdle,
  moveRun,
} from './transitions.js';
import type { AgentLauncher, PolicyFn, RuntimeLimits, RuntimeModel, ToolTable } from './types.js';
import type { OpenWorktree, WorktreeRuns } from './worktree-runs.js';

export interface ExecutorDeps {
  store: Store;
  live: LiveHub;
  model: RuntimeModel | null;
  tools: ToolTable;
  policy: PolicyFn;
  limits: RuntimeLimits;
  worktrees: WorktreeRuns;
  /** The ACP agents runs may be given to; null: none is configured. */
  agents?: AgentLauncher | null;
}

/** How the loop stopped; `waiting` parks the run until its approvals are answered. */
type Outcome =
  { state: 'succeeded' } | { state: 'waiting' } | { state: 'failed'; error: RunFailure };
/** `persistence`: commits fail; the run is left as last committed for recovery to settle. */
type StopReason = 'cancel' | 'wall_time' | 'persistence';

const UNSTARTED = new Set(['proposed', 'waiting_for_approval', 'ready']);

/** The tool input as recorded: parsed JSON when it parses, else the raw text. */
function recordedInput(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

export class RunExecutor {
  private readonly controller = new AbortController();
  private stopReason: StopReason | null = null;
  /** The session's own worktree the run works in, once opened; null: the workspace. */
  private worktree: OpenWorktree | null = null;

  constructor(
    private readonly deps: ExecutorDeps,
    readonly runId: string,
  ) {}

  /** Stops the run: aborts the model request and the running tool; no tool starts after. */
  stop(reason: StopReason): void {
    // Nothing can be recorded any more, not even a cancellation: persistence wins.
    this.stopReason = reason === 'persistence' ? reason : (this.stopReason ?? reason);
    this.controller.abort();
  }

  async execute(): Promise<void> {
    const timer = setTimeout(() => this.stop('wall_time'), this.deps.limits.runWallTimeMs);
    try {
      const outcome = await this.loop();
      if (this.stopReason === 'persistence') return;
      // Parked for approval: the run keeps its session; an answer resumes it.
      if (outcome.state === 'waiting' && this.stopReason === null) return;
      const ended = await this.commitWorktree(outcome);
      if (ended.result !== null) faultPoint('worktree-committed');
      // Commits may have failed while git worked.
      if ((this.stopReason as StopReason | null) === 'persistence') return;
      this.finish(ended.outcome, ended.result);
    } catch (error) {
      if (this.stopReason === 'persistence') return;
      this.finish({
        state: 'failed',
        error: {
          code: 'internal',
          message: errorMessage(error),
        },
      });
      throw error;
    } finally {
      clearTimeout(timer);
      this.deps.live.endRun(this.runId);
    }
  }

  /**
   * A worktree run's files committed on its branch as it ends: the result to record with
   * its end. A commit that fails leaves the files in the worktree and fails the run.
   */
  private async commitWorktree(
    outcome: Outcome,
  ): Promise<{ outcome: Outcome; result: RunResult | null }> {
    const worktree = this.worktree;
    if (worktree === null) return { outcome, result: null };
    try {
      return { outcome, result: await this.deps.worktrees.commit(this.run(), worktree) };
    } catch (error) {
      const message = `the run's files could not be committed on ${worktree.branch} (they are still in ${worktree.path}): ${errorMessage(error)}`;
      return {
        outcome:
          outcome.state === 'failed'
            ? outcome
            : { state: 'failed', error: { code: 'internal', message } },
        result: null,
      };
    }
  }

  private run(): StoredRun {
    const run = this.deps.store.runs.getRun(this.runId);
    if (run === undefined) throw new Error(`no run ${this.runId}`);
    return run;
  }

  private async loop(): Promise<Outcome> {
    const { store, model, limits } = this.deps;
    const run = this.run();
    const sessionWorkspace = store.runs.getSession(run.sessionId)?.workspace;
    if (sessionWorkspace === undefined) throw new Error(`run ${run.id} has no session`);
    if (model === null || run.model === null) {
      return {
        state: 'failed',
        error: {
          code: 'model_not_configured',
          message:
            'no model is configured: set TETHER_MODEL_BASE_URL, TETHER_MODEL and TETHER_MODEL_API_KEY (or DEEPSEEK_API_KEY) and restart the host',
        },
      };
    }
    try {
      this.worktree = await this.deps.worktrees.open(run.sessionId);
    } catch (error) {
      const why = errorMessage(error);
      return {
        state: 'failed',
        error: { code: 'internal', message: `the run's own worktree could not be made: ${why}` },
      };
    }
    const worktree = this.worktree;
    const workspace = worktree?.path ?? sessionWorkspace;
    const signal = this.controller.signal;
    placeRunAttachments(store, run);
    const readOnly = readableAttachmentFolders(store, run.sessionId);
    const cache = new ContextCache(store, model.adapter.provider);
    const target = {
      workspace,
      ...(worktree === null ? {} : { worktreeBranch: worktree.branch }),
      budgetTokens: inputBudget(limits.contextTokens),
      extraChars: 0,
      count: new TokenCount(),
    };
    for (;;) {
      const step = {
        store,
        live: this.deps.live,
        tools: this.deps.tools,
        policy: this.deps.policy,
        workspace,
        worktree:
          worktree === null
            ? null
            : { gitReadOnly: [worktree.commonDir], repository: worktree.repository },
        readOnly,
        limits,
        signal,
      };
      for (const call of store.tools.listToolCallsInState(run.id, ['proposed', 'ready'])) {
        if (this.stopReason !== null) break;
        const settled =
          call.state === 'ready'
            ? await runReadyCall(step, call)
            : await settleProposedCall(step, call);
        if (settled === 'waiting') return { state: 'waiting' };
      }
      if (this.stopReason !== null) return this.stoppedOutcome();
      const turn = store.runs.countMessages(run.id);
      if (turn >= limits.maxModelTurns) {
        return {
          state: 'failed',
          error: {
            code: 'budget_exhausted',
            message: `the run used its ${limits.maxModelTurns} model turns`,
          },
        };
      }
      // Read at each turn: an MCP server's tools change while a run goes on.
      const specs: ModelToolSpec[] = [...this.deps.tools.values()].map((tool) => ({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
      }));
      target.extraChars = JSON.stringify(specs).length;
      const context = await prepareContext(
        { store, adapter: model.adapter, cache, target, signal },
        this.run(),
      );
      if (this.stopReason !== null || context.kind === 'aborted') return this.stoppedOutcome();
      if (context.kind === 'too_large') {
        return { state: 'failed', error: { code: 'context_too_large', message: context.message } };
      }
      const outcome = await runModelTurn(
        { store, adapter: model.adapter, live: this.deps.live, signal },
        run,
        turn,
        { model: run.model, messages: context.plan.messages, tools: specs },
      );
      if (outcome.kind === 'completed' && outcome.completion.usage?.promptTokens !== undefined) {
        target.count.calibrate(context.plan.size, outcome.completion.usage.promptTokens);
      }
      if (outcome.kind === 'failed') {
        if (this.stopReason !== null) return this.stoppedOutcome();
        const { class: failureClass, message } = outcome.failure;
        // Only the run's own signal aborts a request, and a stopped run returned above.
        const code = failureClass === 'aborted' ? 'cancelled' : failureClass;
        return { state: 'failed', error: { code, message } };
      }
      const calls = this.recordMessage(run, workspace, outcome.messageId, outcome.completion);
      if (calls === 0) return { state: 'succeeded' };
    }
  }

  private stoppedOutcome(): Outcome {
    if (this.stopReason === 'wall_time') {
      return {
        state: 'failed',
        error: {
          code: 'wall_time_exceeded',
          message: `the run took longer than ${this.deps.limits.runWallTimeMs} ms`,
        },
      };
    }
    // A cancelled run ends as cancelled in finish(), whatever this says.
    return { state: 'failed', error: { code: 'cancelled', message: 'cancelled' } };
  }

  /** Persists the message and its tool calls in one transaction. Returns how many calls. */
  private recordMessage(
    run: StoredRun,
    workspace: string,
    messageId: string,
    completion: ModelCompletion,
  ): number {
    const { store, tools } = this.deps;
    return store.write((tx) => {
      const usage = completion.usage === undefined ? null : { ...completion.usage };
      store.runs.insertMessage({
        id: messageId,
        runId: run.id,
        text: completion.text,
        reasoning: completion.reasoning ?? null,
        finishReason: completion.finishReason,
        usage,
        createdAt: tx.at,
        provider: this.deps.model?.adapter.provider ?? 'generic',
        native: completion.native,
        toolCalls: completion.toolCalls,
      });
      tx.append({
        type: 'message.completed',
        sessionId: run.sessionId,
        runId: run.id,
        payload: {
          messageId,
          text: completion.text,
          finishReason: completion.finishReason,
          ...(completion.reasoning === undefined ? {} : { reasoning: completion.reasoning }),
          ...(usage === null ? {} : { usage }),
        },
      });
      completion.toolCalls.forEach((modelCall, position) => {
        const tool = tools.get(modelCall.name);
        const parsed = tool
          ? parseToolInput(tool, modelCall.arguments)
          : { ok: false as const, message: `there is no tool named ${modelCall.name}` };
        const input = parsed.ok ? parsed.input : recordedInput(modelCall.arguments);
        const call = {
          id: `tc_${messageId.slice(4)}_${position}`,
          runId: run.id,
          name: modelCall.name,
          input,
          inputDigest: digest({ tool: modelCall.name, input, workspace }),
          state: 'proposed' as const,
          startedAt: null,
          finishedAt: null,
          result: null,
          messageId,
          modelCallId: modelCall.id,
          position,
          attempt: 0,
          createdAt: tx.at,
          modelContent: null,
          output: null,
          processGroup: null,
        };
        store.tools.insertToolCall(call);
        tx.append({
          type: 'tool.proposed',
          sessionId: run.sessionId,
          runId: run.id,
          toolCallId: call.id,
          payload: {
            name: call.name,
            input,
            inputDigest: call.inputDigest,
            ...(tool !== undefined && parsed.ok ? { access: tool.access(parsed.input).kind } : {}),
          },
        });
        if (!parsed.ok) {
          const error = { code: 'invalid_input', message: parsed.message };
          finishToolCall(
            store,
            call,
            tx,
            { status: 'failed', summary: `invalid call of ${modelCall.name}`, error },
            { modelContent: `error (invalid_input): ${parsed.message}` },
          );
        }
      });
      return completion.toolCalls.length;
    });
  }

  /**
   * Ends the run (with its worktree's result, when it has one), then, with everything
   * flushed and released, records `session.idle`.
   */
  private finish(outcome: Outcome, result: RunResult | null = null): void {
    const { store } = this.deps;
    store.write((tx) => cancelPendingApprovals(store, this.run(), tx));
    for (const call of store.tools.listToolCalls(this.runId)) {
      if (UNSTARTED.has(call.state)) {
        cancelUnstartedCall(store, call, 'the run ended before this tool started');
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
      if (outcome.state === 'succeeded') {
        finishRun(store, run, 'succeeded', tx);
        return;
      }
      const stopped = this.stoppedOutcome();
      const error =
        outcome.state === 'failed'
          ? outcome.error
          : stopped.state === 'failed'
            ? stopped.error
            : null;
      if (error === null) throw new Error(`run ${this.runId} finished while parked`);
      finishRun(store, run, 'failed', tx, { reason: error.code, error });
    });
    faultPoint('run-finished');
    store.write((tx) => markSessionIdle(store, this.run(), tx));
  }
}
