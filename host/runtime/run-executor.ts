/**
 * Executes one run: model → tools → model until the model stops, a budget ends it, it
 * fails, or it is cancelled. Works from the store, so what it does next depends only on
 * what has been committed.
 */
import { digest, type RunFailure, type RunResult, errorMessage } from '../../protocol/index.js';
import type { ModelCompletion, ModelToolSpec } from '../model/index.js';
import { faultPoint } from '../faults/index.js';
import type { StoredRun } from '../store/index.js';
import { parseToolInput } from '../tools/index.js';
import { placeRunAttachments, readableAttachmentFolders } from './attachment-context.js';
import { ContextCache } from './context-builder.js';
import { runModelTurn } from './model-turn.js';
import { prepareContext } from './session-compaction.js';
import { TokenCount, inputBudget } from './token-count.js';
import {
  cancelUnstartedCall,
  runReadyCall,
  settleProposedCall,
  type ToolStepContext,
} from './tool-step.js';
import { RunFrame } from './run-frame.js';
import type { RuntimeModel } from './types.js';
import type { OpenWorktree } from './worktree-runs.js';
import { cancelPendingApprovals, finishToolCall } from './transitions.js';

/** How the loop stopped; `waiting` parks the run until its approvals are answered. */
type Outcome =
  { state: 'succeeded' } | { state: 'waiting' } | { state: 'failed'; error: RunFailure };

/** Where a run works, once it can start. */
interface RunPlace {
  model: RuntimeModel;
  /** The model the run asks, as recorded with it. */
  modelName: string;
  worktree: OpenWorktree | null;
  workspace: string;
  /** Folders of attachments the run may read. */
  readOnly: string[];
}

const UNSTARTED = new Set(['proposed', 'waiting_for_approval', 'ready']);

/** The tool input as recorded: parsed JSON when it parses, else the raw text. */
function recordedInput(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

export class RunExecutor extends RunFrame {
  protected async work(): Promise<void> {
    try {
      const outcome = await this.loop();
      if (this.persistenceLost()) return;
      // Parked for approval: the run keeps its session; an answer resumes it.
      if (outcome.state === 'waiting' && this.stopReason === null) return;
      const ended = await this.commitWorktree();
      if (ended.result !== null) faultPoint('worktree-committed');
      // Commits may have failed while git worked.
      if (this.persistenceLost()) return;
      const failed: Outcome | null =
        ended.failure === null ? null : { state: 'failed', error: ended.failure };
      this.finish(outcome.state === 'failed' ? outcome : (failed ?? outcome), ended.result);
    } catch (error) {
      if (this.persistenceLost()) return;
      this.finish({
        state: 'failed',
        error: {
          code: 'internal',
          message: errorMessage(error),
        },
      });
      throw error;
    }
  }

  private async loop(): Promise<Outcome> {
    const { store, limits } = this.deps;
    const run = this.run();
    const place = await this.placeOf(run);
    if ('state' in place) return place;
    const { model, workspace, worktree } = place;
    const signal = this.controller.signal;
    const cache = new ContextCache(store, model.adapter.provider);
    const target = {
      workspace,
      ...(worktree === null ? {} : { worktreeBranch: worktree.branch }),
      budgetTokens: inputBudget(limits.contextTokens),
      extraChars: 0,
      count: new TokenCount(),
    };
    const step: ToolStepContext = {
      store,
      live: this.deps.live,
      tools: this.deps.tools,
      policy: this.deps.policy,
      workspace,
      worktree:
        worktree === null
          ? null
          : { gitReadOnly: [worktree.commonDir], repository: worktree.repository },
      readOnly: place.readOnly,
      limits,
      signal,
    };
    for (;;) {
      if ((await this.settleCalls(step, run.id)) === 'waiting') return { state: 'waiting' };
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
        { model: place.modelName, messages: context.plan.messages, tools: specs },
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

  /**
   * Where the run works: its model, its session's workspace or its own worktree (made
   * here), and the attachment folders it may read; or why it cannot start.
   */
  private async placeOf(run: StoredRun): Promise<RunPlace | Outcome> {
    const { store, model } = this.deps;
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
    placeRunAttachments(store, run);
    return {
      model,
      modelName: run.model,
      worktree: this.worktree,
      workspace: this.worktree?.path ?? sessionWorkspace,
      readOnly: readableAttachmentFolders(store, run.sessionId),
    };
  }

  /** Settles the run's proposed and ready tool calls, in order; `waiting` when one parks it. */
  private async settleCalls(step: ToolStepContext, runId: string): Promise<'waiting' | 'settled'> {
    for (const call of step.store.tools.listToolCallsInState(runId, ['proposed', 'ready'])) {
      if (this.stopReason !== null) break;
      const settled =
        call.state === 'ready'
          ? await runReadyCall(step, call)
          : await settleProposedCall(step, call);
      if (settled === 'waiting') return 'waiting';
    }
    return 'settled';
  }

  private stoppedOutcome(): Outcome {
    return { state: 'failed', error: this.stoppedFailure() };
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
   * Ends the run (with its worktree's result, when it has one): its approvals and the
   * calls that never started cancelled first.
   */
  private finish(outcome: Outcome, result: RunResult | null = null): void {
    const { store } = this.deps;
    store.write((tx) => cancelPendingApprovals(store, this.run(), tx));
    for (const call of store.tools.listToolCalls(this.runId)) {
      if (UNSTARTED.has(call.state)) {
        cancelUnstartedCall(store, call, 'the run ended before this tool started');
      }
    }
    const failure =
      outcome.state === 'succeeded'
        ? null
        : outcome.state === 'failed'
          ? outcome.error
          : this.stoppedFailure();
    this.recordEnd(failure, result);
  }
}
